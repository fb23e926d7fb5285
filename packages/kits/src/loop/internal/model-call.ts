import {
  type AssistantMessage,
  abortedError,
  type ChatModel,
  consumeRejection,
  deadlineSignal,
  describeValue,
  type FinishReason,
  isRecord,
  type ModelRequest,
  type ModelResponse,
  ModelStreamAccumulator,
  type ModelStreamEvent,
  type ModelUsage,
  type OperationContext,
  raceSignal,
  refuseField,
  type ThinkingBlock,
  TimeoutError,
  type ToolCall,
  ZERO_USAGE,
} from '@agent-core/core'
import { ModelProviderError } from '@agent-core/kits/models'

/** One complete reply of the model. */
export interface ModelReply {
  readonly message: AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: ModelUsage
}

/** Where the streamed parts of a reply go while it arrives. */
export interface ReplySink {
  text(delta: string): void
  thinking(delta: string): void
}

const FINISH_REASONS: readonly string[] = ['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']

function badOutput(hook: string, what: string, value: unknown): never {
  refuseField(
    'output',
    hook,
    `${what}, but got ${describeValue(value)}. A chat model answers core's ModelStreamEvent / ModelResponse shapes`,
    value,
    { details: { hook } },
  )
}

function readUsage(value: unknown, hook: string): ModelUsage {
  if (!isRecord(value))
    return badOutput(hook, 'must report usage { inputTokens, outputTokens, totalTokens }', value)
  const { inputTokens, outputTokens, totalTokens, cacheReadTokens, cacheWriteTokens } = value
  for (const count of [inputTokens, outputTokens, totalTokens]) {
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
      badOutput(hook, 'must report token counts as finite numbers of at least 0', count)
    }
  }
  for (const count of [cacheReadTokens, cacheWriteTokens]) {
    if (count !== undefined && (typeof count !== 'number' || !Number.isFinite(count) || count < 0)) {
      badOutput(
        hook,
        'must report cache token counts as finite numbers of at least 0 or leave them out',
        count,
      )
    }
  }
  return {
    inputTokens: inputTokens as number,
    outputTokens: outputTokens as number,
    totalTokens: totalTokens as number,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens: cacheReadTokens as number }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens: cacheWriteTokens as number }),
  }
}

function readThinkingBlock(value: unknown, hook: string): ThinkingBlock {
  if (
    !isRecord(value) ||
    typeof value.text !== 'string' ||
    (value.signature !== undefined && typeof value.signature !== 'string') ||
    (value.redacted !== undefined && typeof value.redacted !== 'string')
  ) {
    return badOutput(hook, 'must give thinking blocks as { text, signature?, redacted? } strings', value)
  }
  return Object.freeze({
    text: value.text,
    ...(value.signature === undefined ? {} : { signature: value.signature }),
    ...(value.redacted === undefined ? {} : { redacted: value.redacted }),
  })
}

function readCall(value: unknown, hook: string): ToolCall {
  if (
    !isRecord(value) ||
    typeof value.id !== 'string' ||
    typeof value.name !== 'string' ||
    typeof value.arguments !== 'string'
  ) {
    return badOutput(hook, 'must give tool calls as { id, name, arguments } strings', value)
  }
  return { id: value.id, name: value.name, arguments: value.arguments }
}

/** Checks each streamed event's shape, then folds it with core's accumulator (the stream's one fold). */
class ReplyBuilder {
  readonly #reply = new ModelStreamAccumulator()

  constructor(
    readonly hook: string,
    readonly sink: ReplySink,
  ) {}

