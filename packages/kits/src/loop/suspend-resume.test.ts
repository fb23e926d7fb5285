import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConflictError, InvalidInputError, UnauthorizedError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ApprovalRequiredError, defineToolLifecycle } from '@agent-core/kits/tools'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import {
  type AgentCallOutcome,
  type AgentRunState,
  createScriptedModel,
  defineAgent,
  type ScriptedTurn,
} from './index.js'
import { type RefundEffect, refundAgent } from './internal/testing/refund-agent.js'

const childScript = fileURLToPath(new URL('./internal/testing/resume-child.ts', import.meta.url))

interface ChildAnswer {
  readonly reason?: string
  readonly events?: string[]
  readonly messages?: { role: string; content: string; toolCallId?: string }[]
  readonly state?: AgentRunState
  readonly pending?: { toolCallId: string }[]
  readonly thrown?: string
  readonly details?: { field?: string }
}

interface ChildRun {
  readonly state: unknown
  readonly outcomes: Record<string, AgentCallOutcome>
}

/** Resumes runs in a fresh child process that gets nothing but JSON; one answer per run. */
function resumeInChild(input: {
  runs: readonly ChildRun[]
  effects: string
  turns: readonly ScriptedTurn[]
  keys?: readonly string[]
}): Promise<ChildAnswer[]> {
  return runChildJson<ChildAnswer[]>(childScript, input)
}

async function resumeOnce(input: {
  state: unknown
  outcomes: Record<string, AgentCallOutcome>
  effects: string
  turns: readonly ScriptedTurn[]
  keys?: readonly string[]
}): Promise<ChildAnswer> {
  const { state, outcomes, ...rest } = input
  const [answer] = await resumeInChild({ ...rest, runs: [{ state, outcomes }] })
  return answer!
}

