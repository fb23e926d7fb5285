import { describeValue, FieldReader, InvalidInputError, refuseField } from '@agent-core/core'
import type { AgentEvent } from '@agent-core/kits/loop'
import type { AgentUIChunk, AgentUIMetadata } from './ui-message-chunk.js'

/**
 * How {@link toUIMessageStream} writes a run.
 * @example
 * ```ts
 * import type { ToUIMessageStreamOptions } from '@agent-core/kits/ui'
 * const options: ToUIMessageStreamOptions = { sendReasoning: false, progress: 'transient' }
 * ```
 */
export interface ToUIMessageStreamOptions {
  /** The assistant message's id, sent in the `start` chunk. Default: none (the client picks one, or keeps the message it continues). */
  readonly messageId?: string | undefined
  /** Send the model's reasoning as `reasoning` parts. Default true. */
  readonly sendReasoning?: boolean | undefined
  /** Send the `start` chunk (false when this stream is merged into another). Default true. */
  readonly sendStart?: boolean | undefined
  /** Send the `finish` chunk (false when this stream is merged into another). Default true. */
  readonly sendFinish?: boolean | undefined
  /**
   * Tool progress: `part` (a `data-tool-progress` part per call, each report replacing the last one),
   * `transient` (the same chunks marked transient: the client's `onData` sees them, the message keeps
   * none) or `none`. Default `part`.
   */
  readonly progress?: 'part' | 'transient' | 'none' | undefined
  /**
   * The text the page reads for a run that failed (`run-done` with reason `error`) or an event stream that
   * threw. Default: `"The run failed."` (error messages may carry what a page should not show).
   */
  readonly onError?: ((error: unknown) => string) | undefined
}

type FinishReason = Extract<AgentUIChunk, { type: 'finish' }>['finishReason']

const FINISH: Record<NonNullable<AgentUIMetadata['reason']>, FinishReason> = {
  final: 'stop',
  'turn-limit': 'length',
  'token-limit': 'length',
  stopped: 'other',
  error: 'error',
  suspended: 'tool-calls',
  guardrail: 'other',
}

const OPTION_FIELDS = ['messageId', 'sendReasoning', 'sendStart', 'sendFinish', 'progress', 'onError']
const PROGRESS = ['part', 'transient', 'none'] as const
const PREFIX = Object.freeze({ prefix: 'toUIMessageStream: ' })

function readOptions(options: unknown): Required<Omit<ToUIMessageStreamOptions, 'messageId'>> & {
  messageId: string | undefined
} {
  const fields = new FieldReader(
    options ?? {},
    'options',
    'an object { messageId?, sendReasoning?, ... }',
    'input',
    PREFIX,
  )
  const given = (options ?? {}) as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!OPTION_FIELDS.includes(key)) {
      throw new InvalidInputError(
        `toUIMessageStream options have no field "${key}"; the fields are ${OPTION_FIELDS.join(', ')}.`,
        { details: { field: `options.${key}`, received: describeValue(given[key]) } },
      )
    }
  }
  const messageId = fields.string('messageId')
  const progress = fields.oneOf('progress', PROGRESS) ?? 'part'
  const onError = fields.func<(error: unknown) => string>('onError') ?? (() => 'The run failed.')
  return {
    messageId,
    sendReasoning: fields.boolean('sendReasoning') ?? true,
    sendStart: fields.boolean('sendStart') ?? true,
    sendFinish: fields.boolean('sendFinish') ?? true,
    progress,
    onError,
  }
}

/**
 * Folds a run's events, one at a time, into UI message chunks: the step, text and reasoning parts it has
 * open, and which replies were streamed. One per stream.
 */
class ChunkWriter {
  #step = false
  #text: string | undefined
  #reasoning: string | undefined
  #parts = 0
  #streamed = new Set<number>()
  #runId: string | undefined
  #turns = 0
  readonly #out: AgentUIChunk[] = []
  constructor(readonly options: ReturnType<typeof readOptions>) {}

