import { ConflictError, createOperationContext, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SANDBOX_LIMITS,
  executeSandbox,
  preloadSandbox,
  replaySandbox,
  type SandboxRecording,
  type SandboxResult,
} from './index.js'
import { engineStats } from './internal/engine.js'
import { shop } from './testing/fixtures.js'

const value = (result: SandboxResult) => (result.status === 'completed' ? result.value : result)
const failure = (result: SandboxResult) => {
  expect(result.status).toBe('failed')
  return result.status === 'failed' ? result.error : undefined
}

describe('running a script', () => {
  it('returns the JSON value of a TypeScript script that awaits its tools, with its console output', async () => {
    const { tools, runs } = shop()
    const result = await executeSandbox(
      `interface Order { orderId: string; total: number }
const ids: string[] = ['A-17', 'B-2']
const orders: Order[] = await Promise.all(ids.map((orderId) => lookup_order({ orderId })))
console.log('found', orders.length, { first: orders[0]!.orderId })
console.warn('careful')
return { sum: orders.reduce((total, order) => total + order.total, 0) }`,
      tools,
    )
    expect(value(result)).toEqual({ sum: 290 })
    expect(result.logs).toEqual([
      { level: 'log', text: 'found 2 {"first":"A-17"}' },
      { level: 'warn', text: 'careful' },
    ])
    expect(result.hostCalls).toBe(2)
    expect(runs).toEqual(['lookup A-17', 'lookup B-2'])
  })

  it('runs plain JavaScript as given, returns nothing as no value, and reaches every tool through `tools`', async () => {
    const dash = defineModelTool({
      id: 'my-tool',
      description: 'dashed',
      inputSchema: {},
      execute: () => 'dash',
    })
    const result = await executeSandbox(
      'const a = await tools["my-tool"](); console.log(a, typeof globalThis["my-tool"])',
      [dash],
      { language: 'javascript' },
    )
    expect(result).toMatchObject({ status: 'completed', logs: [{ level: 'log', text: 'dash undefined' }] })
    expect(result.status === 'completed' && 'value' in result).toBe(false)
  })

  it('delivers host results in call order, whatever order the tools answer in', async () => {
    const slowFirst = defineModelTool<{ ms: number; label: string }, string>({
      id: 'wait',
      description: 'Answers after ms',
      inputSchema: {
        type: 'object',
        required: ['ms', 'label'],
        properties: { ms: { type: 'number' }, label: { type: 'string' } },
      },
      execute: async ({ ms, label }) => {
        await new Promise((resolve) => setTimeout(resolve, ms))
        return label
      },
    })
    const code = `const seen: string[] = []
await Promise.all([
  wait({ ms: 40, label: 'slow' }).then((x) => seen.push(x)),
  wait({ ms: 1, label: 'fast' }).then((x) => seen.push(x)),
])
return seen`
    const result = await executeSandbox(code, [slowFirst])
    expect(value(result)).toEqual(['slow', 'fast'])
  })

  it('gives each tool its input as JSON, with an omitted input as {} and a cycle refused in the script', async () => {
    const seen: unknown[] = []
    const echo = defineModelTool({
      id: 'echo',
      description: 'echo',
      inputSchema: { type: 'object' },
      execute: (input: unknown) => {
        seen.push(input)
        return input
      },
    })
    const result = await executeSandbox(
      `const a = await echo()
const b = await echo({ d: new Date(0), skip: undefined })
const loop: Record<string, unknown> = {}
loop.self = loop
const c = await echo(loop).catch((e: Error) => e.name)
return [a, b, c]`,
      [echo],
      { now: 0 },
    )
    expect(value(result)).toEqual([{}, { d: '1970-01-01T00:00:00.000Z' }, 'TypeError'])
    expect(seen).toHaveLength(2)
  })
})