let dir: string
let effects: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-resume-'))
  effects = join(dir, 'effects.jsonl')
  writeFileSync(effects, '')
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function readEffects(): (RefundEffect | { lookup: string })[] {
  return readFileSync(effects, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

const FIRST_TURN: ScriptedTurn = {
  toolCalls: [
    { name: 'lookup', input: { orderId: 'A-1' } },
    { name: 'refund', input: { orderId: 'A-1', amount: 250 } },
    { name: 'refund', input: { orderId: 'A-2', amount: 50 } },
    { name: 'refund', input: { orderId: 'A-3', amount: 500 } },
  ],
}

async function suspend(keys?: readonly string[]) {
  const { agent } = refundAgent({ effects, turns: [FIRST_TURN], keys })
  const result = await agent.run({ prompt: 'Refund A-1, A-2 and A-3.', defer: true })
  expect(result.reason).toBe('suspended')
  // Only the JSON crosses over.
  return { result, json: JSON.stringify(result.state) }
}

describe('suspend in one process, resume in another from the JSON alone', () => {
  it('runs the approved call once, never the settled ones, and the model reads every result', async () => {
    const { result, json } = await suspend()
    expect(
      result.reason === 'suspended' &&
        result.pending.map((call) => [call.toolCallId, call.waitingFor, call.reason]),
    ).toEqual([
      ['call_1_1', 'approval', 'A refund of 250 needs a manager.'],
      ['call_1_3', 'approval', 'A refund of 500 needs a manager.'],
    ])
    // The history ends on the assistant message and the results of the calls that ran.
    expect(result.state.messages.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'tool'])
    const before = readEffects()
    expect(before).toEqual([{ lookup: 'A-1' }, expect.objectContaining({ orderId: 'A-2', amount: 50 })])

    const pending = JSON.parse(json).pending as { toolCallId: string; invocationId: string }[]
    const answer = await resumeOnce({
      state: JSON.parse(json),
      outcomes: {
        call_1_1: { type: 'approve', toolCallId: 'call_1_1', by: 'person' },
        call_1_3: {
          type: 'reject',
          toolCallId: 'call_1_3',
          by: 'person',
          reason: 'Too much.',
          instruction: 'Offer a voucher.',
        },
      },
      effects,
      turns: [{ text: 'Refunded A-1 and A-2; A-3 gets a voucher.' }],
    })
    expect(answer.thrown).toBeUndefined()
    expect(answer.reason).toBe('final')
    expect(answer.events).toEqual([
      'run-start',
      'tool-approved:refund:person',
      'tool-rejected:refund:person',
      'tool-resolved:refund',
      'turn-start',
      'text-flush',
      'run-done:final',
    ])
    const after = readEffects()
    expect(after.slice(0, 2)).toEqual(before) // nothing settled before ran again
    expect(after.slice(2)).toEqual([
      {
        orderId: 'A-1',
        amount: 250,
        invocationId: pending.find((p) => p.toolCallId === 'call_1_1')?.invocationId,
      },
    ])
    const tools = answer.messages!.filter((m) => m.role === 'tool')
    expect(tools.map((m) => m.toolCallId).sort()).toEqual(['call_1_0', 'call_1_1', 'call_1_2', 'call_1_3'])
    expect(tools.find((m) => m.toolCallId === 'call_1_3')?.content).toContain('Offer a voucher.')
  })

  it('partial decisions: the run suspends again on the calls left', async () => {
    const { json } = await suspend()
    const answer = await resumeOnce({
      state: JSON.parse(json),
      outcomes: { call_1_3: { type: 'approve', toolCallId: 'call_1_3', by: 'person' } },
      effects,
      turns: [],
    })
    expect(answer.reason).toBe('suspended')
    expect(answer.pending!.map((call) => call.toolCallId)).toEqual(['call_1_1'])
    expect(readEffects().filter((effect) => 'orderId' in effect && effect.orderId === 'A-3')).toHaveLength(1)
    // The second suspension resumes like the first.
    const done = await resumeOnce({
      state: answer.state,
      outcomes: { call_1_1: { type: 'approve', toolCallId: 'call_1_1', by: 'person' } },
      effects,
      turns: [{ text: 'Done.' }],
    })
    expect(done.reason).toBe('final')
    expect(readEffects().filter((effect) => 'orderId' in effect)).toHaveLength(3)
  })

  it('refuses an outcome for a call that is not pending, and a history that does not end on the pending calls', async () => {
    const { json } = await suspend()
    const { agent } = refundAgent({ effects, turns: [] })
    const state = JSON.parse(json) as AgentRunState
    for (const [id, outcome] of [
      ['call_1_0', { type: 'approve', toolCallId: 'call_1_0', by: 'person' }],
      ['call_9', { type: 'approve', toolCallId: 'call_9', by: 'person' }],
    ] as const) {
      const error = await agent.run({ resume: state, outcomes: { [id]: outcome } }).catch((e: unknown) => e)
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).details.field).toBe(`outcomes.${id}`)
    }
    // An outcome that does not fit what the call waits for.
    await expect(
      agent.run({
        resume: state,
        outcomes: { call_1_1: { type: 'result', toolCallId: 'call_1_1', output: 1 } },
      }),
    ).rejects.toMatchObject({ code: 'invalid-input', details: { field: 'outcomes.call_1_1.type' } })
    // A history cut before the pending calls, or extended after them.
    const cut = { ...state, messages: state.messages.slice(0, 1) }
    await expect(agent.run({ resume: cut })).rejects.toSatisfy((e: unknown) => ConflictError.isInstance(e))
    const extended = { ...state, messages: [...state.messages, { role: 'user', content: 'and now?' }] }
    await expect(agent.run({ resume: extended as AgentRunState })).rejects.toSatisfy((e: unknown) =>
      ConflictError.isInstance(e),
    )
    // A pending call whose input was changed in storage.
    const changed = {
      ...state,
      pending: state.pending.map((call) =>
        call.toolCallId === 'call_1_1' ? { ...call, input: { orderId: 'A-1', amount: 25_000 } } : call,
      ),
    }
    await expect(agent.run({ resume: changed })).rejects.toSatisfy((e: unknown) =>
      ConflictError.isInstance(e),
    )
    // Nothing ran for any refused resume.
    expect(readEffects()).toHaveLength(2)
  })

  describe('signed decisions', () => {
    const keys = ['a-32-byte-secret-kept-on-server!']

    it('an honest signed decision works in another process', async () => {
      const { json } = await suspend(keys)
      const state = JSON.parse(json) as AgentRunState
      const signature = state.pending.find((call) => call.toolCallId === 'call_1_1')?.signature
      expect(signature).toMatch(/^v1\./)
      const answer = await resumeOnce({
        state,
        outcomes: {
          call_1_1: { type: 'approve', toolCallId: 'call_1_1', by: 'person', signature: signature! },
        },
        effects,
        turns: [],
        keys,
      })
      expect(answer.thrown).toBeUndefined()
      expect(answer.reason).toBe('suspended') // call_1_3 still waits
      expect(readEffects().filter((effect) => 'orderId' in effect && effect.orderId === 'A-1')).toHaveLength(
        1,
      )
    })

    it('refuses a forged, missing, moved or replayed signature before anything runs', async () => {
      const first = await suspend(keys)
      const state = JSON.parse(first.json) as AgentRunState
      const signatureOf = (s: AgentRunState, id: string) =>
        s.pending.find((call) => call.toolCallId === id)!.signature!
      // A second run with the same script: same tool-call ids, another run id and invocation ids.
      const second = await suspend(keys)
      const other = JSON.parse(second.json) as AgentRunState
      const attempts: [string, AgentCallOutcome][] = [
        [
          'forged',
          { type: 'approve', toolCallId: 'call_1_1', by: 'person', signature: `v1.${'A'.repeat(43)}` },
        ],
        ['missing', { type: 'approve', toolCallId: 'call_1_1', by: 'person' }],
        [
          'moved to another call',
          {
            type: 'approve',
            toolCallId: 'call_1_1',
            by: 'person',
            signature: signatureOf(state, 'call_1_3'),
          },
        ],
        [
          'replayed from another run',
          {
            type: 'approve',
            toolCallId: 'call_1_1',
            by: 'person',
            signature: signatureOf(other, 'call_1_1'),
          },
        ],
      ]
      // An input changed on the way, with its genuine signature.
      const tampered = {
        ...state,
        pending: state.pending.map((call) =>
          call.toolCallId === 'call_1_1' ? { ...call, input: { orderId: 'A-1', amount: 2 } } : call,
        ),
        messages: state.messages.map((message) =>
          message.role === 'assistant' && message.toolCalls
            ? {
                ...message,
                toolCalls: message.toolCalls.map((c) =>
                  c.id === 'call_1_1' ? { ...c, arguments: '{"orderId":"A-1","amount":2}' } : c,
                ),
              }
            : message,
        ),
      }
      const runs: ChildRun[] = [
        ...attempts.map(([, outcome]) => ({ state, outcomes: { call_1_1: outcome } })),
        {
          state: tampered,
          outcomes: {
            call_1_1: {
              type: 'approve',
              toolCallId: 'call_1_1',
              by: 'person',
              signature: signatureOf(state, 'call_1_1'),
            },
          },
        },
      ]
      const answers = await resumeInChild({ runs, effects, turns: [], keys })
      const names = [...attempts.map(([what]) => what), 'input changed on the way']
      answers.forEach((answer, index) => {
        expect(answer.thrown, names[index]).toBe('unauthorized')
        expect(answer.details?.field, names[index]).toBe('outcomes.call_1_1.signature')
      })
      // Only the two runs' automatic calls ever ran.
      expect(
        readEffects()
          .filter((effect) => 'orderId' in effect)
          .map((effect) => (effect as RefundEffect).orderId),
      ).toEqual(['A-2', 'A-2'])
    })

    it('a signed outcome reaching an agent without keys is refused', async () => {
      const { json } = await suspend(keys)
      const state = JSON.parse(json) as AgentRunState
      const { agent } = refundAgent({ effects, turns: [] })
      const error = await agent
        .run({
          resume: state,
          outcomes: {
            call_1_1: {
              type: 'approve',
              toolCallId: 'call_1_1',
              by: 'person',
              signature: state.pending[0]!.signature!,
            },
          },
        })
        .catch((e: unknown) => e)
      expect(UnauthorizedError.isInstance(error)).toBe(true)
    })
  })
})

