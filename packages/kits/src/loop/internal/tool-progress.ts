import { type ChatMessage, refuseField, type ToolMessage } from '@agent-core/core'
import type { ToolProgressReporter, ToolProgressUpdate } from '@agent-core/core/tools'
import type {
  ToolCallOutcome,
  ToolCallRequest,
  ToolCallState,
  ToolLifecycleRegistry,
  ToolRunOptions,
} from '@agent-core/kits/tools'
import type { AgentEvent } from '../events.js'
import { jsonProblem } from './engine-host.js'

interface CallProgress {
  readonly toolId: string
  sequence: number
  settled: boolean
  /** Messages of reports made with `keep: true`, for the history. */
  readonly kept: string[]
}

/**
 * The options with a progress reporter: copied, then the reporter stored (not `{ ...options, progress }`,
 * for which V8 makes a new hidden class on every call).
 */
function withProgress(options: ToolRunOptions | undefined, progress: ToolProgressReporter): ToolRunOptions {
  const copy: { -readonly [K in keyof ToolRunOptions]: ToolRunOptions[K] } = Object.assign({}, options)
  copy.progress = progress
  return copy
}

/** The registry calls the run makes; {@link ToolProgressChannel.registry} adds each call's reporter to them. */
export type ProgressRegistry = Pick<ToolLifecycleRegistry<unknown>, 'run' | 'resume'>

/**
 * One run's tool progress: each call's reports become `tool-progress` events, in the order the tool made
 * them, numbered from 1; once the call settled its reports are dropped. Reports made with `keep: true`
 * are written before the call's result in the tool message the model reads (nothing else of progress
 * reaches the history, nor the saved state: a resumed run replays none).
 */
export class ToolProgressChannel {
  readonly #calls = new Map<string, CallProgress>()
  readonly #emit: (event: AgentEvent) => void

  constructor(emit: (event: AgentEvent) => void) {
    this.#emit = emit
  }

  /** The reporter of one call (the same while it has not settled: an approved call that runs keeps its count). */
  reporter(toolCallId: string, toolId: string): ToolProgressReporter {
    let call = this.#calls.get(toolCallId)
    if (call === undefined || call.settled) {
      call = { toolId, sequence: 0, settled: false, kept: [] }
      this.#calls.set(toolCallId, call)
    }
    const entry = call
    return (update: ToolProgressUpdate) => {
      if (entry.settled) return
      const { message, ratio, data, keep } = update
      let copy: ToolProgressUpdate['data']
      if (data !== undefined) {
        const problem = jsonProblem(data, 'update.data')
        if (problem !== undefined) {
          refuseField(
            'input',
            'update.data',
            `is not plain JSON (${problem}). Report JSON data, or a message`,
            data,
            { prefix: `Tool "${toolId}" reported progress whose `, details: { toolId }, received: problem },
          )
        }
        copy = JSON.parse(JSON.stringify(data))
      }
      entry.sequence++
      if (keep === true && message !== undefined && message !== '') entry.kept.push(message)
      this.#emit({
        type: 'tool-progress',
        toolCallId,
        toolId,
        sequence: entry.sequence,
        ...(message === undefined ? {} : { message }),
        ...(ratio === undefined ? {} : { ratio }),
        ...(copy === undefined ? {} : { data: copy as never }),
      })
    }
  }

  /** The agent's registry, each call given its reporter. */
  registry(registry: ProgressRegistry): ProgressRegistry {
    return {
      run: (request: ToolCallRequest, context, options?: ToolRunOptions): Promise<ToolCallOutcome> =>
        registry.run(
          request,
          context,
          withProgress(options, this.reporter(request.toolCallId, request.toolId)),
        ),
      resume: (state: ToolCallState, decision, context, options?: ToolRunOptions) =>
        registry.resume(
          state,
          decision,
          context,
          withProgress(options, this.reporter(state.toolCallId, state.toolId)),
        ),
    } as ProgressRegistry
  }

  /**
   * Marks a call settled (its later reports are dropped) and returns the tool message the history gets:
   * the kept reports' messages, then the call's result.
   */
  settle<Message extends ChatMessage>(toolCallId: string, message: Message): Message {
    const call = this.#calls.get(toolCallId)
    if (call === undefined) return message
    call.settled = true
    this.#calls.delete(toolCallId)
    if (call.kept.length === 0 || message.role !== 'tool') return message
    const tool = message as ToolMessage
    const lines = call.kept.map((line) => `[progress] ${line}`).join('\n')
    return Object.freeze({ ...tool, content: `${lines}\n${tool.content}` }) as unknown as Message
  }
}
