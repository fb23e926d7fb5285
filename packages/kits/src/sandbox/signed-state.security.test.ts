/**
 * A signature covers everything the decision lets run (issue 32): a signed approval of a code call covers
 * the code (the agent's signature) and the recording of the host calls it lets run (the code tool's
 * signature, the same HMAC scheme and keys). Editing the waiting host call in the stored recording
 * (`refund A-17 250` into `refund B-99 25000`) is a typed refusal, and nothing runs.
 */
import { UnauthorizedError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ApprovalRequiredError, defineToolLifecycle } from '@agent-core/kits/tools'
import { describe, expect, it } from 'vitest'
import { createScriptedModel, defineAgent, type ScriptedTurn } from '../loop/index.js'
import { defineCodeTool, MemoryRecordingStore, type SandboxRecording } from './index.js'

const KEY = 'a-test-secret-of-at-least-32-chars!'
const code = `const { total } = await lookup_order({ orderId: 'A-17' })
return await refund({ orderId: 'A-17', amount: total })`

function build(effects: string[], recordings: MemoryRecordingStore, turns: ScriptedTurn[], keys?: string[]) {
  const lookup = defineModelTool<{ orderId: string }, { total: number }>({
    id: 'lookup_order',
    description: 'Finds an order',
    inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
    execute: ({ orderId }) => {
      effects.push(`lookup ${orderId}`)
      return { total: 250 }
    },
  })
  const refund = defineToolLifecycle(
    defineModelTool<{ orderId: string; amount: number }, string>({
      id: 'refund',
      description: 'Refunds an order',
      inputSchema: {
        type: 'object',
        required: ['orderId', 'amount'],
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      },
      execute: ({ orderId, amount }) => {
        effects.push(`refund ${orderId} ${amount}`)
        return `refunded ${amount}`
      },
    }),
    {
      authorize(call) {
        if (call.input.amount > 100)
          throw new ApprovalRequiredError(`A refund of ${call.input.amount} needs a manager.`)
      },
    },
  )
  return defineAgent({
    model: createScriptedModel(turns),
    tools: [defineCodeTool({ tools: [lookup, refund], recordings, ...(keys ? { decisionKeys: keys } : {}) })],
    ...(keys ? { decisionKeys: keys } : {}),
  })
}

/** Suspends a code call at the refund, returns the JSON a client would hold. */
async function suspend(keys: string[] | undefined) {
  const effects: string[] = []
  const recordings = new MemoryRecordingStore()
  const first = await build(
    effects,
    recordings,
    [{ toolCalls: [{ name: 'run_code', input: { code } }] }],
    keys,
  ).run({
    prompt: 'Refund A-17 in full.',
    defer: true,
  })
  if (first.reason !== 'suspended') throw new Error(`expected a suspension, got ${first.reason}`)
  return {
    effects,
    pending: first.pending[0]!,
    saved: JSON.parse(JSON.stringify({ state: first.state, recordings })) as {
      state: unknown
      recordings: Record<string, SandboxRecording>
    },
  }
}

/** The client's edit: the waiting refund becomes another order and amount. */
function tamper(recordings: Record<string, SandboxRecording>): Record<string, SandboxRecording> {
  const text = JSON.stringify(recordings)
  expect(text).toContain('"orderId":"A-17","amount":250')
  return JSON.parse(text.replaceAll('"orderId":"A-17","amount":250', '"orderId":"B-99","amount":25000'))
}

async function resume(
  effects: string[],
  saved: { state: unknown; recordings: Record<string, SandboxRecording> },
  pending: { toolCallId: string; signature?: string | undefined },
  keys: string[] | undefined,
) {
  return build(effects, new MemoryRecordingStore(saved.recordings), [{ text: 'Done.' }], keys).run({
    resume: saved.state as never,
    outcomes: {
      [pending.toolCallId]: {
        type: 'approve',
        toolCallId: pending.toolCallId,
        by: 'person',
        ...(pending.signature === undefined ? {} : { signature: pending.signature }),
      },
    },
  })
}

describe('signed code-call approvals cover the recording', () => {
  it('runs the approved refund when nothing was changed', async () => {
    const { effects, pending, saved } = await suspend([KEY])
    expect(pending.signature).toMatch(/^v1\./)
    const result = await resume(effects, saved, pending, [KEY])
    expect(result.reason).toBe('final')
    expect(effects).toEqual(['lookup A-17', 'refund A-17 250'])
  })

  it('refuses a recording whose waiting host call was edited (refund A-17 250 -> B-99 25000), and runs nothing', async () => {
    const { effects, pending, saved } = await suspend([KEY])
    const result = await resume(effects, { ...saved, recordings: tamper(saved.recordings) }, pending, [KEY])
    expect(effects).toEqual(['lookup A-17'])
    // The code call failed with the code tool's UnauthorizedError, which the model reads as the tool's error.
    const answer = result.messages.find((message) => message.role === 'tool')
    expect(answer).toMatchObject({ isError: true })
    expect(JSON.stringify(answer)).toContain('is not the one this code tool saved')
  })

  it('refuses a recording whose signature was removed or moved to another code call', async () => {
    const { effects, pending, saved } = await suspend([KEY])
    const [key, recording] = Object.entries(saved.recordings)[0]!
    const { signature: _drop, ...unsigned } = recording
    await resume(effects, { ...saved, recordings: { [key]: unsigned as SandboxRecording } }, pending, [KEY])
    expect(effects).toEqual(['lookup A-17'])
  })

  it('without keys the risk is the documented one: the store decides what runs', async () => {
    const { effects, pending, saved } = await suspend(undefined)
    await resume(effects, { ...saved, recordings: tamper(saved.recordings) }, pending, undefined)
    expect(effects).toEqual(['lookup A-17', 'refund B-99 25000'])
  })
})

describe("a suspended state's history is covered where keys are configured", () => {
  it('refuses a state whose earlier tool result was rewritten, or whose signature was removed', async () => {
    const { effects, pending, saved } = await suspend([KEY])
    const state = saved.state as { signature?: string; messages: unknown[]; turns: number }
    expect(state.signature).toMatch(/^v1\./)
    // An earlier message rewritten: the model would read it as if it had been said.
    const edited = JSON.parse(JSON.stringify(state).replace('Refund A-17 in full.', 'Refund everything.'))
    await expect(resume(effects, { ...saved, state: edited }, pending, [KEY])).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    // The counters behind the caps are covered too.
    await expect(
      resume(effects, { ...saved, state: { ...state, turns: 0 } }, pending, [KEY]),
    ).rejects.toBeInstanceOf(UnauthorizedError)
    const { signature: _drop, ...unsigned } = state
    await expect(resume(effects, { ...saved, state: unsigned }, pending, [KEY])).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    expect(effects).toEqual(['lookup A-17'])
    // The state as it was still resumes.
    expect((await resume(effects, saved, pending, [KEY])).reason).toBe('final')
  })
})