describe('preloading', () => {
  it('loads the engine and the type stripper ahead of the first run, and checks its options', async () => {
    await expect(preloadSandbox()).resolves.toBeUndefined()
    await expect(preloadSandbox({ language: 'javascript' })).resolves.toBeUndefined()
    expect(value(await executeSandbox('const n: number = 2\nreturn n * 21', []))).toBe(42)
    await expect(preloadSandbox({ language: 'python' as never })).rejects.toMatchObject({
      code: 'invalid-input',
      details: { field: 'options.language', received: 'the string "python"' },
    })
    await expect(preloadSandbox({ lang: 'javascript' } as never)).rejects.toMatchObject({
      code: 'invalid-input',
      details: { field: 'options.lang' },
    })
  })
})

describe('errors the model can read', () => {
  it('reports a syntax error with its line and column, in TypeScript and in JavaScript', async () => {
    expect(failure(await executeSandbox('const a = 1\nlet x: = 3', []))).toEqual({
      kind: 'syntax',
      name: 'SyntaxError',
      message: 'Unexpected token',
      line: 2,
      column: 8,
    })
    expect(failure(await executeSandbox('let b = (', [], { language: 'javascript' }))).toMatchObject({
      kind: 'syntax',
      name: 'SyntaxError',
      line: 1,
    })
    expect(failure(await executeSandbox('import fs from "node:fs"\nreturn fs', []))).toMatchObject({
      kind: 'syntax',
      line: 1,
    })
  })

  it('reports a thrown error with the line it was thrown on', async () => {
    expect(failure(await executeSandbox('const a = 1\n\nthrow new RangeError("bad " + a)', []))).toEqual({
      kind: 'runtime',
      name: 'RangeError',
      message: 'bad 1',
      line: 3,
    })
    expect(failure(await executeSandbox('throw { reason: 42 }', []))).toMatchObject({
      kind: 'runtime',
      name: 'Thrown',
      message: '{"reason":42}',
    })
    expect(failure(await executeSandbox('return () => 1', []))).toMatchObject({
      kind: 'runtime',
      message: 'The script returned a value that is not JSON: a function has no JSON form',
    })
    expect(failure(await executeSandbox('await new Promise(() => {})', []))).toMatchObject({
      kind: 'runtime',
      message: expect.stringContaining('can never settle'),
    })
  })

  it('keeps the agent-core error code of a failed host call, which the script may also catch', async () => {
    const { tools } = shop()
    expect(failure(await executeSandbox('await lookup_order({ id: 7 })', tools))).toMatchObject({
      kind: 'host',
      name: 'InvalidInputError',
      code: 'invalid-input',
      toolId: 'lookup_order',
      line: 1,
    })
    const slow = defineModelTool({
      id: 'slow',
      description: 'Never answers in time',
      inputSchema: {},
      execute: () => new Promise(() => {}),
    })
    const caught = await executeSandbox(
      `try { await slow() } catch (error) {
  if (error instanceof ToolCallError) return [error.name, error.code, error.toolId]
}`,
      [slow],
      { limits: { hostCallTimeoutMs: 20 } },
    )
    expect(value(caught)).toEqual(['TimeoutError', 'timeout', 'slow'])
  })
})