  /** The chunks one event makes. */
  write(event: AgentEvent): AgentUIChunk[] {
    this.#out.length = 0
    this.#add(event)
    return [...this.#out]
  }

  /** The chunks that end a stream whose events threw. */
  fail(error: unknown): AgentUIChunk[] {
    this.#out.length = 0
    this.#closeStep()
    this.#out.push({ type: 'error', errorText: this.#errorText(error) })
    if (this.options.sendFinish) this.#out.push({ type: 'finish', finishReason: 'error' })
    return [...this.#out]
  }

  #errorText(error: unknown): string {
    const text = this.options.onError(error)
    if (typeof text !== 'string') {
      throw new InvalidInputError(
        `options.onError must return the error text as a string, but returned ${describeValue(text)}.`,
        { details: { field: 'options.onError', received: describeValue(text) } },
      )
    }
    return text
  }

  #openStep(): void {
    if (this.#step) return
    this.#out.push({ type: 'start-step' })
    this.#step = true
  }
  #closeText(): void {
    if (this.#text === undefined) return
    this.#out.push({ type: 'text-end', id: this.#text })
    this.#text = undefined
  }
  #closeReasoning(): void {
    if (this.#reasoning === undefined) return
    this.#out.push({ type: 'reasoning-end', id: this.#reasoning })
    this.#reasoning = undefined
  }
  #closeStep(): void {
    this.#closeText()
    this.#closeReasoning()
    if (!this.#step) return
    this.#out.push({ type: 'finish-step' })
    this.#step = false
  }
  #textDelta(turn: number, delta: string): void {
    this.#openStep()
    this.#closeReasoning()
    if (this.#text === undefined) {
      this.#text = `text-${turn}-${++this.#parts}`
      this.#out.push({ type: 'text-start', id: this.#text })
    }
    this.#out.push({ type: 'text-delta', id: this.#text, delta })
  }
  #finish(reason: NonNullable<AgentUIMetadata['reason']>, metadata: AgentUIMetadata): void {
    this.#closeStep()
    if (this.options.sendFinish)
      this.#out.push({ type: 'finish', finishReason: FINISH[reason], messageMetadata: metadata })
  }

  #add(event: AgentEvent): void {
    switch (event.type) {
      case 'run-start':
        this.#runId = event.runId
        this.#turns = event.turns
        if (this.options.sendStart) {
          this.#out.push({
            type: 'start',
            ...(this.options.messageId === undefined ? {} : { messageId: this.options.messageId }),
            messageMetadata: { runId: event.runId },
          })
        }
        return
      case 'turn-start':
        this.#turns = event.turn
        this.#closeStep()
        this.#openStep()
        return
      case 'text-delta':
        this.#streamed.add(event.turn)
        this.#textDelta(event.turn, event.text)
        return
      case 'thinking-delta':
        if (!this.options.sendReasoning) return
        this.#openStep()
        this.#closeText()
        if (this.#reasoning === undefined) {
          this.#reasoning = `reasoning-${event.turn}-${++this.#parts}`
          this.#out.push({ type: 'reasoning-start', id: this.#reasoning })
        }
        this.#out.push({ type: 'reasoning-delta', id: this.#reasoning, delta: event.text })
        return
      case 'text-flush':
        // A model without `stream` answers in one piece: its text comes only here.
        if (!this.#streamed.has(event.turn)) this.#textDelta(event.turn, event.text)
        this.#closeText()
        this.#closeReasoning()
        return
      case 'tool-start':
        this.#openStep()
        this.#closeText()
        this.#closeReasoning()
        this.#out.push(
          event.input === undefined
            ? {
                type: 'tool-input-error',
                toolCallId: event.toolCallId,
                toolName: event.toolId,
                input: event.arguments,
                errorText: 'The arguments are not JSON.',
              }
            : {
                type: 'tool-input-available',
                toolCallId: event.toolCallId,
                toolName: event.toolId,
                input: event.input,
              },
        )
        return
      case 'tool-awaiting-approval':
        this.#openStep()
        this.#out.push({
          type: 'tool-approval-request',
          approvalId: event.toolCallId,
          toolCallId: event.toolCallId,
          reason: event.reason,
        })
        return
      case 'tool-progress': {
        if (this.options.progress === 'none') return
        this.#openStep()
        const data = {
          toolCallId: event.toolCallId,
          toolId: event.toolId,
          sequence: event.sequence,
          ...(event.message === undefined ? {} : { message: event.message }),
          ...(event.ratio === undefined ? {} : { ratio: event.ratio }),
          ...(event.data === undefined ? {} : { data: event.data }),
        }
        this.#out.push({
          type: 'data-tool-progress',
          id: `progress-${event.toolCallId}`,
          data,
          ...(this.options.progress === 'transient' ? { transient: true } : {}),
        })
        return
      }
      case 'tool-resolved':
        this.#openStep()
        this.#out.push({
          type: 'tool-output-available',
          toolCallId: event.toolCallId,
          output: event.output === undefined ? event.content : event.output,
        })
        return
      case 'tool-rejected':
        this.#openStep()
        this.#out.push(
          event.by === 'person'
            ? { type: 'tool-output-denied', toolCallId: event.toolCallId }
            : { type: 'tool-output-error', toolCallId: event.toolCallId, errorText: event.reason },
        )
        return
      case 'tool-failed':
      case 'tool-aborted':
        this.#openStep()
        this.#out.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: event.content })
        return
      case 'run-aborted':
        this.#closeStep()
        this.#out.push({
          type: 'abort',
          ...(event.reason instanceof Error ? { reason: event.reason.message } : {}),
        })
        return
      case 'run-suspended':
        this.#finish('suspended', {
          ...(this.#runId === undefined ? {} : { runId: this.#runId }),
          reason: 'suspended',
          usage: event.usage,
          turns: event.state.turns,
        })
        return
      case 'run-done':
        if (event.reason === 'error') {
          this.#closeStep()
          this.#out.push({ type: 'error', errorText: this.#errorText(event.error) })
        }
        this.#finish(event.reason, {
          ...(this.#runId === undefined ? {} : { runId: this.#runId }),
          reason: event.reason,
          usage: event.usage,
          turns: event.turns,
        })
        return
      default:
        // tool-approved, tool-awaiting-answer, caps and answer retries have no chunk of their own: the
        // tool part keeps its state, the finish chunk says why the run ended.
        return
    }
  }
}

