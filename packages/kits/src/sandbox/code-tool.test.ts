/**
 * The code tool in agent runs: one script calls several tools; approvals inside a script suspend the whole
 * code call the way the loop suspends any call, in this process or from JSON in another one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, defineAgentTool, type ScriptedTurn } from '@agent-core/kits/loop'
import { defineToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import { type CodeToolOutput, defineCodeTool, MemoryRecordingStore } from './index.js'
import { codeAgent, codeTurn } from './testing/code-agent.js'
import { shop } from './testing/fixtures.js'

const childScript = fileURLToPath(new URL('./testing/code-resume-child.ts', import.meta.url))

const TWO_TOOLS = `const order = await lookup_order({ orderId: 'B-2' })
const receipt = await refund({ orderId: order.orderId, amount: order.total / 2 })
console.log(receipt)
return { refunded: order.total / 2 }`

const BIG_REFUND = `const order = await lookup_order({ orderId: 'A-17' })
const receipt = await refund({ orderId: order.orderId, amount: order.total })
return receipt`

const TWO_BIG_REFUNDS = `const a = await refund({ orderId: 'A-17', amount: 150 })
const b = await lookup_order({ orderId: 'B-2' })
const c = await refund({ orderId: 'A-18', amount: 200 })
return [a, b.total, c]`

const content = (messages: readonly { role: string; content?: unknown }[]) =>
  messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(String(message.content)))

describe('the code tool in an agent run', () => {
  it('runs a script that calls two tools; the model reads its value and its console output', async () => {
    const { agent, runs, model } = codeAgent({
      turns: [codeTurn(TWO_TOOLS), { text: 'Refunded 20 on B-2.' }],
    })
    const result = await agent.run({ prompt: 'Refund half of B-2.' })
    expect(result.reason === 'final' && result.answer).toBe('Refunded 20 on B-2.')
    expect(content(result.messages)).toEqual([
      { ok: true, value: { refunded: 20 }, logs: [{ level: 'log', text: 'refunded 20 on B-2' }] },
    ])
    expect(runs).toEqual(['lookup B-2', expect.stringMatching(/^refund B-2 20 inv_/)])
    // The model was offered the tool with the declarations of the functions its scripts call.
    const offered = model.calls[0]!.tools?.[0]
    expect(offered?.name).toBe('run_code')
    expect(offered?.description).toContain('declare function lookup_order(input: {')
    expect(offered?.description).toContain('}): Promise<{\n  orderId: string;\n  total: number;\n}>;')
  })

  it('starts every call from a fresh global scope: nothing a script leaves behind reaches the next call', async () => {
    const { agent } = codeAgent({
      turns: [
        {
          toolCalls: [
            { name: 'run_code', input: { code: 'const cache = 42\nreturn [cache, Math.random()]' } },
            { name: 'run_code', input: { code: 'globalThis.kept = 1' } },
          ],
        },
        codeTurn('return [typeof cache, typeof globalThis.kept, Math.random()]'),
        { text: 'done' },
      ],
    })
    const result = await agent.run({ prompt: 'Try to keep state.' })
    const [first, second, third] = content(result.messages) as CodeToolOutput[]
    expect(first).toMatchObject({ ok: true, value: [42, expect.any(Number)] })
    expect(second).toMatchObject({ ok: false, error: { kind: 'runtime', name: 'TypeError' } })
    expect(third).toMatchObject({ ok: true, value: ['undefined', 'undefined', expect.any(Number)] })
    // Each call has its own seed: the same code in two calls need not draw the same numbers.
    expect(first?.ok && third?.ok && (first.value as number[])[1] !== (third.value as unknown[])[2]).toBe(
      true,
    )
  })

  it('gives a failing script back to the model as an error result it can read', async () => {
    const { agent } = codeAgent({
      turns: [
        codeTurn("const total: number = 1\nawait lookup_order({ id: 'A-17' })"),
        { text: 'I will fix it.' },
      ],
    })
    const result = await agent.run({ prompt: 'Go.' })
    const tool = result.messages.find((message) => message.role === 'tool')
    expect(tool).toMatchObject({ isError: true })
    expect(content(result.messages)[0]).toEqual({
      ok: false,
      error: {
        kind: 'host',
        name: 'InvalidInputError',
        code: 'invalid-input',
        toolId: 'lookup_order',
        line: 2,
        message: expect.stringContaining("must have required property 'orderId'"),
      },
      logs: [],
    })
  })

  it('asks a resolver when a host call needs a person, and nothing runs twice', async () => {
    const { agent, runs } = codeAgent({ turns: [codeTurn(TWO_BIG_REFUNDS), { text: 'Both refunded.' }] })
    const asked: string[] = []
    const result = await agent.run({
      prompt: 'Refund A-17 and A-18.',
      resolveApproval: (call) => {
        asked.push(call.reason)
        return { type: 'approve' }
      },
    })
    expect(result.reason === 'final' && result.answer).toBe('Both refunded.')
    expect(asked).toEqual([
      `The script's call to refund {"orderId":"A-17","amount":150}: A refund of 150 needs a manager.`,
      `The script's call to refund {"orderId":"A-18","amount":200}: A refund of 200 needs a manager.`,
    ])
    expect(runs.map((run) => run.split(' ').slice(0, 3).join(' '))).toEqual([
      'refund A-17 150',
      'lookup B-2',
      'refund A-18 200',
    ])
    expect(content(result.messages)[0]).toMatchObject({
      ok: true,
      value: ['refunded 150 on A-17', 40, 'refunded 200 on A-18'],
    })
  })

  it('settles the code call as refused when the person refuses; the host call never runs', async () => {
    const { agent, runs } = codeAgent({ turns: [codeTurn(BIG_REFUND), { text: 'Not refunded.' }] })
    const first = await agent.run({ prompt: 'Refund A-17.', defer: true })
    expect(first.reason).toBe('suspended')
    const id = first.state.pending[0]!.toolCallId
    const second = await agent.run({
      resume: first.state,
      outcomes: { [id]: { type: 'reject', toolCallId: id, by: 'person', reason: 'Too much.' } },
    })
    expect(second.reason).toBe('final')
    const message = second.messages.find((m) => m.role === 'tool')
    expect(message).toMatchObject({ isError: true, content: expect.stringContaining('Too much.') })
    expect(runs).toEqual(['lookup A-17'])
  })

  it('does not let an approval by policy answer a host call that asked for a person', async () => {
    const { agent, runs } = codeAgent({ turns: [codeTurn(BIG_REFUND), { text: 'ok' }] })
    const result = await agent.run({
      prompt: 'Refund A-17.',
      resolveApproval: () => ({ type: 'approve', by: 'policy' }),
    })
    expect(content(result.messages)[0]).toMatchObject({
      ok: false,
      error: {
        kind: 'host',
        code: 'tool-rejected',
        toolId: 'refund',
        message: expect.stringContaining('by policy cannot'),
      },
    })
    expect(runs).toEqual(['lookup A-17'])
  })

  it('refuses the waiting host call when the code tool runs without its own hooks', async () => {
    const { tools, runs } = shop()
    const runCode = defineCodeTool({ tools: [...tools] })
    const stripped = defineToolLifecycle(runCode, {})
    const agent = defineAgent({
      model: createScriptedModel([codeTurn(BIG_REFUND), { text: 'ok' }]),
      tools: [stripped],
    })
    const result = await agent.run({ prompt: 'Refund A-17.', resolveApproval: () => ({ type: 'approve' }) })
    expect(content(result.messages)[0]).toMatchObject({
      ok: false,
      error: { code: 'tool-rejected', message: expect.stringContaining('resume hook was not registered') },
    })
    expect(runs).toEqual(['lookup A-17'])
  })

  it('keeps its own hooks when an agent adds an approval policy to it', async () => {
    const { tools, runs } = shop()
    const runCode = defineAgentTool(defineCodeTool({ tools: [...tools] }), { approval: 'ask' })
    const agent = defineAgent({
      model: createScriptedModel([codeTurn(BIG_REFUND), { text: 'ok' }]),
      tools: [runCode],
    })
    const asked: string[] = []
    const result = await agent.run({
      prompt: 'Refund A-17.',
      resolveApproval: (call) => {
        asked.push(call.reason)
        return { type: 'approve' }
      },
    })
    expect(asked).toEqual([
      "Calls to run_code need a person's approval.",
      `The script's call to refund {"orderId":"A-17","amount":250}: A refund of 250 needs a manager.`,
    ])
    expect(content(result.messages)[0]).toMatchObject({ ok: true, value: 'refunded 250 on A-17' })
    expect(runs).toHaveLength(2)
  })

  it('checks its options', () => {
    expect(() => defineCodeTool(undefined as never)).toThrow(
      expect.objectContaining({ code: 'invalid-definition' }),
    )
    expect(() => defineCodeTool({ tools: [], timeout: 1 } as never)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'options.timeout' }) }),
    )
    expect(() => defineCodeTool({ tools: [], recordings: {} as never })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'options.recordings' }) }),
    )
    expect(() => defineCodeTool({ tools: ToolLifecycleRegistry.create([]), durable: 1 } as never)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'options.durable' }) }),
    )
    expect(() => defineCodeTool({ tools: [], id: 'run code' })).toThrow(
      expect.objectContaining({ code: 'invalid-definition' }),
    )
    const custom = defineCodeTool({
      tools: [defineModelTool({ id: 'noop', description: 'noop', inputSchema: {}, execute: () => null })],
      id: 'script',
      description: 'Runs scripts.',
      language: 'javascript',
    })
    expect([custom.id, custom.description, custom.tool]).toEqual(['script', 'Runs scripts.', custom])
    expect(custom.declarations).toContain('declare function noop(input?: unknown): Promise<unknown>;')
  })
})

interface ChildAnswer {
  readonly reason: string
  readonly state: { pending: { toolCallId: string; reason: string }[] }
  readonly recordings: Record<string, unknown>
  readonly pending: { toolCallId: string; reason: string }[]
  readonly tools: { content: string }[]
  readonly answer?: string
}

function resumeInChild(input: Record<string, unknown>): Promise<ChildAnswer> {
  return runChildJson<ChildAnswer>(childScript, input)
}

describe('suspend in one process, resume from JSON in others', () => {
  let dir: string
  let effects: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-resume-'))
    effects = join(dir, 'effects.log')
    writeFileSync(effects, '')
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  const lines = () => readFileSync(effects, 'utf8').split('\n').filter(Boolean)

  it('waits twice, is approved twice in two other processes, and runs each host call once', async () => {
    const turns: ScriptedTurn[] = [codeTurn(TWO_BIG_REFUNDS), { text: 'Both refunded.' }]
    const { agent, recordings } = codeAgent({ turns, effects })
    const first = await agent.run({ prompt: 'Refund A-17 and A-18.', defer: true })
    expect(first.reason === 'suspended' && first.pending.map((call) => call.reason)).toEqual([
      `The script's call to refund {"orderId":"A-17","amount":150}: A refund of 150 needs a manager.`,
    ])
    expect(lines()).toEqual([])
    const id = first.state.pending[0]!.toolCallId
    const approve = { [id]: { type: 'approve', toolCallId: id, by: 'person' } }
    // Only JSON crosses over: the run's state and the code tool's recordings.
    const saved = JSON.parse(JSON.stringify({ state: first.state, recordings }))
    const second = await resumeInChild({ ...saved, outcomes: approve, turns: turns.slice(1), effects })
    expect(second.reason).toBe('suspended')
    expect(second.pending.map((call) => call.reason)).toEqual([
      `The script's call to refund {"orderId":"A-18","amount":200}: A refund of 200 needs a manager.`,
    ])
    expect(lines().map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'refund A-17 150',
      'lookup B-2',
    ])
    const third = await resumeInChild({
      state: second.state,
      recordings: second.recordings,
      outcomes: approve,
      turns: turns.slice(1),
      effects,
    })
    expect(third.reason).toBe('final')
    expect(third.answer).toBe('Both refunded.')
    expect(lines().map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'refund A-17 150',
      'lookup B-2',
      'refund A-18 200',
    ])
    expect(JSON.parse(third.tools[0]!.content)).toEqual({
      ok: true,
      value: ['refunded 150 on A-17', 40, 'refunded 200 on A-18'],
      logs: [],
    })
    // The recording kept each refund's invocation id from the moment it first waited.
    const recording = Object.values(third.recordings)[0] as {
      calls: { toolId: string; invocationId: string }[]
    }
    const refundIds = recording.calls
      .filter((call) => call.toolId === 'refund')
      .map((call) => call.invocationId)
    expect(
      lines()
        .filter((line) => line.startsWith('refund'))
        .map((line) => line.split(' ')[3]),
    ).toEqual(refundIds)
  }, 60_000)

  it('restores recordings from JSON only as they were written', () => {
    expect(() => new MemoryRecordingStore({ x: { version: 2 } as never })).toThrow(
      expect.objectContaining({
        code: 'invalid-input',
        details: expect.objectContaining({ field: 'entries.x.version' }),
      }),
    )
  })
})
