/** Kept globals: a script's plain-JSON `globals` across executions and across the code calls of one agent run, resumed in another process. */
import { fileURLToPath } from 'node:url'
import {
  ConflictError,
  createOperationContext,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidStateError,
} from '@agent-core/core'
import { defineModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
import { type AgentRunState, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { type JsonValue, toolState } from '@agent-core/kits/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import {
  assertSandboxRecording,
  defineCodeTool,
  executeSandbox,
  replaySandbox,
  type SandboxRecording,
} from './index.js'
import { codeAgent, codeTurn } from './testing/code-agent.js'
import { shop } from './testing/fixtures.js'

const childScript = fileURLToPath(new URL('./testing/code-resume-child.ts', import.meta.url))
const js = { language: 'javascript' } as const

describe('kept globals in executeSandbox', () => {
  it('gives the script the globals and returns what it left', async () => {
    const first = await executeSandbox('globals.count = (globals.count ?? 0) + 1; globals.seen = ["a"]', [], {
      ...js,
      globals: { count: 41, gone: 'x' },
    })
    expect(first.status).toBe('completed')
    expect(first.globals).toEqual({ count: 42, gone: 'x', seen: ['a'] })
    const second = await executeSandbox(
      'delete globals.gone; globals.seen.push("b"); return globals.count',
      [],
      {
        ...js,
        globals: first.globals,
      },
    )
    expect(second.status === 'completed' && second.value).toBe(42)
    expect(second.globals).toEqual({ count: 42, seen: ['a', 'b'] })
    expect(second.logs).toEqual([])
  })

  it('drops a key that is not plain JSON and says so in the logs', async () => {
    const result = await executeSandbox(
      'globals.ok = 1; globals.fn = () => 1; globals.map = new Map(); globals.when = new Date(0); globals.loop = {}; globals.loop.self = globals.loop; globals.nan = NaN; globals.deep = { list: [1, undefined] }',
      [],
      { ...js, globals: {} },
    )
    expect(result.globals).toEqual({ ok: 1 })
    const texts = result.logs.map((log) => `${log.level} ${log.text}`)
    for (const problem of [
      'globals.fn is a function',
      'globals.map is a Map',
      'globals.when is a Date',
      'globals.loop.self refers back to one of its parents (a cycle)',
      'globals.nan is NaN',
      'globals.deep.list[1] is undefined',
    ]) {
      expect(texts).toContainEqual(expect.stringContaining(`warn [globals] not kept: ${problem}`))
    }
  })

  it('keeps what a failing script left, and nothing of a script a limit stopped', async () => {
    const thrown = await executeSandbox('globals.x = 1; throw new Error("no")', [], { ...js, globals: {} })
    expect(thrown.status).toBe('failed')
    expect(thrown.globals).toEqual({ x: 1 })
    const stopped = await executeSandbox('globals.x = 2; for (;;) {}', [], {
      ...js,
      globals: { x: 1 },
      limits: { cpuTimeMs: 50 },
    })
    expect(stopped.status === 'failed' && stopped.error.limit).toBe('cpuTime')
    expect(stopped.globals).toEqual({ x: 1 })
    expect(stopped.logs.at(-1)?.text).toMatch(/^\[globals\] not kept: the code call failed before/)
  })

  it('has no globals object unless asked, and refuses to replace it', async () => {
    const none = await executeSandbox('return typeof globals', [], js)
    expect(none.status === 'completed' && none.value).toBe('undefined')
    expect('globals' in none).toBe(false)
    const replaced = await executeSandbox('globals = {}', [], { ...js, globals: { a: 1 } })
    expect(replaced.status === 'failed' && replaced.error.message).toMatch(/read-only/)
    expect(replaced.globals).toEqual({ a: 1 })
  })

  it('refuses globals that are not a plain object of JSON, and a tool named globals', async () => {
    for (const globals of [[], 'x', null, new Map(), { a: Number.NaN }, { a: () => 1 }, { a: new Date() }]) {
      await expect(executeSandbox('return 1', [], { ...js, globals: globals as never })).rejects.toThrow(
        InvalidInputError,
      )
    }
    const named = { ...shop().lookupOrder, id: 'globals' }
    await expect(executeSandbox('return 1', [named], { ...js, globals: {} })).rejects.toThrow(
      /tool named "globals"/,
    )
    expect(() => defineCodeTool({ tools: [named], keepGlobals: true })).toThrow(InvalidDefinitionError)
  })

  it('keeps the starting globals in the recording: a replay starts from them, other globals are refused', async () => {
    const code = 'globals.n += 1\nreturn globals.n * 10'
    const first = await executeSandbox(code, [], { ...js, globals: { n: 4 } })
    expect(first.recording.globals).toEqual({ n: 4 })
    const again = await replaySandbox(first.recording, [], js)
    expect(again.status === 'completed' && again.value).toBe(50)
    expect(again.globals).toEqual({ n: 5 })
    await expect(
      executeSandbox(code, [], { ...js, recording: first.recording, globals: { n: 9 } }),
    ).rejects.toThrow(ConflictError)
    const plain = await executeSandbox('return 1', [], js)
    await expect(
      executeSandbox('return 1', [], { ...js, recording: plain.recording, globals: {} }),
    ).rejects.toThrow(/made without globals/)
    expect(() => assertSandboxRecording({ ...first.recording, globals: { d: new Date() } })).toThrow(
      InvalidInputError,
    )
  })

  it('ends with the globals a reference model predicts (property)', async () => {
    const key = fc.constantFrom('a', 'b', 'c')
    const change = fc.oneof(
      fc.record({ set: key, value: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({ remove: key }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 3 }), async (calls) => {
        let globals: Readonly<Record<string, JsonValue>> = {}
        const model = new Map<string, unknown>()
        for (const changes of calls) {
          const code = changes
            .map((item) =>
              'set' in item
                ? `globals[${JSON.stringify(item.set)}] = JSON.parse(${JSON.stringify(JSON.stringify(item.value))})`
                : `delete globals[${JSON.stringify(item.remove)}]`,
            )
            .join('\n')
          for (const item of changes) {
            if ('set' in item) model.set(item.set, JSON.parse(JSON.stringify(item.value)))
            else model.delete(item.remove)
          }
          const result = await executeSandbox(code, [], { ...js, globals })
          expect(result.status).toBe('completed')
          globals = result.globals!
        }
        expect(globals).toEqual(Object.fromEntries(model))
      }),
      { numRuns: 25 },
    )
  })
})

interface ChildAnswer {
  readonly reason: string
  readonly state: AgentRunState
  readonly tools: { content: string }[]
}

function resumeInChild(input: Record<string, unknown>): Promise<ChildAnswer> {
  return runChildJson<ChildAnswer>(childScript, input)
}

describe('kept globals in a code tool', () => {
  it('carries globals across the code calls of one run, and none without keepGlobals', async () => {
    const turns = [
      codeTurn(
        'globals.orders = [(await lookup_order({ orderId: "A-17" })).total]\nreturn globals.orders.length',
      ),
      codeTurn('globals.orders.push(1)\nreturn globals.orders'),
      { text: 'Done.' },
    ]
    const kept = await codeAgent({ turns, keepGlobals: true }).agent.run({ prompt: 'Sum the orders.' })
    const outputs = kept.messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
    expect(outputs).toEqual(['{"ok":true,"value":1,"logs":[]}', '{"ok":true,"value":[250,1],"logs":[]}'])
    expect(kept.state.toolState?.run_code?.kept).toEqual({ globals: { orders: [250, 1] } })
    const fresh = await codeAgent({ turns }).agent.run({ prompt: 'Sum the orders.' })
    const second = fresh.messages.filter((message) => message.role === 'tool')[1]!.content
    expect(second).toMatch(/"ok":false.*'globals' is not defined/)
    expect(fresh.state.toolState).toBeUndefined()
  })

  it('resumes a code call that waited for a person in another process, from the globals it started with', async () => {
    const script =
      'globals.tries = (globals.tries ?? 0) + 1\nawait refund({ orderId: "A-17", amount: 250 })\nreturn globals'
    const { agent, recordings } = codeAgent({
      turns: [codeTurn('globals.tries = 0\nglobals.note = "start"'), codeTurn(script)],
      keepGlobals: true,
    })
    const suspended = await agent.run({ prompt: 'Refund A-17.', defer: true })
    expect(suspended.reason).toBe('suspended')
    if (suspended.reason !== 'suspended') return
    const pending = suspended.pending[0]!
    expect(suspended.state.toolState?.run_code?.kept).toEqual({ globals: { tries: 0, note: 'start' } })
    const saved = JSON.parse(JSON.stringify(recordings)) as Record<string, SandboxRecording>
    const answer = await resumeInChild({
      keepGlobals: true,
      turns: [codeTurn('return globals'), { text: 'Refunded.' }],
      state: JSON.parse(JSON.stringify(suspended.state)),
      recordings: saved,
      outcomes: { [pending.toolCallId]: { type: 'approve', toolCallId: pending.toolCallId, by: 'person' } },
    })
    expect(answer.reason).toBe('final')
    // The script ran again from { tries: 0 }: one try counted, not two.
    expect(answer.tools.map((tool) => JSON.parse(tool.content).value).slice(-2)).toEqual([
      { tries: 1, note: 'start' },
      { tries: 1, note: 'start' },
    ])
    expect(answer.state.toolState?.run_code).toEqual(
      expect.objectContaining({ calls: 3, kept: { globals: { tries: 1, note: 'start' } } }),
    )
  })

  it("does not pass the code call's state on to the tools its script calls", async () => {
    const peek = defineModelTool({
      id: 'peek',
      description: 'Reads a tool state it has none of',
      inputSchema: { type: 'object' },
      execute: (_input, context) => toolState(context).calls,
    })
    const runCode = defineCodeTool({ tools: [peek], keepGlobals: true, language: 'javascript' })
    const model = createScriptedModel([
      codeTurn('try { return await peek({}) } catch (error) { return error.message }'),
      { text: 'Done.' },
    ])
    const result = await defineAgent({ model, tools: [runCode] }).run({ prompt: 'Peek.' })
    const output = JSON.parse(String(result.messages.find((message) => message.role === 'tool')?.content))
    expect(output.value).toMatch(/found no tool state for this call/)
  })

  it('refuses keepGlobals that is not a boolean, and a call outside an agent run', async () => {
    const { tools } = shop()
    expect(() => defineCodeTool({ tools: [...tools], keepGlobals: 'yes' as never })).toThrow(
      InvalidDefinitionError,
    )
    const runCode = defineCodeTool({ tools: [...tools], keepGlobals: true })
    const context = { ...createOperationContext(), invocationId: 'inv_1', progress: () => undefined }
    await expect(
      runCode.execute({ code: 'return 1' }, context as unknown as ToolExecutionContext<unknown>),
    ).rejects.toThrow(InvalidStateError)
  })
})
