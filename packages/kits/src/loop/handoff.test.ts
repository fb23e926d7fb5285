/** Handoffs: the transfer tool, the input filter, the turn cap over cycles, and a suspension resumed in another process. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidDefinitionError } from '@agent-core/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import {
  createScriptedModel,
  defineHandoffAgent,
  type HandoffEvent,
  type HandoffRunState,
  handoff,
  removeToolCalls,
  type ScriptedTurn,
  UnknownAgentError,
} from './index.js'
import { handoffGraph } from './internal/testing/handoff-agents.js'

const childScript = fileURLToPath(new URL('./internal/testing/handoff-child.ts', import.meta.url))

interface ChildAnswer {
  readonly reason?: string
  readonly lastAgent?: string
  readonly text?: string
  readonly handoffState?: HandoffRunState
  readonly thrown?: string
  readonly details?: { id?: string; known?: string[] }
}

function runChild(input: unknown): Promise<ChildAnswer> {
  return runChildJson<ChildAnswer>(childScript, input)
}

const transfer: ScriptedTurn = {
  text: 'Let me check.',
  toolCalls: [{ name: 'transfer_to_billing', input: {} }],
}

describe('handoffs', () => {
  it('offers a transfer tool, passes the filtered conversation and says which agent answered', async () => {
    const billingTurns: ScriptedTurn[] = [{ text: 'Your refund is on its way.' }]
    const { triage } = handoffGraph({ triage: [transfer], billing: billingTurns })
    const events: HandoffEvent[] = []
    const result = await triage.run({
      prompt: 'I was charged twice.',
      onEvent: (event) => void events.push(event),
    })
    expect(result.reason).toBe('final')
    expect(result.lastAgent).toBe('billing')
    expect(result.text).toBe('Your refund is on its way.')
    expect(result.totalTurns).toBe(2)
    expect(events.filter((event) => event.type === 'agent-handoff')).toEqual([
      expect.objectContaining({ type: 'agent-handoff', from: 'triage', to: 'billing', runId: result.runId }),
    ])
    // The triage model was offered the transfer tool; billing read the conversation without the transfer call and its result.
    const triageModel = triage.agent.model as ReturnType<typeof createScriptedModel>
    expect(triageModel.calls[0]?.tools?.map((tool) => tool.name)).toEqual(['transfer_to_billing'])
    expect(result.messages).toEqual([
      { role: 'user', content: 'I was charged twice.' },
      { role: 'assistant', content: 'Let me check.' },
      expect.objectContaining({ role: 'assistant', content: 'Your refund is on its way.' }),
    ])
  })

  it('keeps the whole conversation without a filter', async () => {
    const billing = defineHandoffAgent({ name: 'billing', model: createScriptedModel([{ text: 'Done.' }]) })
    const triage = defineHandoffAgent({
      name: 'triage',
      model: createScriptedModel([transfer]),
      handoffs: [billing],
    })
    const result = await triage.run({ prompt: 'Refund me.' })
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(result.messages[2]).toMatchObject({ role: 'tool', content: 'Transferred to billing.' })
  })

  it('removeToolCalls keeps what people and agents said', () => {
    expect(
      removeToolCalls([
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'x', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: 'x' },
        { role: 'assistant', content: 'Hello', toolCalls: [{ id: 'c2', name: 'x', arguments: '{}' }] },
      ]),
    ).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ])
  })

  it('bounds a cycle of handoffs by the run’s turn limit', async () => {
    const back: ScriptedTurn = { toolCalls: [{ name: 'transfer_to_triage', input: {} }] }
    const { triage } = handoffGraph({
      triage: [transfer, transfer, transfer],
      billing: [back, back, back],
    })
    const result = await triage.run({ prompt: 'Loop.', maxTurns: 4 })
    expect(result.reason).toBe('turn-limit')
    expect(result.totalTurns).toBe(4)
  })

  it('refuses malformed handoffs with a typed error', () => {
    expect(() => handoff({} as never)).toThrow(InvalidDefinitionError)
    expect(() => defineHandoffAgent({ name: 'has space', model: createScriptedModel([]) })).toThrow(
      InvalidDefinitionError,
    )
  })
})

describe('a handoff run that suspends in the second agent', () => {
  let dir: string
  let effects: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loop-handoff-'))
    effects = join(dir, 'effects.txt')
    writeFileSync(effects, '')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const billingTurns: ScriptedTurn[] = [
    { toolCalls: [{ name: 'refund', input: { amount: 30 } }] },
    { text: 'Refunded 30.' },
  ]

  it('saves the active agent by name and resumes with it in another process', async () => {
    const { triage } = handoffGraph({ triage: [transfer], billing: billingTurns, effects })
    const first = await triage.run({ prompt: 'Refund 30.', defer: true })
    expect(first.reason).toBe('suspended')
    expect(first.lastAgent).toBe('billing')
    expect(first.handoffState.activeAgent).toBe('billing')
    const pending = first.reason === 'suspended' ? first.pending : []
    expect(pending.map((call) => call.toolId)).toEqual(['refund'])
    const saved = JSON.parse(JSON.stringify(first.handoffState))
    const answer = await runChild({
      state: saved,
      outcomes: {
        [pending[0]!.toolCallId]: { type: 'approve', toolCallId: pending[0]!.toolCallId, by: 'person' },
      },
      triage: [],
      billing: billingTurns.slice(1),
      effects,
    })
    expect(answer).toMatchObject({ reason: 'final', lastAgent: 'billing', text: 'Refunded 30.' })
    expect(readFileSync(effects, 'utf8')).toBe('refund 30\n')
  })

  it('refuses a state whose active agent the graph does not have', async () => {
    const { triage } = handoffGraph({ triage: [transfer], billing: billingTurns, effects })
    const first = await triage.run({ prompt: 'Refund 30.', defer: true })
    const answer = await runChild({
      graph: 'lonely',
      state: first.handoffState,
      outcomes: {},
      triage: [],
      billing: [],
    })
    expect(answer).toMatchObject({ thrown: 'unknown-agent', details: { id: 'billing', known: ['lonely'] } })
    const lonely = defineHandoffAgent({ name: 'lonely', model: createScriptedModel([]) })
    await expect(lonely.run({ resume: first.handoffState })).rejects.toSatisfy((error: unknown) =>
      UnknownAgentError.isInstance(error),
    )
  })
})