/**
 * An agent run's events as the AI SDK UI message stream (`ai` 7.x): a `start` chunk with the run's id,
 * a step per model call (`start-step` / `finish-step`), the reply's text and reasoning parts, each tool
 * call's input, its approval request (`approvalId` is the tool-call id), its output, error or denial, its
 * progress as a `data-tool-progress` part, and a `finish` chunk whose metadata carries why the run ended,
 * its usage and its turns (`abort` before it for a stopped run, `error` for a failed one). Read it with
 * `readUIMessageStream` from `ai`, or send it to `useChat` with {@link toUIMessageStreamResponse}.
 * Cancelling the stream stops reading; it does not stop the run (stop it with its context's signal).
 * @throws `InvalidInputError` for events that are not an async iterable, or bad options
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { toUIMessageStream } from '@agent-core/kits/ui'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * const stream = toUIMessageStream(agent.stream({ prompt: 'Hi' }))
 * const reader = stream.getReader()
 * for (let next = await reader.read(); !next.done; next = await reader.read())
 *   if (next.value.type === 'text-delta') process.stdout.write(next.value.delta)
 * ```
 */
export function toUIMessageStream(
  events: AsyncIterable<AgentEvent>,
  options?: ToUIMessageStreamOptions,
): ReadableStream<AgentUIChunk> {
  if (
    typeof events !== 'object' ||
    events === null ||
    typeof (events as Partial<AsyncIterable<AgentEvent>>)[Symbol.asyncIterator] !== 'function'
  ) {
    refuseField(
      'input',
      'events',
      `must be a run's events (agent.stream(request), an async iterable), but got ${describeValue(events)}`,
      events,
      PREFIX,
    )
  }
  const writer = new ChunkWriter(readOptions(options))
  let iterator: AsyncIterator<AgentEvent> | undefined
  return new ReadableStream<AgentUIChunk>({
    async pull(controller) {
      iterator ??= events[Symbol.asyncIterator]()
      for (;;) {
        let next: IteratorResult<AgentEvent>
        try {
          next = await iterator.next()
        } catch (error) {
          for (const chunk of writer.fail(error)) controller.enqueue(chunk)
          controller.close()
          return
        }
        if (next.done) {
          controller.close()
          return
        }
        const chunks = writer.write(next.value)
        if (chunks.length === 0) continue
        for (const chunk of chunks) controller.enqueue(chunk)
        return
      }
    },
    async cancel() {
      await iterator?.return?.()
    },
  })
}