describe('limits', () => {
  it('stops an infinite loop at the CPU limit, and the host goes on', async () => {
    const error = failure(
      await executeSandbox('let i = 0\nwhile (true) { i++ }', [], { limits: { cpuTimeMs: 50 } }),
    )
    expect(error).toMatchObject({ kind: 'limit', limit: 'cpuTime', code: 'sandbox-limit' })
    // The interrupt cannot be caught by the script.
    const stubborn = await executeSandbox('for (;;) { try { for (;;) {} } catch {} }', [], {
      limits: { cpuTimeMs: 50 },
    })
    expect(failure(stubborn)).toMatchObject({ limit: 'cpuTime' })
    expect(value(await executeSandbox('return 1 + 1', []))).toBe(2)
  })

  it('stops a memory bomb at the memory limit, and the host goes on', async () => {
    const before = process.memoryUsage().rss
    const bomb = await executeSandbox(
      'const rows = []\nfor (;;) rows.push({ n: rows.length, tag: [rows.length] })',
      [],
      {
        // The CPU limit is far: this is about memory, also on a loaded machine.
        limits: { memoryBytes: 8 * 1024 * 1024, cpuTimeMs: 60_000 },
      },
    )
    expect(failure(bomb)).toMatchObject({ kind: 'limit', limit: 'memory' })
    const buffer = await executeSandbox('return new Uint8Array(64 * 1024 * 1024).length', [], {
      limits: { memoryBytes: 8 * 1024 * 1024 },
    })
    expect(failure(buffer)).toMatchObject({ kind: 'limit', limit: 'memory' })
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
    expect(value(await executeSandbox('return [1, 2, 3].map((x) => x * 2)', []))).toEqual([2, 4, 6])
  })

  it('stops deep recursion at the stack limit, even recursion inside the engine, and the host goes on', async () => {
    expect(
      failure(
        await executeSandbox(
          'function down(n: number): number { return down(n + 1) + 1 }\nreturn down(0)',
          [],
        ),
      ),
    ).toMatchObject({
      kind: 'limit',
      limit: 'stack',
      line: 1,
    })
    // JSON.stringify of a deeply nested array recurses in C: the engine stops it at the stack limit (in
    // its worker, an engine broken by it would be dropped, never the host), and the next script runs.
    const nested = await executeSandbox(
      'let a: unknown[] = []\nfor (let i = 0; i < 300000; i++) a = [a]\nreturn JSON.stringify(a).length',
      [],
      { limits: { cpuTimeMs: 25_000 } },
    )
    expect(failure(nested)).toMatchObject({ kind: 'limit', limit: 'stack' })
    expect(engineStats().active).toBe(0)
    expect(value(await executeSandbox('return "still fine"', []))).toBe('still fine')
  }, 90_000)

  it('stops at the wall time while a host call hangs, and cancels the call', async () => {
    let signal: AbortSignal | undefined
    const hang = defineModelTool({
      id: 'hang',
      description: 'Hangs until cancelled',
      inputSchema: {},
      execute: (_input, context) => {
        signal = context.signal
        return new Promise(() => {})
      },
    })
    // The wall time is the host's clock from the script's start: long enough for the call to start.
    const result = await executeSandbox('await hang()', [hang], { limits: { timeMs: 2_000 } })
    expect(failure(result)).toMatchObject({ kind: 'limit', limit: 'time' })
    expect(signal?.aborted).toBe(true)
    expect(result.recording.calls).toEqual([expect.objectContaining({ status: 'failed', toolId: 'hang' })])
  })

  it('ends the execution at the host call past the limit, even one the script would catch', async () => {
    const { tools, runs } = shop()
    const result = await executeSandbox(
      `for (let i = 0; i < 5; i++) await lookup_order({ orderId: 'B-' + i })`,
      tools,
      { limits: { maxHostCalls: 3 } },
    )
    expect(failure(result)).toMatchObject({ kind: 'limit', limit: 'hostCalls' })
    expect(runs).toHaveLength(3)
    const caught = await executeSandbox(
      `const out: string[] = []
for (let i = 0; i < 3; i++) out.push(await lookup_order({ orderId: 'B-' + i }).then(() => 'ok', (e) => e.code))
return out`,
      tools,
      { limits: { maxHostCalls: 1 } },
    )
    expect(failure(caught)).toMatchObject({ kind: 'limit', limit: 'hostCalls' })
  })

  it('refuses output past the limit and cuts the console output at its limit', async () => {
    expect(
      failure(await executeSandbox("return 'x'.repeat(200)", [], { limits: { maxOutputBytes: 100 } })),
    ).toMatchObject({
      kind: 'limit',
      limit: 'output',
    })
    expect(
      value(await executeSandbox("return 'é'.repeat(49)", [], { limits: { maxOutputBytes: 100 } })),
    ).toBe('é'.repeat(49))
    const logs = await executeSandbox("for (let i = 0; i < 100; i++) console.log('line ' + i)", [], {
      limits: { maxLogBytes: 40 },
    })
    expect(logs.logs.map((log) => log.text)).toEqual([
      'line 0',
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      '[console output cut at 40 bytes]',
    ])
  })

  it('checks its limits and options', async () => {
    await expect(executeSandbox('1', [], { limits: { cpuTimeMs: 0 } })).rejects.toMatchObject({
      code: 'invalid-definition',
      details: { field: 'options.limits.cpuTimeMs' },
    })
    await expect(executeSandbox('1', [], { limits: { heap: 1 } as never })).rejects.toMatchObject({
      details: { field: 'options.limits.heap' },
    })
    await expect(executeSandbox('1', [], { verbose: true } as never)).rejects.toMatchObject({
      code: 'invalid-input',
      details: { field: 'options.verbose' },
    })
    expect(DEFAULT_SANDBOX_LIMITS.cpuTimeMs).toBe(1000)
  })
})