describe('a tool that asks for a person while it runs', () => {
  /** `transfer` learns while it runs that each of its two legs needs a person; approvals arrive through its resume hook. */
  function stagedAgent(turns: readonly ScriptedTurn[]) {
    const approvals = new Map<string, number>()
    const legs: string[] = []
    const transfer = defineModelTool<{ amount: number }, string>({
      id: 'transfer',
      description: 'Moves money in two legs, each approved by a person',
      inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      execute: ({ amount }, { invocationId }) => {
        const approved = approvals.get(invocationId) ?? 0
        if (approved < 2)
          throw new ApprovalRequiredError(`Leg ${approved + 1} of moving ${amount} needs a person.`)
        legs.push(invocationId)
        return `moved ${amount}`
      },
    })
    const agent = defineAgent({
      model: createScriptedModel(turns),
      tools: [
        defineToolLifecycle(transfer, {
          resume(call) {
            approvals.set(call.invocationId, (approvals.get(call.invocationId) ?? 0) + 1)
          },
        }),
      ],
    })
    return { agent, legs }
  }

  it('waits again after each approval, and saves the new wait at once', async () => {
    const { agent, legs } = stagedAgent([
      { toolCalls: [{ name: 'transfer', input: { amount: 40 } }] },
      { text: 'Moved 40.' },
    ])
    const first = await agent.run({ prompt: 'Move 40.', defer: true })
    expect(first.reason === 'suspended' && first.pending.map((call) => call.reason)).toEqual([
      'Leg 1 of moving 40 needs a person.',
    ])
    const saves: AgentRunState[] = []
    const approve = { type: 'approve', toolCallId: 'call_1_0', by: 'person' } as const
    const second = await agent.run({
      resume: JSON.parse(JSON.stringify(first.state)),
      outcomes: { call_1_0: approve },
      defer: true,
      onProgress: (state) => void saves.push(state),
    })
    expect(second.reason === 'suspended' && second.pending.map((call) => call.reason)).toEqual([
      'Leg 2 of moving 40 needs a person.',
    ])
    // The last save already holds the new wait, not the approval it used.
    expect(saves.at(-1)?.pending).toEqual([
      expect.objectContaining({ waitingFor: 'approval', reason: 'Leg 2 of moving 40 needs a person.' }),
    ])
    expect(saves.at(-1)?.pending[0]).not.toHaveProperty('approval')
    const third = await agent.run({ resume: second.state, outcomes: { call_1_0: approve }, defer: true })
    expect(third.reason === 'final' && third.answer).toBe('Moved 40.')
    expect(legs).toEqual([first.state.pending[0]!.invocationId])
  })

  it('asks a resolver again after each approval', async () => {
    const { agent, legs } = stagedAgent([
      { toolCalls: [{ name: 'transfer', input: { amount: 5 } }] },
      { text: 'Done.' },
    ])
    const asked: string[] = []
    const result = await agent.run({
      prompt: 'Move 5.',
      resolveApproval: (call) => {
        asked.push(call.reason)
        return { type: 'approve' }
      },
    })
    expect(result.reason).toBe('final')
    expect(asked).toEqual(['Leg 1 of moving 5 needs a person.', 'Leg 2 of moving 5 needs a person.'])
    expect(legs).toHaveLength(1)
  })
})