  add(event: ModelStreamEvent): void {
    const hook = this.hook
    const reply = this.#reply
    if (!isRecord(event)) badOutput(hook, 'must yield stream events', event)
    switch (event.type) {
      case 'text-delta':
        if (typeof event.text !== 'string')
          badOutput(hook, 'must give a text-delta text as a string', event.text)
        if (event.text !== '') {
          reply.add(event)
          this.sink.text(event.text)
        }
        return
      case 'thinking-delta':
        if (typeof event.text !== 'string')
          badOutput(hook, 'must give a thinking-delta text as a string', event.text)
        if (event.text !== '') {
          reply.add(event)
          this.sink.thinking(event.text)
        }
        return
      case 'thinking-end':
        reply.add({ type: 'thinking-end', block: readThinkingBlock(event.block, hook) })
        return
      case 'tool-call-start':
        if (
          !Number.isSafeInteger(event.index) ||
          typeof event.id !== 'string' ||
          typeof event.name !== 'string'
        ) {
          badOutput(hook, 'must give a tool-call-start an integer index, an id and a name', event)
        }
        reply.add(event)
        return
      case 'tool-call-delta':
        if (!reply.hasCall(event.index) || typeof event.argumentsDelta !== 'string') {
          badOutput(
            hook,
            'must start a tool call (tool-call-start) before its argument deltas, given as strings',
            event,
          )
        }
        reply.add(event)
        return
      case 'tool-call-end':
        if (!Number.isSafeInteger(event.index))
          badOutput(hook, 'must give a tool-call-end an integer index', event.index)
        reply.add({ type: 'tool-call-end', index: event.index, call: readCall(event.call, hook) })
        return
      case 'finish':
        if (!FINISH_REASONS.includes(event.finishReason))
          badOutput(hook, 'must give a known finish reason', event.finishReason)
        reply.add({ type: 'finish', finishReason: event.finishReason, usage: readUsage(event.usage, hook) })
        return
      default:
        badOutput(hook, 'yielded an event of unknown type', (event as { type?: unknown }).type)
    }
  }

  reply(): ModelReply {
    const reply = this.#reply
    const finish = reply.finish
    if (finish === undefined) {
      throw new ModelProviderError(
        `The model's stream ended without a finish event, so its reply is incomplete (${reply.text.length} characters and ${reply.callCount} tool call(s) so far). It is not taken as an answer.`,
        { kind: 'invalid-response' },
      )
    }
    const toolCalls = reply.toolCalls.map((call) => Object.freeze(call))
    return {
      message: assistantMessage(reply.text, toolCalls, reply.thinking, [...reply.thinkingBlocks]),
      finishReason: finish.finishReason,
      usage: finish.usage,
    }
  }
}

function assistantMessage(
  text: string,
  toolCalls: readonly ToolCall[],
  thinking: string,
  thinkingBlocks: readonly ThinkingBlock[],
): AssistantMessage {
  return Object.freeze({
    role: 'assistant',
    content: text,
    ...(toolCalls.length > 0 ? { toolCalls: Object.freeze(toolCalls) } : {}),
    ...(thinking !== '' ? { thinking } : {}),
    ...(thinkingBlocks.length > 0 ? { thinkingBlocks: Object.freeze(thinkingBlocks) } : {}),
  })
}

function readResponse(value: unknown, hook: string, sink: ReplySink): ModelReply {
  if (!isRecord(value) || !isRecord(value.message))
    return badOutput(hook, 'must resolve to a ModelResponse { message, finishReason, usage }', value)
  const { message } = value
  if (typeof message.content !== 'string')
    badOutput(hook, 'must give the reply text as message.content', message.content)
  if (message.thinking !== undefined && typeof message.thinking !== 'string')
    badOutput(hook, 'must give message.thinking as a string', message.thinking)
  if (message.toolCalls !== undefined && !Array.isArray(message.toolCalls))
    badOutput(hook, 'must give message.toolCalls as an array', message.toolCalls)
  if (message.thinkingBlocks !== undefined && !Array.isArray(message.thinkingBlocks))
    badOutput(hook, 'must give message.thinkingBlocks as an array', message.thinkingBlocks)
  const blocks = ((message.thinkingBlocks as unknown[] | undefined) ?? []).map((block) =>
    readThinkingBlock(block, hook),
  )
  const finishReason = value.finishReason
  if (typeof finishReason !== 'string' || !FINISH_REASONS.includes(finishReason))
    badOutput(hook, 'must give a known finish reason', finishReason)
  const calls = ((message.toolCalls as unknown[] | undefined) ?? []).map((call) =>
    Object.freeze(readCall(call, hook)),
  )
  const usage = readUsage(value.usage ?? ZERO_USAGE, hook)
  if (typeof message.thinking === 'string' && message.thinking !== '') sink.thinking(message.thinking)
  if (message.content !== '') sink.text(message.content as string)
  return {
    message: assistantMessage(
      message.content as string,
      calls,
      (message.thinking as string | undefined) ?? '',
      blocks,
    ),
    finishReason: finishReason as FinishReason,
    usage,
  }
}

