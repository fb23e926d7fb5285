/** Custom inputs: App data kept as data in the history and the state, converted by transformInput for every model request, resumed in another process. */
import { fileURLToPath } from 'node:url'
import {
  type ChatMessage,
  InvalidInputError,
  InvalidOutputError,
  type ModelRequest,
  RejectedThenableError,
} from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import {
  type AgentRunState,
  assertAgentRunState,
  type CustomInput,
  createScriptedModel,
  customInput,
  defineAgent,
  isCustomInput,
  runHistory,
  type ScriptedTurn,
} from './index.js'
import { readHistory } from './internal/custom-inputs.js'
import { customInputAgent, seen } from './internal/testing/custom-input-agent.js'
import { handoffGraph } from './internal/testing/handoff-agents.js'

const childScript = fileURLToPath(new URL('./internal/testing/custom-input-child.ts', import.meta.url))
function runChild(
  input: unknown,
): Promise<{ reason?: string; text?: string; state?: AgentRunState; thrown?: string; message?: string }> {
  return runChildJson(childScript, input)
}

const form = customInput('refund-form', { orderId: 'A-17', amount: 40 })
const hello: ChatMessage = { role: 'user', content: 'Hello.' }

describe('custom inputs', () => {
  it('converts each custom input in its place for every model request and keeps it as data', async () => {
    const requests: string[][] = []
    const record = (turn: ScriptedTurn & object) => (request: ModelRequest) => {
      requests.push(seen(request))
      return turn
    }
    const { agent } = customInputAgent([
      record({ toolCalls: [{ name: 'unknown_tool', input: {} }] }),
      record({ text: 'Done.' }),
    ])
    const result = await agent.run({ messages: [hello, form], prompt: 'Refund it.' })
    expect(result.reason).toBe('final')
    expect(requests[0]).toEqual([
      'user: Hello.',
      'user: [refund-form at 1, turn 1] {"orderId":"A-17","amount":40}',
      'user: Refund it.',
    ])
    expect(requests[1]?.slice(0, 3)).toEqual([
      'user: Hello.',
      'user: [refund-form at 1, turn 2] {"orderId":"A-17","amount":40}',
      'user: Refund it.',
    ])
    // The history and the state hold chat messages; the form stays data beside them.
    expect(result.messages.some((message) => String(message.content).includes('refund-form'))).toBe(false)
    expect(result.state.customInputs).toEqual([{ at: 1, input: form }])
    expect(runHistory(result.state).slice(0, 3)).toEqual([
      hello,
      form,
      { role: 'user', content: 'Refund it.' },
    ])
    assertAgentRunState(JSON.parse(JSON.stringify(result.state)))
  })

  it("uses the run's hook over the agent's, and adds no field to states without custom inputs", async () => {
    const { agent } = customInputAgent([(request) => ({ text: seen(request).join('\n') })])
    const result = await agent.run({
      messages: [form, hello],
      transformInput: (input) => [{ role: 'system', content: `form ${input.kind}` }],
    })
    expect(result.text).toBe('system: form refund-form\nuser: Hello.')
    const plain = await customInputAgent([{ text: 'Hi.' }]).agent.run({ prompt: 'Hi' })
    expect('customInputs' in plain.state).toBe(false)
  })

  it('converts them again when a run is resumed in another process, and refuses a resume without a hook', async () => {
    const { agent } = customInputAgent([{ toolCalls: [{ id: 'c1', name: 'confirm', input: {} }] }])
    const suspended = await agent.run({ messages: [hello, form], defer: true })
    expect(suspended.reason).toBe('suspended')
    const state = JSON.parse(JSON.stringify(suspended.state)) as AgentRunState
    expect(state.customInputs).toEqual([{ at: 1, input: form }])
    const outcomes = { c1: { type: 'approve', toolCallId: 'c1', by: 'person' } }
    const answer = await runChild({ state, outcomes })
    expect(answer.reason).toBe('final')
    expect(answer.text?.split('\n')).toEqual([
      'user: Hello.',
      'user: [refund-form at 1, turn 2] {"orderId":"A-17","amount":40}',
      'assistant: ',
      'tool: confirmed',
    ])
    expect(answer.state?.customInputs).toEqual([{ at: 1, input: form }])
    const refused = await runChild({ state, outcomes, hook: false })
    expect(refused.thrown).toBe('invalid-input')
    expect(refused.message).toMatch(
      /request\.resume\.customInputs holds custom input "refund-form".*transformInput/,
    )
  })

  it('shows input guardrails the custom inputs converted', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ text: 'x' }]),
      transformInput: (input) => ({ role: 'user', content: JSON.stringify(input.data) }),
      inputGuardrails: [
        {
          name: 'no-a17',
          mode: 'before',
          check: (input) => input.messages.some((m) => String(m.content).includes('A-17')),
        },
      ],
    })
    const result = await agent.run({ messages: [hello, form] })
    expect(result.reason).toBe('guardrail')
  })

  it('carries custom inputs through a handoff', async () => {
    let billingSaw: string[] = []
    const { triage } = handoffGraph({
      triage: [{ toolCalls: [{ name: 'transfer_to_billing', input: {} }] }],
      billing: [
        (request) => {
          billingSaw = seen(request)
          return { text: 'Refunded.' }
        },
      ],
    })
    const result = await triage.run({
      messages: [hello, form],
      transformInput: (input) => ({ role: 'user', content: `form ${JSON.stringify(input.data)}` }),
    })
    expect(result.reason).toBe('final')
    expect(billingSaw).toContain('user: form {"orderId":"A-17","amount":40}')
    expect(result.state.customInputs?.map((placed) => placed.input)).toEqual([form])
  })

  it('refuses malformed custom inputs, a misplaced one and one no hook converts', async () => {
    const { agent } = customInputAgent([{ text: 'x' }])
    const bad: unknown[] = [
      { type: 'custom', data: {} },
      { type: 'custom', kind: '', data: {} },
      { type: 'custom', kind: 'form' },
      { type: 'custom', kind: 'form', data: { when: new Date() } },
      { type: 'custom', kind: 'form', data: 1, extra: true },
      { type: 'other', kind: 'form', data: 1 },
    ]
    for (const item of bad) {
      await expect(agent.run({ messages: [item as CustomInput] })).rejects.toThrow(InvalidInputError)
    }
    const calls: ChatMessage[] = [
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'confirm', arguments: '{}' }] },
      form as never,
      { role: 'tool', toolCallId: 'c1', content: 'confirmed' },
    ]
    await expect(agent.run({ messages: calls })).rejects.toThrow(/sits between tool calls and their results/)
    const noHook = customInputAgent([{ text: 'x' }], { hook: false }).agent
    await expect(noHook.run({ messages: [form] })).rejects.toThrow(
      /request\.messages holds custom input "refund-form", but neither the agent nor the run has transformInput/,
    )
    await expect(
      agent.run({
        messages: [form],
        session: { store: { read: async () => ({}), append: async () => undefined } as never, id: 'chat-1' },
      }),
    ).rejects.toThrow(/a session cannot keep/)
  })

  it('ends the run with a typed error when the hook returns a thenable, no message or a tool message', async () => {
    const cases: [unknown, unknown][] = [
      [() => Promise.resolve({ role: 'user', content: 'late' }), RejectedThenableError],
      [() => 'text', InvalidOutputError],
      [() => [{ role: 'user' }], InvalidOutputError],
      [() => ({ role: 'tool', toolCallId: 'c1', content: 'x' }), InvalidOutputError],
      [
        () => ({
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c', name: 'confirm', arguments: '{}' }],
        }),
        InvalidOutputError,
      ],
    ]
    for (const [hook, ErrorClass] of cases) {
      const { agent } = customInputAgent([{ text: 'x' }])
      const result = await agent.run({ messages: [form], transformInput: hook as never })
      expect(result.reason).toBe('error')
      if (result.reason === 'error') expect(result.error).toBeInstanceOf(ErrorClass as never)
    }
  })

  it('refuses a bad kind or non-JSON data in customInput, and a value that is no run state in runHistory', () => {
    expect(() => customInput(1 as unknown as string, {})).toThrow(InvalidInputError)
    expect(() => customInput('form', { at: new Date() } as unknown as JsonValue)).toThrow(/plain JSON/)
    expect(customInput('form', { name: 'Ada' })).toEqual({
      type: 'custom',
      kind: 'form',
      data: { name: 'Ada' },
    })
    for (const bad of [null, undefined, 3, {}, { messages: 'no' }]) {
      expect(() => runHistory(bad as never)).toThrow(InvalidInputError)
    }
  })

  it('refuses saved custom inputs that do not fit the messages', async () => {
    const { agent } = customInputAgent([{ text: 'Done.' }])
    const result = await agent.run({ messages: [hello, form] })
    const saved = JSON.parse(JSON.stringify(result.state)) as AgentRunState
    for (const customInputs of [
      [],
      [{ at: 9, input: form }],
      [
        { at: 1, input: form },
        { at: 0, input: form },
      ],
      [{ at: 0, input: { kind: 'x' } }],
      [{ at: 0.5, input: form }],
    ]) {
      expect(() => assertAgentRunState({ ...saved, customInputs })).toThrow(InvalidInputError)
    }
  })

  it('puts the custom inputs back where they were given (property)', () => {
    const message = fc.oneof(
      fc.record({ role: fc.constant('user' as const), content: fc.string() }),
      fc.record({ role: fc.constant('assistant' as const), content: fc.string() }),
    )
    const input = fc.record({
      type: fc.constant('custom' as const),
      kind: fc.string({ minLength: 1 }),
      data: fc.jsonValue({ maxDepth: 2 }),
    })
    fc.assert(
      fc.property(fc.array(fc.oneof(message, input), { maxLength: 12 }), (items) => {
        const { messages, inputs } = readHistory(items, 'messages')
        expect(messages.every((item) => !isCustomInput(item))).toBe(true)
        expect(runHistory({ messages, customInputs: inputs })).toEqual(items)
      }),
    )
  })
})