describe('isolation', () => {
  it('has no ambient I/O: no fetch, timers, require, process or module loading', async () => {
    const result = await executeSandbox(
      `return [typeof fetch, typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof require,
  typeof process, typeof XMLHttpRequest, typeof WebAssembly, typeof WeakRef, typeof FinalizationRegistry,
  await import('node:fs').then(() => 'loaded', (e) => e.name)]`,
      [],
      { language: 'javascript' },
    )
    expect(value(result)).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      expect.stringMatching(/Error/),
    ])
  })

  it('refuses prototype pollution, and nothing reaches the host', async () => {
    for (const code of [
      'Object.prototype.polluted = true',
      '({}).__proto__.polluted = true',
      'Array.prototype.push = () => 0',
      'Object.defineProperty(Object.prototype, "polluted", { value: true })',
      'globalThis.console = null',
      'Math.random = () => 4',
      'lookup_order.polluted = true',
      'tools.lookup_order = async () => 1',
      'Object.getPrototypeOf(async function () {}).polluted = true',
      'Object.setPrototypeOf(Object.prototype, { polluted: true })',
    ]) {
      const error = failure(await executeSandbox(code, shop().tools, { language: 'javascript' }))
      expect(error, code).toMatchObject({ kind: 'runtime', name: 'TypeError' })
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false)
  })

  it('freezes the global object, every constructor, prototype and namespace, and the hidden intrinsics', async () => {
    const result = await executeSandbox(
      `const frozen = (value: unknown) => Object.isFrozen(value)
const globals = Object.getOwnPropertyNames(globalThis).map((name) => (globalThis as any)[name])
const objects = globals.filter((value) => (typeof value === 'object' || typeof value === 'function') && value !== null)
const prototypes = objects.filter((value) => typeof value === 'function' && value.prototype).map((value) => value.prototype)
const hidden = [async function () {}, function* () {}, [].values(), new Map().entries()].map(Object.getPrototypeOf)
return [frozen(globalThis), objects.every(frozen), prototypes.every(frozen), hidden.every(frozen), frozen(Object.getPrototypeOf(hidden[3]))]`,
      shop().tools,
    )
    expect(value(result)).toEqual([true, true, true, true, true])
  })

  it('lets scripts assign their own names and methods (frozen prototypes do not break them)', async () => {
    const result = await executeSandbox(
      `class NotFound extends Error { constructor(id: string) { super('no ' + id); this.name = 'NotFound' } }
const money = { amount: 3 } as { amount: number; toString?: () => string }
money.toString = () => money.amount + ' EUR'
try { throw new NotFound('A-1') } catch (e) { return [String(e), String(money)] }`,
      [],
    )
    expect(value(result)).toEqual(['NotFound: no A-1', '3 EUR'])
  })

  it('keeps constructor escapes inside the sandbox', async () => {
    const { tools } = shop()
    const result = await executeSandbox(
      `const F = lookup_order.constructor.constructor
const G = (async () => {}).constructor
const H = console.log.constructor
return [
  F('return typeof process + typeof require + typeof globalThis.process')(),
  await G('return typeof process')(),
  H('return this')() === globalThis,
  Object.getOwnPropertyNames(globalThis).includes('process'),
  typeof (function () { return this })(),
]`,
      tools,
      { language: 'javascript' },
    )
    expect(value(result)).toEqual(['undefinedundefinedundefined', 'undefined', true, false, 'undefined'])
  })

  it('hands tools a plain JSON input: a __proto__ key stays data', async () => {
    let received: unknown
    const inspect = defineModelTool({
      id: 'inspect_input',
      description: 'Looks at its input',
      inputSchema: { type: 'object' },
      execute: (input: unknown) => {
        received = input
        return 'seen'
      },
    })
    const result = await executeSandbox(
      'return await inspect_input(JSON.parse(\'{"__proto__": {"polluted": true}, "a": 1}\'))',
      [inspect],
    )
    expect(value(result)).toBe('seen')
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype)
    expect((received as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('determinism and replay', () => {
  it('seeds Math.random and freezes Date (in UTC) per execution', async () => {
    const code = `return [Math.random(), Math.random(), Date.now(), new Date().toISOString(), new Date().getHours(),
  new Date(2024, 0, 2, 3).toISOString(), String(new Date(0)), Date.parse('2024-01-02T03:04'), new Date().getTimezoneOffset()]`
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      const a = await executeSandbox(code, [], { seed: 7, now: Date.UTC(2025, 4, 6, 7, 8, 9) })
      const b = await executeSandbox(code, [], { seed: 7, now: Date.UTC(2025, 4, 6, 7, 8, 9) })
      const c = await executeSandbox(code, [], { seed: 8, now: Date.UTC(2025, 4, 6, 7, 8, 9) })
      expect(value(a)).toEqual(value(b))
      expect((value(a) as number[])[0]).not.toBe((value(c) as number[])[0])
      expect((value(a) as unknown[]).slice(2)).toEqual([
        Date.UTC(2025, 4, 6, 7, 8, 9),
        '2025-05-06T07:08:09.000Z',
        7,
        '2024-01-02T03:00:00.000Z',
        'Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)',
        Date.UTC(2024, 0, 2, 3, 4),
        0,
      ])
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('replays a recording to the same result without calling any tool', async () => {
    const { tools, runs } = shop({ lookupDelayMs: 2 })
    const code = `const ids = ['A-17', 'B-2', 'C-3']
const orders = await Promise.all(ids.map((orderId) => lookup_order({ orderId })))
const pick = orders[Math.floor(Math.random() * orders.length)]!
console.log('picked', pick.orderId, 'at', new Date().toISOString())
const refund = await tools.refund({ orderId: pick.orderId, amount: 10 }).catch((e) => e.message)
return { pick, refund, total: orders.reduce((t, o) => t + o.total, 0) }`
    const original = await executeSandbox(code, tools)
    expect(original.status).toBe('completed')
    const calls = runs.length
    const replayed = await replaySandbox(JSON.parse(JSON.stringify(original.recording)), tools)
    expect(replayed).toEqual(original)
    expect(runs).toHaveLength(calls)
  })

  it('refuses a replay the script does not follow, and a recording of other code', async () => {
    const { tools, runs } = shop()
    const original = await executeSandbox("return await lookup_order({ orderId: 'A-17' })", tools)
    const edited = {
      ...original.recording,
      code: "return await lookup_order({ orderId: 'B-2' })",
    }
    await expect(replaySandbox(edited, tools)).rejects.toSatisfy((error) => ConflictError.isInstance(error))
    const more = {
      ...original.recording,
      code: "await lookup_order({ orderId: 'A-17' }); return await lookup_order({ orderId: 'C-3' })",
    }
    await expect(replaySandbox(more, tools)).rejects.toSatisfy((error) => ConflictError.isInstance(error))
    await expect(executeSandbox('return 2', tools, { recording: original.recording })).rejects.toSatisfy(
      (error) => ConflictError.isInstance(error),
    )
    expect(runs).toEqual(['lookup A-17'])
  })
})

describe('approvals without the loop', () => {
  it('suspends on a host call that needs a person, and goes on from the recording with a decision', async () => {
    const { tools, runs } = shop()
    const code = `const order = await lookup_order({ orderId: 'A-17' })
const small = await refund({ orderId: 'A-17', amount: 20 })
const big = await refund({ orderId: 'A-17', amount: order.total })
return [small, big]`
    const first = await executeSandbox(code, tools, { id: 'exec-1' })
    expect(first.status).toBe('suspended')
    const waiting = first.status === 'suspended' ? first.waiting : []
    expect(waiting).toEqual([
      expect.objectContaining({
        status: 'pending',
        toolCallId: 'host_3',
        toolId: 'refund',
        runId: 'exec-1',
        input: { orderId: 'A-17', amount: 250 },
        reason: 'A refund of 250 needs a manager.',
      }),
    ])
    expect(runs).toEqual(['lookup A-17', expect.stringMatching(/^refund A-17 20 /)])
    const saved = JSON.parse(JSON.stringify(first.recording))
    // Without a decision it still waits; nothing runs again.
    expect((await executeSandbox(code, tools, { recording: saved })).status).toBe('suspended')
    const done = await executeSandbox(code, tools, {
      recording: saved,
      decisions: { host_3: { type: 'approve', toolCallId: 'host_3', by: 'person' } },
    })
    expect(value(done)).toEqual(['refunded 20 on A-17', 'refunded 250 on A-17'])
    expect(runs).toEqual([
      'lookup A-17',
      expect.stringMatching(/^refund A-17 20 /),
      `refund A-17 250 ${waiting[0]!.invocationId}`,
    ])
    const refused = await executeSandbox(code, tools, {
      recording: saved,
      decisions: { host_3: { type: 'reject', toolCallId: 'host_3', by: 'person', reason: 'Too much.' } },
    })
    expect(failure(refused)).toMatchObject({
      kind: 'host',
      code: 'tool-rejected',
      message: 'Too much.',
      toolId: 'refund',
    })
    await expect(
      executeSandbox(code, tools, {
        recording: saved,
        decisions: { host_1: { type: 'approve', toolCallId: 'host_1', by: 'person' } },
      }),
    ).rejects.toMatchObject({ code: 'invalid-input', details: { field: 'options.decisions.host_1' } })
  })

  it('waits for every host call of a parallel step before it suspends', async () => {
    const { tools, runs } = shop({ lookupDelayMs: 20 })
    const result = await executeSandbox(
      `return await Promise.all([refund({ orderId: 'A-17', amount: 300 }), lookup_order({ orderId: 'B-2' }), refund({ orderId: 'C-3', amount: 500 })])`,
      tools,
    )
    expect(result.status === 'suspended' && result.waiting.map((call) => call.toolCallId)).toEqual([
      'host_1',
      'host_3',
    ])
    expect(runs).toEqual(['lookup B-2'])
    expect(result.recording.calls.map((call) => call.status)).toEqual(['pending', 'completed', 'pending'])
  })
})

describe('diagnostics and cancellation', () => {
  it('makes each run and each host call a span, inside which the tool lifecycle opens its own', async () => {
    const sink = new MemoryDiagnosticSink()
    const { tools } = shop()
    await executeSandbox(
      "await lookup_order({ orderId: 'A-17' }); await lookup_order({ orderId: 'B-2' })",
      tools,
      {
        context: { diagnostics: sink.sink },
      },
    )
    const kinds = sink.events.map((event) => event.kind)
    expect(kinds.filter((kind) => kind === 'sandbox-run-start')).toHaveLength(1)
    expect(kinds.filter((kind) => kind === 'sandbox-run-end')).toHaveLength(1)
    expect(kinds.filter((kind) => kind === 'sandbox-host-call-start')).toHaveLength(2)
    expect(kinds.filter((kind) => kind === 'sandbox-host-call-end')).toHaveLength(2)
    expect(kinds.filter((kind) => kind === 'tool-call-start')).toHaveLength(2)
    const run = sink.events.find((event) => event.kind === 'sandbox-run-start')!
    const host = sink.events.find((event) => event.kind === 'sandbox-host-call-start')!
    const tool = sink.events.find((event) => event.kind === 'tool-call-start')!
    expect(host.data.parentSpanId).toBe(run.data.spanId)
    expect(tool.data.parentSpanId).toBe(host.data.spanId)
    expect(sink.events.find((event) => event.kind === 'sandbox-run-end')?.data).toMatchObject({
      outcome: 'ok',
      status: 'completed',
      hostCalls: 2,
    })
  })

  it("stops when the run's signal is aborted, cancelling its host calls", async () => {
    const controller = new AbortController()
    const hang = defineModelTool({
      id: 'hang',
      description: 'Hangs',
      inputSchema: {},
      execute: () => {
        setTimeout(() => controller.abort(), 5)
        return new Promise(() => {})
      },
    })
    const result = await executeSandbox('await hang()', [hang], {
      context: createOperationContext({ signal: controller.signal }),
    })
    expect(failure(result)).toMatchObject({ kind: 'stopped', code: 'aborted' })
    const stopped = await executeSandbox('while (true) {}', [], { context: { signal: AbortSignal.abort() } })
    expect(failure(stopped)).toMatchObject({ kind: 'stopped' })
  })

  it('takes a ready ToolLifecycleRegistry as its tools', async () => {
    const { lookupOrder, refund } = shop()
    const registry = ToolLifecycleRegistry.create([defineToolLifecycle(lookupOrder), refund])
    expect(
      value(await executeSandbox("return (await lookup_order({ orderId: 'A-17' })).total", registry)),
    ).toBe(250)
  })
})

describe('progress saves (durable executions)', () => {
  it('continues from a save taken mid-call: settled calls do not run again, the one in flight runs with its invocation id', async () => {
    const charges: string[] = []
    let crash = true
    const charge = defineModelTool<{ amount: number }, string>({
      id: 'charge',
      description: 'Charges a card',
      inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      execute: ({ amount }, { invocationId }) => {
        charges.push(`${amount}:${invocationId}`)
        // The first time the second charge runs, the process "dies" right after the effect.
        if (amount === 2 && crash) {
          crash = false
          return new Promise(() => {})
        }
        return `charged ${amount}`
      },
    })
    const code =
      'const out: string[] = []\nfor (const amount of [1, 2, 3]) out.push(await charge({ amount }))\nreturn out'
    const saves: SandboxRecording[] = []
    const controller = new AbortController()
    const first = executeSandbox(code, [charge], {
      context: { signal: controller.signal },
      onProgress: (recording) => {
        saves.push(JSON.parse(JSON.stringify(recording)))
        if (recording.running?.includes('host_2') && charges.length === 1)
          setTimeout(() => controller.abort(), 20)
      },
    })
    expect((await first).status).toBe('failed')
    // The save a crash would have left behind: host_2 saved before it ran, not settled.
    const crashed = saves.find((save) => save.running?.includes('host_2'))!
    expect(crashed.calls.map((call) => call.status)).toEqual(['completed', 'pending'])
    const inFlight = crashed.calls[1]!.invocationId
    const resumed = await executeSandbox(code, [charge], { recording: crashed, onProgress: () => undefined })
    expect(value(resumed)).toEqual(['charged 1', 'charged 2', 'charged 3'])
    expect(charges).toEqual([
      expect.stringMatching(/^1:/),
      `2:${inFlight}`,
      `2:${inFlight}`,
      expect.stringMatching(/^3:/),
    ])
    expect(resumed.recording.running).toBeUndefined()
  })

  it("saves the calls of a ready-made registry before they run too (the stage is the lifecycle's)", async () => {
    const { lookupOrder, runs } = shop()
    const registry = ToolLifecycleRegistry.create([defineToolLifecycle(lookupOrder)])
    const saves: { running: readonly string[]; statuses: string[]; runs: number }[] = []
    const result = await executeSandbox('return (await lookup_order({ orderId: "A-17" })).total', registry, {
      onProgress: (recording) => {
        saves.push({
          running: recording.running ?? [],
          statuses: recording.calls.map((call) => call.status),
          runs: runs.length,
        })
      },
    })
    expect(value(result)).toBe(250)
    // Saved pending (running) before the tool ran, then settled.
    expect(saves).toEqual([
      { running: ['host_1'], statuses: ['pending'], runs: 0 },
      { running: [], statuses: ['completed'], runs: 1 },
    ])
  })
})