/**
 * Calls the model once: streamed when it can stream, within the call's time limit and the run's signal (a
 * model that ignores its signal cannot hold the run). A stream that breaks off, or ends without its finish
 * event, is an error: a partial reply is never taken as complete.
 */
export async function callModel(
  model: ChatModel<unknown>,
  request: ModelRequest,
  context: OperationContext<unknown>,
  deadline: CallDeadline,
  idleTimeoutMs: number | undefined,
  sink: ReplySink,
  what: string,
): Promise<ModelReply> {
  const signal = deadline.signal
  const callContext: OperationContext<unknown> = { ...context, signal }
  const point = deadline.point
  try {
    if (typeof model.stream !== 'function') {
      const hook = `${what} generate`
      const response: ModelResponse = await Promise.race([
        Promise.resolve().then(() => model.generate(request, callContext)),
        deadline.stopped,
      ])
      const reply = readResponse(response, hook, sink)
      if (reply.finishReason === 'error') failedFinish(what)
      return reply
    }
    const hook = `${what} stream`
    const stream: unknown = model.stream(request, callContext)
    const open =
      typeof stream === 'object' && stream !== null
        ? (stream as Partial<AsyncIterable<ModelStreamEvent>>)[Symbol.asyncIterator]
        : undefined
    if (typeof open !== 'function')
      return badOutput(hook, 'must return an async iterable of stream events', stream)
    const iterator: AsyncIterator<ModelStreamEvent> = open.call(stream)
    if (!isRecord(iterator) || typeof iterator.next !== 'function') {
      return badOutput(hook, 'must return an async iterable whose iterator has next()', iterator)
    }
    const builder = new ReplyBuilder(hook, sink)
    let finished = false
    try {
      for (;;) {
        const step =
          idleTimeoutMs === undefined
            ? await Promise.race([iterator.next(), deadline.stopped])
            : await idleNext(iterator, signal, idleTimeoutMs, point, what)
        if (step.done) {
          finished = true
          break
        }
        builder.add(step.value)
      }
    } finally {
      if (!finished) {
        try {
          consumeRejection(iterator.return?.())
        } catch {
          // A stream whose return throws: nothing more to close.
        }
      }
    }
    const reply = builder.reply()
    if (reply.finishReason === 'error') failedFinish(what)
    return reply
  } finally {
    deadline.dispose()
  }
}

/**
 * The signal and time limit of one model call. It aborts at the time limit (a `TimeoutError` reason) or
 * when its run stops; `stopped` rejects at the same moment, so each wait on the model races one promise
 * instead of adding and removing a listener. The run links it to its own signal (see `stop`), so a call
 * costs no listener on the run's signal either.
 */
export class CallDeadline {
  readonly #controller = new AbortController()
  readonly stopped: Promise<never>
  readonly point: string
  #reject: (reason: unknown) => void = NOOP
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #onDone: (deadline: CallDeadline) => void

  constructor(timeoutMs: number, what: string, onDone: (deadline: CallDeadline) => void) {
    this.point = `waiting for ${what}`
    this.#onDone = onDone
    this.stopped = new Promise<never>((_resolve, reject) => {
      this.#reject = reject
    })
    this.stopped.catch(NOOP)
    this.#timer = setTimeout(() => {
      this.stop(
        new TimeoutError(`${what} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs, what } }),
      )
    }, timeoutMs)
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Aborts the call with `reason` (its run stopped, or the time limit). */
  stop(reason: unknown): void {
    if (this.#controller.signal.aborted) return
    this.#controller.abort(reason)
    this.#reject(abortedError(this.#controller.signal, this.point))
    clearTimeout(this.#timer)
  }

  dispose(): void {
    clearTimeout(this.#timer)
    this.#onDone(this)
  }
}

function failedFinish(what: string): never {
  throw new ModelProviderError(
    `${what} ended with finish reason "error": the provider reported a failure instead of a complete reply.`,
    {
      kind: 'server',
    },
  )
}

const NOOP = (): undefined => undefined

function idleNext(
  iterator: AsyncIterator<ModelStreamEvent>,
  signal: AbortSignal,
  idleTimeoutMs: number,
  point: string,
  what: string,
): Promise<IteratorResult<ModelStreamEvent>> {
  const idle = deadlineSignal(signal, idleTimeoutMs, `${what} (no stream event for ${idleTimeoutMs} ms)`)
  const next = raceSignal(iterator.next(), idle.signal, point)
  next.then(idle.dispose, idle.dispose)
  return next
}
