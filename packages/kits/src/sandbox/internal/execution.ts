/**
 * One execution: a fresh QuickJS runtime and context, the prelude, the script, and the loop that delivers
 * host results until the script's promise settles. Host results reach the script in call order (the n-th
 * call's result only after the results of the calls before it), so the order in which a script sees them
 * never depends on which tool answered first, and a replay sees them in the same order.
 */
import {
  AbortedError,
  AgentCoreError,
  ConflictError,
  deadlineSignal,
  type OperationContext,
  TimeoutError,
} from '@agent-core/core'
import type { ToolExecutionContext, ToolProgressReporter } from '@agent-core/core/tools'
import {
  type JsonValue,
  type PendingToolCall,
  ToolCallJournal,
  type ToolCallOutcome,
  type ToolCallState,
  type ToolDecision,
  type ToolLifecycleRegistry,
} from '@agent-core/kits/tools'
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from 'quickjs-emscripten'
import type { ResolvedSandboxLimits } from '../sandbox-limits.js'
import { hostCallId, hostCallNumber, type SandboxRecording } from '../sandbox-recording.js'
import type { SandboxErrorInfo, SandboxLimitName, SandboxLog, SandboxResult } from '../sandbox-result.js'
import { quickjs, retire } from './engine.js'
import { PRELUDE } from './prelude.js'
import { prepareScript, WRAPPER_START } from './strip-types.js'

const SCRIPT_FILE = 'script.ts'
/** The bytes the prelude's envelope adds around a returned value's JSON. */
const ENVELOPE_BYTES = '{"ok":true,"value":}'.length

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
}

/** The envelope a host call's result crosses into the sandbox in. */
type Envelope =
  | { readonly ok: true; readonly value?: JsonValue }
  | { readonly ok: false; readonly error: HostError }

interface HostError {
  readonly name: string
  readonly message: string
  readonly code?: string | undefined
  readonly toolId?: string | undefined
  readonly phase?: string | undefined
  readonly by?: string | undefined
  readonly instruction?: string | undefined
  readonly limit?: string | undefined
}

/** A host call the script made. */
interface HostCall {
  readonly number: number
  readonly toolId: string
  readonly deferred: QuickJSDeferredPromise
  /** Settles once the call has an answer for the script, or waits for a person. */
  readonly done: Promise<void>
  answer: Envelope | undefined
  waiting: PendingToolCall | undefined
}

/** Thrown inside the engine loop to end the execution with a failure. */
class Stop {
  constructor(readonly error: SandboxErrorInfo) {}
}

const encoder = new TextEncoder()
function utf8Length(text: string): number {
  // Fast path: ASCII strings are as long in UTF-8 as in UTF-16.
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  return text.length
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
}

/** The line the script's first frame points to (`script.ts:line:column` in a QuickJS stack). */
function position(stack: unknown): { line?: number } {
  if (typeof stack !== 'string') return {}
  const match = /script\.ts:(\d+)/.exec(stack)
  return match ? { line: Number(match[1]) } : {}
}

function errorRecordToHost(state: ToolCallState, toolId: string): HostError {
  if (state.status === 'rejected') {
    return {
      name: 'ToolRejectedError',
      code: 'tool-rejected',
      message: state.rejection.reason,
      toolId,
      by: state.rejection.by,
      ...(state.rejection.instruction === undefined ? {} : { instruction: state.rejection.instruction }),
    }
  }
  if (state.status === 'failed') {
    return {
      name: state.error.name,
      message: state.error.message,
      ...(state.error.code === undefined ? {} : { code: state.error.code }),
      toolId,
      phase: state.phase,
    }
  }
  return { name: 'Error', message: 'unexpected state', toolId }
}

