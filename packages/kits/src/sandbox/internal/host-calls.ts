/**
 * The host calls of one execution: each runs on the host through the tool lifecycle (or answers from the
 * recording), in the journal the recording is made of. The script's engine only ever sees their answers,
 * as JSON text the host has sized.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { AgentCoreError, ConflictError, canonicalJson, type OperationContext } from '@agent-core/core'
import type { ToolExecutionContext, ToolProgressReporter } from '@agent-core/core/tools'
import {
  type JsonValue,
  type PendingToolCall,
  ToolCallJournal,
  type ToolCallOutcome,
  type ToolCallState,
} from '@agent-core/kits/tools'
import type { SandboxRecording } from '../sandbox-recording.js'
import type { ExecutionInput } from './execution.js'

/** The execution a host call runs in: tools that start a sandbox themselves nest it inside this one. */
export interface Nesting {
  /** How many executions the current one is nested in (0 at the top). */
  readonly depth: number
  /** The outer execution's host-call signal: a nested execution stops with it. */
  readonly signal: AbortSignal
}

/** Which execution is running the current host call, if any. */
export const nesting = new AsyncLocalStorage<Nesting>()

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
}

/**
 * How host-call ids are written and read: sandbox-recording.ts's `hostCallId` and `hostCallNumber`, which
 * the caller passes in (`ExecutionInput.hostCallIds`). Imported here, sandbox-recording.ts (and what it
 * imports) would be a module the runtime shares with the kit's entry, and the bundler would make it a
 * chunk of its own: one module more in every cold import of the subpath.
 */
export interface HostCallIds {
  /** The tool-call id of the `index`-th host call (from 1). */
  readonly id: (index: number) => string
  /** The number of a host call's tool-call id, `undefined` for any other id. */
  readonly number: (toolCallId: string) => number | undefined
}

/** A host call the script made. */
export interface HostCall {
  readonly number: number
  readonly toolId: string
  /** Settles once the call has an answer for the script, or waits for a person. */
  done: Promise<void>
  /** The answer's JSON text, once there is one. */
  answer: string | undefined
  waiting: PendingToolCall | undefined
}

const encoder = new TextEncoder()
/** UTF-8 length of a string (ASCII fast path). */
export function utf8Length(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  return text.length
}

/** The host calls of one execution, its journal and its recording. */
export class HostCalls {
  readonly calls: HostCall[] = []
  readonly #journal: ToolCallJournal
  /** Host calls saved before they ran and not settled yet. */
  readonly #running: Set<string>
  readonly #input: ExecutionInput
  readonly #context: OperationContext<unknown>
  #saving: Promise<unknown> = Promise.resolve()
  /** Bytes of host-call inputs and answers so far (what the recording holds). */
  bytes = 0
  /** A failure that ends the execution with a rejection (the script left its recording). */
  fatal: unknown

  constructor(input: ExecutionInput, context: OperationContext<unknown>) {
    this.#input = input
    this.#context = context
    this.#journal = new ToolCallJournal(input.start.calls)
    this.#running = new Set(input.start.running ?? [])
  }

  /** The recording as it is now. */
  recording(): SandboxRecording {
    const ids = this.#input.hostCallIds
    const states = this.#journal
      .states()
      .filter((state) => ids.number(state.toolCallId) !== undefined)
      .sort((a, b) => ids.number(a.toolCallId)! - ids.number(b.toolCallId)!)
    const { running: _previous, signature: _signature, ...rest } = this.#input.start
    return Object.freeze({
      ...rest,
      calls: Object.freeze(states),
      ...(this.#running.size === 0 ? {} : { running: Object.freeze([...this.#running]) }),
    })
  }

  /** The calls that wait for a person. */
  waiting(): PendingToolCall[] {
    return this.calls.filter((call) => call.waiting !== undefined).map((call) => call.waiting!)
  }

  /** Saves the recording as it is now, after the saves already queued. */
  #save(): Promise<unknown> {
    const onProgress = this.#input.onProgress
    if (onProgress === undefined) return Promise.resolve()
    this.#saving = this.#saving.then(() => onProgress(this.recording()))
    return this.#saving
  }

  /**
   * Starts host call `number` with the script's input `json` (its size was checked in the engine), in
   * `hostContext` (its signal cancels the call); `settled` hears when it has an answer or waits.
   */
  start(
    number: number,
    toolId: string,
    json: string,
    hostContext: OperationContext<unknown>,
    depth: number,
    settled: (call: HostCall) => void,
  ): void {
    const call: HostCall = { number, toolId, done: Promise.resolve(), answer: undefined, waiting: undefined }
    this.calls.push(call)
    this.bytes += utf8Length(json)
    const store: Nesting = { depth: depth + 1, signal: hostContext.signal }
    call.done = nesting
      .run(store, () => this.#perform(call, json, hostContext))
      .then(
        () => settled(call),
        (error: unknown) => {
          this.fatal ??= error
          settled(call)
        },
      )
  }

  /** Waits until no host call is still running (cancelled ones land in the journal as they end). */
  async settle(): Promise<void> {
    await Promise.all(this.calls.map((call) => call.done))
  }

  #answer(call: HostCall, envelope: Envelope): void {
    const text = JSON.stringify(envelope)
    this.bytes += utf8Length(text)
    call.answer = text
  }

