/**
 * One execution, driven from the host: the script runs in an engine worker (see `engine.ts`), its host
 * calls run here (see `host-calls.ts`), and the host's own clock ends it at its wall time by terminating
 * the worker, so the host's event loop is never held by the script. Host results reach the script in call
 * order (the engine delivers the n-th call's result only after the results of the calls before it), so
 * the order in which a script sees them never depends on which tool answered first, and a replay sees
 * them in the same order.
 */
import { AbortedError, AgentCoreError, type OperationContext } from '@agent-core/core'
import type { JsonValue, ToolDecision, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import type { ResolvedSandboxLimits } from '../sandbox-limits.js'
import type { SandboxRecording } from '../sandbox-recording.js'
import type { SandboxErrorInfo, SandboxLimitName, SandboxLog, SandboxResult } from '../sandbox-result.js'
import { acquireEngine, type Engine, type EngineEnd, releaseEngine } from './engine.js'
import { type HostCall, type HostCallIds, HostCalls, nesting, utf8Length } from './host-calls.js'
import { PRELUDE } from './prelude.js'
import { prepareScript, WRAPPER_START } from './strip-types.js'

/** The bytes the prelude's envelope adds around a returned value's JSON. */
const ENVELOPE_BYTES = '{"ok":true,"value":}'.length
/** Executions nested inside host calls of other executions, at most (the top one included). */
export const MAX_NESTING = 3

/** Everything an execution needs, checked by the caller. */
export interface ExecutionInput {
  readonly code: string
  readonly language: 'typescript' | 'javascript'
  readonly registry: ToolLifecycleRegistry<unknown>
  /** Tool ids that become global functions (the others are reachable through `tools`). */
  readonly declarable: readonly string[]
  readonly limits: ResolvedSandboxLimits
  readonly context: OperationContext<unknown>
  /** The recording to continue from (replayed host calls, seed and clock), or the fresh start. */
  readonly start: SandboxRecording
  /** Decisions for host calls the recording shows waiting, by tool-call id. */
  readonly decisions: ReadonlyMap<string, ToolDecision>
  /** Host calls missing from the recording fail the execution instead of running. */
  readonly strict: boolean
  /**
   * Called with the recording after each host call is saved before it runs and after it settles (awaited
   * before the call runs, and before the script sees its result). Turns on the write-ahead stage.
   */
  readonly onProgress?: ((recording: SandboxRecording) => unknown) | undefined
  /** Kept globals: the `globals` object the script starts with (checked plain JSON); none when absent. */
  readonly globals?: Readonly<Record<string, JsonValue>> | undefined
  /** How host-call ids are written and read (see {@link HostCallIds}). */
  readonly hostCallIds: HostCallIds
}

function limitError(limit: SandboxLimitName, message: string): SandboxErrorInfo {
  return { kind: 'limit', name: 'SandboxLimitError', code: 'sandbox-limit', limit, message }
}

const LIMIT_TEXT: Record<SandboxLimitName, (limits: ResolvedSandboxLimits) => string> = {
  memory: (l) =>
    `The script ran out of memory (limit ${l.memoryBytes} bytes). Work on smaller pieces of data.`,
  stack: () => 'The script nested too deeply (stack overflow). Use a loop instead of deep recursion.',
  cpuTime: (l) =>
    `The script ran for more than ${l.cpuTimeMs} ms of computation and was stopped (an endless loop?).`,
  time: (l) => `The script did not finish within ${l.timeMs} ms, host calls included, and was stopped.`,
  hostCalls: (l) => `The script made more than ${l.maxHostCalls} host calls; make fewer, larger calls.`,
  output: (l) => `The script returned more than ${l.maxOutputBytes} bytes of JSON; return a smaller value.`,
  recording: (l) =>
    `The script's host calls passed more than ${l.maxRecordingBytes} bytes of inputs and results; pass and fetch less data.`,
  nesting: () =>
    `The script was started by a tool of a script nested ${MAX_NESTING} deep; sandboxes cannot nest deeper.`,
}

function limit(name: SandboxLimitName, limits: ResolvedSandboxLimits): SandboxErrorInfo {
  return limitError(name, LIMIT_TEXT[name](limits))
}

/** How the driver ended: the engine's end, a stop by the host, or a failure the caller rejects with. */
type Driven =
  | { readonly type: 'end'; readonly end: EngineEnd }
  | { readonly type: 'stop'; readonly error: SandboxErrorInfo }
  | { readonly type: 'fatal'; readonly error: unknown }

/** Runs one execution to its end: completed, failed or suspended. */
export async function runExecution(input: ExecutionInput): Promise<SandboxResult> {
  const { context, start } = input
  const span = context.diagnostics.span('sandbox-run', {
    recordingId: start.id,
    replayedCalls: start.calls.length,
    language: input.language,
  })
  try {
    const result = await new Session(input, { ...context, diagnostics: span.diagnostics }).run()
    span.end(result.status === 'failed' && result.error.kind === 'stopped' ? 'aborted' : 'ok', {
      status: result.status,
      hostCalls: result.hostCalls,
      ...(result.status === 'failed' ? { errorKind: result.error.kind, errorName: result.error.name } : {}),
    })
    return result
  } catch (error) {
    span.fail(error)
    throw error
  }
}

/** One execution: its logs, its host calls, and the stages from the script's text to its result. */
class Session {
  readonly #input: ExecutionInput
  readonly #context: OperationContext<unknown>
  readonly #limits: ResolvedSandboxLimits
  readonly #logs: SandboxLog[] = []
  readonly #calls: HostCalls
  /** Cancels host calls still running when the execution ends early. */
  readonly #cancel = new AbortController()
  /** Kept globals: those the script started with, then those it left (once it ran to its end). */
  #globals: Readonly<Record<string, JsonValue>> | undefined
  /** Whether the globals were read after the script (or the script never ran): nothing to report. */
  #globalsSettled = false

  constructor(input: ExecutionInput, context: OperationContext<unknown>) {
    this.#input = input
    this.#context = context
    this.#limits = input.limits
    this.#calls = new HostCalls(input, context)
    this.#globals = input.globals
  }

  /** Reads the globals the script left (`{ values, dropped }` JSON from the prelude) and reports the dropped ones. */
  #takeGlobals(end: EngineEnd): void {
    if (this.#globals === undefined) return
    this.#globalsSettled = true
    if (!('text' in end) || end.kind === 'compile') return
    if (end.globals === undefined) {
      this.#warn(
        `[globals] not kept: ${end.globalsProblem ?? 'they could not be read'}; the next code call starts from the globals this one started with.`,
      )
      return
    }
    const { values, dropped } = JSON.parse(end.globals) as {
      values: Record<string, JsonValue>
      dropped: { key: string; problem: string }[]
    }
    this.#globals = Object.freeze(values)
    for (const { problem } of dropped) {
      this.#warn(
        `[globals] not kept: ${problem}; only plain JSON data (objects, arrays, strings, finite numbers, booleans, null) is kept for the next code call.`,
      )
    }
  }

  #warn(text: string): void {
    this.#logs.push(Object.freeze({ level: 'warn', text }))
  }

  #finish(
    end:
      | { status: 'completed'; value?: JsonValue }
      | { status: 'failed'; error: SandboxErrorInfo }
      | { status: 'suspended' },
  ): SandboxResult {
    const waiting = end.status === 'suspended' ? { waiting: this.#calls.waiting() } : {}
    if (
      this.#globals !== undefined &&
      !this.#globalsSettled &&
      end.status === 'failed' &&
      end.error.kind !== 'syntax'
    ) {
      this.#warn(
        '[globals] not kept: the code call failed before its globals could be read (a limit, a stop or a refused result); the next code call starts from the globals this one started with.',
      )
    }
    return Object.freeze({
      ...end,
      ...waiting,
      ...(this.#globals === undefined ? {} : { globals: this.#globals }),
      logs: Object.freeze(this.#logs),
      hostCalls: this.#calls.calls.length,
      recording: this.#calls.recording(),
    }) as SandboxResult
  }

  #fail(error: SandboxErrorInfo): SandboxResult {
    return this.#finish({ status: 'failed', error })
  }

  /** Strips types, checks nesting, takes an engine, drives the script, and reads how it ended. */
  async run(): Promise<SandboxResult> {
    const { code, language, limits } = this.#input
    const prepared = await prepareScript(code, language)
    if (!prepared.ok) {
      return this.#fail({
        kind: 'syntax',
        name: 'SyntaxError',
        message: prepared.message,
        ...(prepared.line === undefined ? {} : { line: prepared.line }),
        ...(prepared.column === undefined ? {} : { column: prepared.column }),
      })
    }
    const outer = nesting.getStore()
    if ((outer?.depth ?? 0) >= MAX_NESTING) return this.#fail(limit('nesting', limits))
    const signal = outer ? AbortSignal.any([this.#context.signal, outer.signal]) : this.#context.signal
    if (signal.aborted) return this.#fail(stoppedError(signal))
    let engine: Engine
    try {
      engine = await acquireEngine(limits.memoryBytes, outer !== undefined, signal)
    } catch (error) {
      if (signal.aborted) return this.#fail(stoppedError(signal))
      throw error
    }
    try {
      let driven: Driven
      try {
        driven = await this.#drive(engine, prepared.code, signal, outer?.depth ?? 0)
      } finally {
        releaseEngine(engine, outer !== undefined)
      }
      // Host calls still running are cancelled; wait for them so the recording says how they ended.
      this.#cancel.abort(new AbortedError('The sandbox script was stopped.'))
      await this.#calls.settle()
      if (driven.type === 'fatal') throw driven.error
      if (driven.type === 'stop') return this.#fail(driven.error)
      return this.#conclude(driven.end)
    } finally {
      this.#cancel.abort(new AbortedError('The sandbox script ended.'))
    }
  }

  /**
   * Runs the script in `engine` until it ends, its wall time passes (counted by the host from the moment
   * the prelude is set up and the script starts) or `signal` stops the run (the engine is then terminated
   * at once, wherever it is), or a host call leaves the recording.
   */
  #drive(engine: Engine, code: string, signal: AbortSignal, depth: number): Promise<Driven> {
    const limits = this.#limits
    const hostContext: OperationContext<unknown> = {
      ...this.#context,
      signal: AbortSignal.any([signal, this.#cancel.signal]),
    }
    return new Promise<Driven>((resolve) => {
      let done = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (driven: Driven) => {
        if (done) return
        done = true
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        if (driven.type !== 'end') {
          engine.terminate()
          this.#cancel.abort(new AbortedError('The sandbox script was stopped.'))
        }
        resolve(driven)
      }
      const onAbort = () => settle({ type: 'stop', error: stoppedError(signal) })
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      const settled = (call: HostCall) => {
        if (done) return
        if (this.#calls.fatal !== undefined) return settle({ type: 'fatal', error: this.#calls.fatal })
        if (this.#calls.bytes > limits.maxRecordingBytes)
          return settle({ type: 'stop', error: limit('recording', limits) })
        if (call.answer !== undefined) engine.answer(call.number, call.answer)
        else engine.wait(call.number)
      }
      const job = {
        code,
        prelude: PRELUDE,
        ids: JSON.stringify(this.#input.registry.ids()),
        declarable: JSON.stringify(this.#input.declarable),
        seed: this.#input.start.seed,
        now: this.#input.start.now,
        maxText: limits.maxOutputBytes,
        ...(this.#globals === undefined ? {} : { globals: JSON.stringify(this.#globals) }),
        limits,
      }
      engine
        .run(job, {
          onStarted: () => {
            timer = setTimeout(() => settle({ type: 'stop', error: limit('time', limits) }), limits.timeMs)
          },
          onLog: (level, text) => this.#logs.push(Object.freeze({ level, text } as SandboxLog)),
          onCall: (n, toolId, json) => {
            if (!done) this.#calls.start(n, toolId, json, hostContext, depth, settled)
          },
        })
        .then((end) => settle({ type: 'end', end }))
    })
  }

  /** The result of an engine's end. */
  #conclude(end: EngineEnd): SandboxResult {
    const limits = this.#limits
    if (
      end.kind === 'compile' ||
      ((end.kind === 'fulfilled' || end.kind === 'rejected') && this.#calls.waiting().length === 0)
    )
      this.#takeGlobals(end)
    const waiting = this.#calls.waiting().length > 0
    switch (end.kind) {
      case 'compile': {
        const info = JSON.parse(end.text) as { name: string; message: string; stack?: string }
        return this.#fail({
          kind: info.name === 'SyntaxError' ? 'syntax' : 'runtime',
          name: info.name,
          message: info.message,
          ...syntaxPosition(info.stack, this.#input.code),
        })
      }
      case 'fulfilled': {
        if (waiting) return this.#finish({ status: 'suspended' })
        if (utf8Length(end.text) - ENVELOPE_BYTES > limits.maxOutputBytes)
          return this.#fail(limit('output', limits))
        const parsed = JSON.parse(end.text) as { ok: true; value?: JsonValue }
        return this.#finish({ status: 'completed', ...('value' in parsed ? { value: parsed.value } : {}) })
      }
      case 'output':
        return waiting ? this.#finish({ status: 'suspended' }) : this.#fail(limit('output', limits))
      case 'rejected':
        if (waiting) return this.#finish({ status: 'suspended' })
        return this.#fail(scriptError(JSON.parse(end.text), limits))
      case 'stuck':
        if (waiting) return this.#finish({ status: 'suspended' })
        return this.#fail({
          kind: 'runtime',
          name: 'Error',
          message:
            'The script is waiting for a promise that can never settle (no host call is running). Await only host calls and promises that resolve.',
        })
      case 'limit':
        return this.#fail(limit(end.limit, limits))
      case 'engine':
        if (end.native) return this.#fail(limit('stack', limits))
        return this.#fail(engineError(end.message))
      case 'thrown':
        if (/out of memory/.test(end.message)) return this.#fail(limit('memory', limits))
        return this.#fail({ kind: 'runtime', name: end.name, message: end.message })
      case 'died':
        if (end.memory) return this.#fail(limit('memory', limits))
        return this.#fail(engineError(end.message))
    }
  }
}

function engineError(message: string): SandboxErrorInfo {
  return {
    kind: 'limit',
    name: 'SandboxEngineError',
    message: `The sandbox engine failed (${message.slice(0, 500)}); the script was stopped.`,
  }
}

/** The line the script's first frame points to (`script.ts:line:column` in a QuickJS stack). */
function position(stack: unknown): { line?: number } {
  if (typeof stack !== 'string') return {}
  const match = /script\.ts:(\d+)/.exec(stack)
  return match ? { line: Number(match[1]) } : {}
}

function stoppedError(signal: AbortSignal): SandboxErrorInfo {
  const reason: unknown = signal.reason
  return {
    kind: 'stopped',
    name: 'AbortedError',
    code: AgentCoreError.isInstance(reason) ? reason.code : 'aborted',
    message: 'The run was stopped before the script finished.',
  }
}
/** Where a syntax error is, in the script as written: past its last line, it is at the end of the last one. */
function syntaxPosition(stack: unknown, code: string): { line?: number; column?: number } {
  if (typeof stack !== 'string') return {}
  const match = /script\.ts:(\d+):(\d+)/.exec(stack)
  if (!match) return position(stack)
  const lines = code.split('\n')
  const line = Number(match[1])
  if (line > lines.length) return { line: lines.length }
  const column = Number(match[2])
  return { line, column: line === 1 ? Math.max(1, column - WRAPPER_START.length) : column }
}

/** The failure of a script from what the prelude's `describe` wrote. */
function scriptError(
  info: {
    name?: unknown
    message?: unknown
    stack?: unknown
    code?: unknown
    toolId?: unknown
    limit?: unknown
    host?: unknown
    notJson?: unknown
  },
  limits: ResolvedSandboxLimits,
): SandboxErrorInfo {
  const name = typeof info.name === 'string' ? info.name : 'Error'
  const message = typeof info.message === 'string' ? info.message : ''
  const at = position(info.stack)
  if (name === 'InternalError' && message === 'out of memory')
    return { ...limitError('memory', LIMIT_TEXT.memory(limits)), ...at }
  if (name === 'InternalError' && message === 'stack overflow')
    return { ...limitError('stack', LIMIT_TEXT.stack(limits)), ...at }
  if (name === 'SandboxLimitError' && info.limit === 'hostCalls')
    return { ...limitError('hostCalls', message), toolId: info.toolId as string, ...at }
  if (info.host === true) {
    return {
      kind: 'host',
      name,
      message,
      ...(typeof info.code === 'string' ? { code: info.code } : {}),
      ...(typeof info.toolId === 'string' ? { toolId: info.toolId } : {}),
      ...at,
    }
  }
  return { kind: 'runtime', name, message, ...at }
}