/** Runs one execution to its end: completed, failed or suspended. */
export async function runExecution(input: ExecutionInput): Promise<SandboxResult> {
  const { context, start } = input
  const span = context.diagnostics.span('sandbox-run', {
    recordingId: start.id,
    replayedCalls: start.calls.length,
    language: input.language,
  })
  try {
    const result = await execute(input, { ...context, diagnostics: span.diagnostics })
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

async function execute(input: ExecutionInput, context: OperationContext<unknown>): Promise<SandboxResult> {
  const { limits, start, registry } = input
  const logs: SandboxLog[] = []
  let logBytes = 0
  let logsCut = false
  const journal = new ToolCallJournal(start.calls)
  const calls: HostCall[] = []
  /** Host calls saved before they ran and not settled yet. */
  const running = new Set(start.running ?? [])
  const recording = (): SandboxRecording => {
    const states = journal
      .states()
      .filter((state) => hostCallNumber(state.toolCallId) !== undefined)
      .sort((a, b) => hostCallNumber(a.toolCallId)! - hostCallNumber(b.toolCallId)!)
    const { running: _previous, ...rest } = start
    return Object.freeze({
      ...rest,
      calls: Object.freeze(states),
      ...(running.size === 0 ? {} : { running: Object.freeze([...running]) }),
    })
  }
  const onProgress = input.onProgress
  let saving: Promise<unknown> = Promise.resolve()
  /** Saves the recording as it is now, after the saves already queued. */
  const save = (): Promise<unknown> => {
    if (onProgress === undefined) return Promise.resolve()
    saving = saving.then(() => onProgress(recording()))
    return saving
  }
  const finish = (
    end:
      | { status: 'completed'; value?: JsonValue }
      | { status: 'failed'; error: SandboxErrorInfo }
      | { status: 'suspended'; waiting: PendingToolCall[] },
  ): SandboxResult =>
    Object.freeze({
      ...end,
      logs: Object.freeze(logs),
      hostCalls: calls.length,
      recording: recording(),
    }) as SandboxResult

  // The engine starts loading (on a first run) while sucrase loads and strips the types.
  const loadingModule = quickjs()
  loadingModule.catch(() => undefined) // a syntax error returns before it is awaited; the next run retries
  const prepared = await prepareScript(input.code, input.language)
  if (!prepared.ok) {
    return finish({
      status: 'failed',
      error: {
        kind: 'syntax',
        name: 'SyntaxError',
        message: prepared.message,
        ...(prepared.line === undefined ? {} : { line: prepared.line }),
        ...(prepared.column === undefined ? {} : { column: prepared.column }),
      },
    })
  }
  if (context.signal.aborted) {
    return finish({ status: 'failed', error: stoppedError(context.signal) })
  }

  const module = await loadingModule
  const deadline = deadlineSignal(context.signal, limits.timeMs, 'the sandbox script')
  // Host calls stop with the run, at the deadline, or when the script is stopped for another reason.
  const cancel = new AbortController()
  const hostContext: OperationContext<unknown> = {
    ...context,
    signal: AbortSignal.any([deadline.signal, cancel.signal]),
  }
  const writeAhead = onProgress !== undefined
  let runtime: QuickJSRuntime | undefined
  let vm: QuickJSContext | undefined
  const handles: QuickJSHandle[] = []
  let broken = false
  let cpuUsed = 0
  let sliceStart = 0
  /** Whether engine time counts against `cpuTimeMs`: the script's, not the setup's. */
  let counting = false
  let interruptedBy: SandboxLimitName | 'stopped' | undefined
  let fatal: unknown
  let wake: (() => void) | undefined
  const poke = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  deadline.signal.addEventListener('abort', poke, { once: true })

  /** Runs engine code, counting its CPU time; a host-level error from the engine breaks the module. */
  const slice = <T>(work: () => T): T => {
    sliceStart = performance.now()
    try {
      return work()
    } catch (error) {
      if (error instanceof Stop) throw error
      throw new Stop(engineFailure(error))
    } finally {
      if (counting) cpuUsed += performance.now() - sliceStart
      sliceStart = 0
    }
  }
  /** What an error thrown out of the engine means: a broken module, or a failure of the script's code. */
  const engineFailure = (error: unknown): SandboxErrorInfo => {
    // The engine's C code ran out of the host's native stack, or aborted: the module is left inconsistent.
    const native = error instanceof RangeError
    if (
      native ||
      error instanceof WebAssembly.RuntimeError ||
      /^Aborted\(/.test(String((error as Error)?.message))
    ) {
      broken = true
      retire(module)
      if (native) return limitError('stack', LIMIT_TEXT.stack(limits))
      return {
        kind: 'limit',
        name: 'SandboxEngineError',
        message: `The sandbox engine failed (${error instanceof Error ? error.message : String(error)}); the script was stopped.`,
      }
    }
    // A QuickJS exception surfaced by the binding (the setup code was interrupted or ran out of memory).
    if (interruptedBy !== undefined) {
      return interruptedBy === 'stopped'
        ? stoppedError(context.signal)
        : limitError(interruptedBy, LIMIT_TEXT[interruptedBy](limits))
    }
    const message = error instanceof Error ? error.message : String(error)
    if (/out of memory/.test(message)) return limitError('memory', LIMIT_TEXT.memory(limits))
    return { kind: 'runtime', name: error instanceof Error ? error.name : 'Error', message }
  }

  try {
    runtime = module.newRuntime()
    runtime.setMemoryLimit(limits.memoryBytes)
    runtime.setMaxStackSize(limits.stackBytes)
    runtime.setInterruptHandler(() => {
      if (sliceStart === 0) return false
      if (deadline.signal.aborted) {
        interruptedBy =
          TimeoutError.isInstance(deadline.signal.reason) && !context.signal.aborted ? 'time' : 'stopped'
        return true
      }
      if (counting && cpuUsed + (performance.now() - sliceStart) > limits.cpuTimeMs) {
        interruptedBy = 'cpuTime'
        return true
      }
      return false
    })
    vm = runtime.newContext()
    const ctx = vm

    const hostLog = ctx.newFunction('log', (levelHandle, textHandle) => {
      const level = ctx.getString(levelHandle) as SandboxLog['level']
      const text = ctx.getString(textHandle)
      if (logsCut) return
      const size = utf8Length(text) + 1
      if (logBytes + size > limits.maxLogBytes) {
        logsCut = true
        logs.push(
          Object.freeze({ level: 'warn', text: `[console output cut at ${limits.maxLogBytes} bytes]` }),
        )
        return
      }
      logBytes += size
      logs.push(Object.freeze({ level, text }))
    })
    handles.push(hostLog)
    const hostCall = ctx.newFunction('call', (idHandle, inputHandle) => {
      const toolId = ctx.getString(idHandle)
      const json = ctx.getString(inputHandle)
      const deferred = ctx.newPromise()
      const number = calls.length + 1
      const call: HostCall = {
        number,
        toolId,
        deferred,
        answer: undefined,
        waiting: undefined,
        done: Promise.resolve(),
      }
      ;(call as { done: Promise<void> }).done = performCall(call, json).then(
        () => poke(),
        (error: unknown) => {
          fatal ??= error
          poke()
        },
      )
      calls.push(call)
      return deferred.handle
    })
    handles.push(hostCall)

    const prelude = slice(() =>
      ctx.unwrapResult(ctx.evalCode(PRELUDE, 'sandbox-prelude.js', { type: 'global' })),
    )
    handles.push(prelude)
    const ids = ctx.newString(JSON.stringify(registry.ids()))
    const declarable = ctx.newString(JSON.stringify(input.declarable))
    const seed = ctx.newNumber(start.seed)
    const now = ctx.newNumber(start.now)
    handles.push(ids, declarable, seed, now)
    const api = slice(() =>
      ctx.unwrapResult(
        ctx.callFunction(prelude, ctx.undefined, hostCall, hostLog, ids, declarable, seed, now),
      ),
    )
    handles.push(api)
    const run = ctx.getProp(api, 'run')
    const describe = ctx.getProp(api, 'describe')
    handles.push(run, describe)

    counting = true
    const compiled = slice(() => ctx.evalCode(prepared.code, SCRIPT_FILE, { type: 'global' }))
    if (compiled.error) {
      const text = slice(() => ctx.unwrapResult(ctx.callFunction(describe, ctx.undefined, compiled.error)))
      compiled.error.dispose()
      const info = JSON.parse(ctx.getString(text)) as { name: string; message: string; stack?: string }
      text.dispose()
      const at = syntaxPosition(info.stack, input.code)
      return finish({
        status: 'failed',
        error: {
          kind: info.name === 'SyntaxError' ? 'syntax' : 'runtime',
          name: info.name,
          message: info.message,
          ...at,
        },
      })
    }
    const main = compiled.value
    handles.push(main)
    const promise = slice(() => ctx.unwrapResult(ctx.callFunction(run, ctx.undefined, main)))
    handles.push(promise)

    let delivered = 0
    for (;;) {
      const jobs = slice(() => runtime!.executePendingJobs())
      if (jobs.error) jobs.error.dispose()
      if (fatal !== undefined) throw fatal
      if (interruptedBy !== undefined) {
        throw new Stop(
          interruptedBy === 'stopped'
            ? stoppedError(context.signal)
            : limitError(interruptedBy, LIMIT_TEXT[interruptedBy](limits)),
        )
      }
      // Deliver what is ready, in call order.
      let progressed = false
      while (delivered < calls.length) {
        const call = calls[delivered]!
        if (call.answer === undefined) break
        const text = ctx.newString(JSON.stringify(call.answer))
        call.deferred.resolve(text)
        text.dispose()
        call.deferred.dispose()
        delivered++
        progressed = true
      }
      if (progressed) continue
      const state = ctx.getPromiseState(promise)
      const unsettled = calls.filter((call) => call.answer === undefined && call.waiting === undefined)
      if (state.type !== 'pending' && unsettled.length === 0) {
        const waiting = calls.filter((call) => call.waiting !== undefined).map((call) => call.waiting!)
        if (state.type === 'fulfilled') {
          const text = ctx.getString(state.value)
          state.value.dispose()
          if (waiting.length > 0) return finish({ status: 'suspended', waiting })
          const parsed = JSON.parse(text) as { ok: true; value?: JsonValue }
          if (utf8Length(text) - ENVELOPE_BYTES > limits.maxOutputBytes) {
            return finish({ status: 'failed', error: limitError('output', LIMIT_TEXT.output(limits)) })
          }
          return finish({ status: 'completed', ...('value' in parsed ? { value: parsed.value } : {}) })
        }
        const reason = slice(() => {
          const error = state.error
          const readable = ctx.typeof(error) === 'string' ? ctx.getString(error) : undefined
          if (readable !== undefined) {
            error.dispose()
            return readable
          }
          const described = ctx.unwrapResult(ctx.callFunction(describe, ctx.undefined, error))
          error.dispose()
          const out = ctx.getString(described)
          described.dispose()
          return out
        })
        if (waiting.length > 0) return finish({ status: 'suspended', waiting })
        return finish({ status: 'failed', error: scriptError(JSON.parse(reason), limits) })
      }
      if (state.type === 'fulfilled') state.value.dispose()
      else if (state.type === 'rejected') state.error.dispose()
      if (unsettled.length === 0) {
        // Nothing will arrive: the next call waits for a person (or the script awaits something that never settles).
        const waiting = calls.filter((call) => call.waiting !== undefined).map((call) => call.waiting!)
        if (waiting.length > 0) return finish({ status: 'suspended', waiting })
        return finish({
          status: 'failed',
          error: {
            kind: 'runtime',
            name: 'Error',
            message:
              'The script is waiting for a promise that can never settle (no host call is running). Await only host calls and promises that resolve.',
          },
        })
      }
      if (deadline.signal.aborted) {
        throw new Stop(
          TimeoutError.isInstance(deadline.signal.reason) && !context.signal.aborted
            ? limitError('time', LIMIT_TEXT.time(limits))
            : stoppedError(context.signal),
        )
      }
      // A running call pokes when it ends, the deadline when it passes; nothing can end in between.
      await new Promise<void>((resolve) => {
        wake = resolve
      })
    }
  } catch (error) {
    // Host calls still running are cancelled; wait for them so the recording says how they ended.
    cancel.abort(new AbortedError('The sandbox script was stopped.'))
    await settleCalls(calls)
    if (error instanceof Stop) return finish({ status: 'failed', error: error.error })
    throw error
  } finally {
    deadline.signal.removeEventListener('abort', poke)
    deadline.dispose()
    if (!broken) {
      try {
        for (const call of calls) if (call.deferred.alive) call.deferred.dispose()
        for (const handle of handles.reverse()) if (handle.alive) handle.dispose()
        vm?.dispose()
        runtime?.dispose()
      } catch {
        retire(module)
      }
    }
  }

  /** Runs one host call through the tool lifecycle (or answers it from the recording). */
  async function performCall(call: HostCall, json: string): Promise<void> {
    const toolCallId = hostCallId(call.number)
    const hostSpan = context.diagnostics.span('sandbox-host-call', {
      toolId: call.toolId,
      toolCallId,
      number: call.number,
    })
    try {
      if (call.number > limits.maxHostCalls) {
        call.answer = {
          ok: false,
          error: {
            name: 'SandboxLimitError',
            code: 'sandbox-limit',
            limit: 'hostCalls',
            toolId: call.toolId,
            message: LIMIT_TEXT.hostCalls(limits),
          },
        }
        hostSpan.end('error', { status: 'limit' })
        return
      }
      const value = JSON.parse(json) as unknown
      const recorded = journal.find(toolCallId)
      if (recorded === undefined && input.strict) {
        throw new ConflictError(
          `The replayed script made host call ${call.number} (${call.toolId}), which its recording does not have: the script did not replay the run it was recorded from. Replay the recording with the code that made it.`,
          { details: { field: 'recording.calls', toolCallId } },
        )
      }
      const callContext = { ...hostContext, diagnostics: hostSpan.diagnostics }
      const request = { toolCallId, toolId: call.toolId, input: value, runId: start.id }
      // The save-before-run stage: in an execution that saves progress, a call allowed to run is saved
      // (pending, with its invocation id, in the journal) before it runs, in the same lifecycle pass.
      // The host tool's progress reports become the code call's own (its tool-progress events).
      const progress = hostProgress(context, call.number, call.toolId)
      const options = writeAhead
        ? {
            journal,
            ...progress,
            saveBeforeRun: async () => {
              running.add(toolCallId)
              await save()
            },
          }
        : { journal, ...progress }
      const release = (pending: PendingToolCall) =>
        registry.resume(pending, { type: 'approve', toolCallId, by: 'policy' }, callContext, {
          journal,
          ...progress,
        })
      let outcome: ToolCallOutcome
      try {
        if (recorded?.status === 'pending' && running.has(toolCallId)) {
          // Saved before it ran, and the execution stopped before it settled: it runs again, same id.
          if (recorded.input !== undefined) sameInput(recorded.input, value, call, toolCallId)
          outcome = await release(recorded)
        } else {
          const decision = recorded?.status === 'pending' ? input.decisions.get(toolCallId) : undefined
          outcome =
            decision !== undefined && recorded?.status === 'pending'
              ? await registry.resume(recorded, decision, callContext, options)
              : await registry.run(request, callContext, options)
        }
      } catch (error) {
        if (ConflictError.isInstance(error)) {
          throw new ConflictError(
            `Host call ${call.number} (${call.toolId}) does not match the recording: ${error.message} The script did not replay the run it was recorded from.`,
            { cause: error, details: { field: 'recording.calls', toolCallId } },
          )
        }
        // The lifecycle refused the request itself (an input that is not JSON the tools kit accepts).
        const code = AgentCoreError.isInstance(error) ? error.code : undefined
        call.answer = {
          ok: false,
          error: {
            name: error instanceof Error ? error.name : 'Error',
            message: error instanceof Error ? error.message : String(error),
            ...(code === undefined ? {} : { code }),
            toolId: call.toolId,
          },
        }
        hostSpan.fail(error, { status: 'refused' })
        return
      }
      running.delete(toolCallId)
      if (!outcome.replayed) await save()
      switch (outcome.status) {
        case 'completed': {
          const output = outcome.record.output
          call.answer = output === undefined ? { ok: true } : { ok: true, value: output }
          break
        }
        case 'pending':
          call.waiting = outcome.record
          break
        default:
          call.answer = { ok: false, error: errorRecordToHost(outcome.record, call.toolId) }
      }
      hostSpan.end(outcome.status === 'failed' ? 'error' : 'ok', {
        status: outcome.status,
        replayed: outcome.replayed,
      })
    } catch (error) {
      hostSpan.fail(error)
      throw error
    }
  }
}

/** Refuses a re-entered call whose input is not the one saved before it ran (the script took another path). */
function sameInput(saved: JsonValue, given: unknown, call: HostCall, toolCallId: string): void {
  if (canonical(saved) !== canonical(given)) {
    throw new ConflictError(
      `Host call ${call.number} (${call.toolId}) was saved before it ran with another input: the script did not replay the run it was recorded from.`,
      { details: { field: 'recording.calls', toolCallId } },
    )
  }
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  )
}

/** Waits until no host call is still running (they were cancelled; their outcomes land in the journal). */
async function settleCalls(calls: readonly HostCall[]): Promise<void> {
  await Promise.all(calls.map((call) => call.done))
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

/** Hands a host call's progress reports to the code call's reporter, tagged with the host call. */
function hostProgress(
  context: OperationContext<unknown>,
  hostCall: number,
  toolId: string,
): { progress?: ToolProgressReporter } {
  const report = (context as Partial<ToolExecutionContext>).progress
  if (typeof report !== 'function') return {}
  return {
    progress: (update) =>
      report({
        ...update,
        data: { hostCall, toolId, ...(update.data === undefined ? {} : { data: update.data }) },
      }),
  }
}