  /** Runs one host call through the tool lifecycle (or answers it from the recording). */
  async #perform(call: HostCall, json: string, hostContext: OperationContext<unknown>): Promise<void> {
    const toolCallId = this.#input.hostCallIds.id(call.number)
    const hostSpan = this.#context.diagnostics.span('sandbox-host-call', {
      toolId: call.toolId,
      toolCallId,
      number: call.number,
    })
    try {
      const outcome = await this.#outcome(call, json, toolCallId, {
        ...hostContext,
        diagnostics: hostSpan.diagnostics,
      })
      if (outcome instanceof Error) {
        hostSpan.fail(outcome, { status: 'refused' })
        return
      }
      this.#running.delete(toolCallId)
      if (!outcome.replayed) await this.#save()
      switch (outcome.status) {
        case 'completed': {
          const output = outcome.record.output
          this.#answer(call, output === undefined ? { ok: true } : { ok: true, value: output })
          break
        }
        case 'pending':
          call.waiting = outcome.record
          break
        default:
          this.#answer(call, { ok: false, error: errorRecordToHost(outcome.record, call.toolId) })
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

  /** The lifecycle's outcome of a call, or the error it refused the request with (answered to the script). */
  async #outcome(
    call: HostCall,
    json: string,
    toolCallId: string,
    callContext: OperationContext<unknown>,
  ): Promise<ToolCallOutcome | Error> {
    const { registry, strict, decisions, start } = this.#input
    const value = JSON.parse(json) as unknown
    const journal = this.#journal
    const recorded = journal.find(toolCallId)
    if (recorded === undefined && strict) {
      throw new ConflictError(
        `The replayed script made host call ${call.number} (${call.toolId}), which its recording does not have: the script did not replay the run it was recorded from. Replay the recording with the code that made it.`,
        { details: { field: 'recording.calls', toolCallId } },
      )
    }
    const request = { toolCallId, toolId: call.toolId, input: value, runId: start.id }
    // The save-before-run stage: in an execution that saves progress, a call allowed to run is saved
    // (pending, with its invocation id, in the journal) before it runs, in the same lifecycle pass.
    // The host tool's progress reports become the code call's own (its tool-progress events).
    const progress = hostProgress(this.#context, call.number, call.toolId)
    const options =
      this.#input.onProgress !== undefined
        ? {
            journal,
            ...progress,
            saveBeforeRun: async () => {
              this.#running.add(toolCallId)
              await this.#save()
            },
          }
        : { journal, ...progress }
    try {
      if (recorded?.status === 'pending' && this.#running.has(toolCallId)) {
        // Saved before it ran, and the execution stopped before it settled: it runs again, same id.
        if (recorded.input !== undefined) sameInput(recorded.input, value, call, toolCallId)
        return await registry.resume(recorded, { type: 'approve', toolCallId, by: 'policy' }, callContext, {
          journal,
          ...progress,
        })
      }
      const decision = recorded?.status === 'pending' ? decisions.get(toolCallId) : undefined
      return decision !== undefined && recorded?.status === 'pending'
        ? await registry.resume(recorded, decision, callContext, options)
        : await registry.run(request, callContext, options)
    } catch (error) {
      if (ConflictError.isInstance(error)) {
        throw new ConflictError(
          `Host call ${call.number} (${call.toolId}) does not match the recording: ${error.message} The script did not replay the run it was recorded from.`,
          { cause: error, details: { field: 'recording.calls', toolCallId } },
        )
      }
      // The lifecycle refused the request itself (an input that is not JSON the tools kit accepts).
      const code = AgentCoreError.isInstance(error) ? error.code : undefined
      this.#answer(call, {
        ok: false,
        error: {
          name: error instanceof Error ? error.name : 'Error',
          message: error instanceof Error ? error.message : String(error),
          ...(code === undefined ? {} : { code }),
          toolId: call.toolId,
        },
      })
      return error instanceof Error ? error : new Error(String(error))
    }
  }
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

/** Refuses a re-entered call whose input is not the one saved before it ran (the script took another path). */
function sameInput(saved: JsonValue, given: unknown, call: HostCall, toolCallId: string): void {
  if (canonicalJson(saved) !== canonicalJson(given)) {
    throw new ConflictError(
      `Host call ${call.number} (${call.toolId}) was saved before it ran with another input: the script did not replay the run it was recorded from.`,
      { details: { field: 'recording.calls', toolCallId } },
    )
  }
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
