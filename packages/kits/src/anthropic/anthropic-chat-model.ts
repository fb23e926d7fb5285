import {
  abortedError,
  type ChatModel,
  createOperationContext,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type OperationContext,
  type OperationContextInit,
  throwIfAborted,
} from '@agent-core/core'
import type Anthropic from '@anthropic-ai/sdk'
import { type AnswerFacts, emptyFacts, readMessage } from './internal/answer.js'
import { toFailure } from './internal/errors.js'
import { EventDecoder } from './internal/event-decoder.js'
import { answersAsJson, buildMessagesBody, type MessagesBody } from './internal/request.js'
import { endData, failureData, type ServerAddress, serverAddressOf, startData } from './internal/telemetry.js'
import { type AnthropicChatModelOptions, type ResolvedOptions, resolveOptions } from './options.js'

/**
 * A core `ChatModel` over the official `@anthropic-ai/sdk` client and the Messages API: the agent loop's
 * model, and what `generateStructured` or `withRetry` take. `generate` sends one request, `stream` one
 * streamed request (text, thinking and tool-call deltas, each finished thinking block with its signature,
 * then `finish` with the usage, cache reads and writes included).
 *
 * Every failure is a `ModelProviderError` (status, `retryAfterMs`, `retryable`, `kind`), except the
 * caller's cancellation, which is the `AbortedError` (or the deadline's `TimeoutError`) it always is. A
 * stream that stops before `message_stop` is an error, never a shorter answer.
 *
 * @example
 * ```ts
 * import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
 * const model = createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:8787' })
 * model.identity // 'claude-sonnet-4-6'
 * ```
 */
export interface AnthropicChatModel extends ChatModel<unknown> {
  /** The model name given in the options. */
  readonly identity: string
  /** Who serves it (`options.provider`, default `anthropic`). */
  readonly provider: string
  /** The client requests go through. */
  readonly client: Anthropic
  /**
   * Sends one non-streamed request and reads the whole answer.
   * @throws `InvalidInputError` for a malformed request (before anything is sent)
   * @throws `ModelProviderError` for every failure of the server or the connection
   * @throws `AbortedError` / `TimeoutError` when the context's signal aborts
   */
  generate(request: ModelRequest, context?: OperationContextInit<unknown>): Promise<ModelResponse>
  /**
   * Sends one streamed request. The request is checked when `stream` is called (a malformed one throws
   * `InvalidInputError` right away); the request goes out when iteration starts. Breaking out of the loop
   * cancels the HTTP request.
   */
  stream(request: ModelRequest, context?: OperationContextInit<unknown>): AsyncIterable<ModelStreamEvent>
  /**
   * Checks a request as `generate` and `stream` do, without sending it: returns nothing, throws
   * `InvalidInputError` naming the offending field.
   */
  assertRequest(request: unknown): asserts request is ModelRequest
}

/** What a `withResponse()` call resolves to, or the bare answer of a client without it. */
interface Answered<T> {
  readonly data: T
  readonly requestId: string | undefined
}

class AnthropicChat implements AnthropicChatModel {
  readonly identity: string
  readonly provider: string
  readonly client: Anthropic
  readonly #options: ResolvedOptions
  readonly #server: ServerAddress

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.identity = options.model
    this.provider = options.provider
    this.client = options.client
    this.#server = serverAddressOf(readBaseURL(options.client))
  }

  assertRequest(request: unknown): asserts request is ModelRequest {
    this.#body(request)
  }

  #body(request: unknown): MessagesBody {
    const options = this.#options
    return buildMessagesBody(request, {
      model: options.model,
      maxTokens: options.maxTokens,
      thinking: options.thinking,
      body: options.body,
      cache: options.cache,
    })
  }

  async generate(request: ModelRequest, context?: OperationContextInit<unknown>): Promise<ModelResponse> {
    const body = this.#body(request)
    return this.#generate(body, answersAsJson(request), createOperationContext(context))
  }

  async #generate(
    body: MessagesBody,
    json: boolean,
    context: OperationContext<unknown>,
  ): Promise<ModelResponse> {
    const { signal } = context
    const provider = this.provider
    throwIfAborted(signal, `before the ${provider} request`)
    const span = context.diagnostics.span(
      'model-request',
      startData(provider, this.identity, body, false, this.#server),
    )
    const facts: AnswerFacts = emptyFacts()
    let requestId: string | undefined
    try {
      const answered = await send<unknown>(
        this.client.messages.create(body as never, { signal, maxRetries: 0 }),
      )
      requestId = answered.requestId
      const response = readMessage(answered.data, provider, facts, json)
      span.end('ok', endData(facts, response.finishReason, response.usage, requestId, undefined))
      return response
    } catch (error) {
      const failure = toFailure(error, signal, provider, 'waiting for the answer')
      span.fail(failure, failureData(failure, facts, requestId, undefined))
      throw failure
    }
  }

  stream(request: ModelRequest, context?: OperationContextInit<unknown>): AsyncIterable<ModelStreamEvent> {
    const body: MessagesBody = { ...this.#body(request), stream: true }
    const ready = createOperationContext(context)
    return {
      [Symbol.asyncIterator]: () =>
        new EventStream(
          this.client,
          body,
          ready,
          new EventDecoder(this.provider, answersAsJson(request)),
          startData(this.provider, this.identity, body, true, this.#server),
        ),
    }
  }
}

const DONE: IteratorResult<ModelStreamEvent> = Object.freeze({ done: true, value: undefined })

/**
 * One streamed request, read as core events. A hand-written iterator rather than an async generator: each
 * event costs one promise, where a generator's resume, `await` and `yield` cost several, and the SDK's own
 * stream is cheap enough per event for that to show (bench/openai). The request goes out at the first
 * `next()`; `return()` (a `break` in the consumer's loop) cancels it and ends the span as aborted.
 */
class EventStream implements AsyncIterator<ModelStreamEvent> {
  readonly #client: Anthropic
  readonly #body: MessagesBody
  readonly #context: OperationContext<unknown>
  readonly #provider: string
  readonly #startData: Record<string, unknown>
  readonly #decoder: EventDecoder
  readonly #queue: ModelStreamEvent[] = []
  #head = 0
  #source: AsyncIterator<unknown> | undefined
  #span: ReturnType<OperationContext<unknown>['diagnostics']['span']> | undefined
  #requestId: string | undefined
  #point = 'waiting for the stream to start'
  #done = false

  constructor(
    client: Anthropic,
    body: MessagesBody,
    context: OperationContext<unknown>,
    decoder: EventDecoder,
    data: Record<string, unknown>,
  ) {
    this.#client = client
    this.#body = body
    this.#context = context
    this.#provider = decoder.provider
    this.#startData = data
    this.#decoder = decoder
  }

  next(): Promise<IteratorResult<ModelStreamEvent>> {
    if (this.#head < this.#queue.length) {
      return Promise.resolve({ done: false, value: this.#queue[this.#head++] as ModelStreamEvent })
    }
    if (this.#done) return Promise.resolve(DONE)
    return this.#advance()
  }

  async #advance(): Promise<IteratorResult<ModelStreamEvent>> {
    const signal = this.#context.signal
    const decoder = this.#decoder
    try {
      let source = this.#source
      if (source === undefined) source = await this.#open()
      const queue = this.#queue
      for (;;) {
        const step = await source.next()
        if (step.done) break
        queue.length = 0
        this.#head = 0
        decoder.read(step.value, queue)
        if (queue.length > 0) return { done: false, value: queue[this.#head++] as ModelStreamEvent }
      }
      // The SDK ends a stream quietly when the signal aborts it: that is the cancellation, not an answer.
      if (signal.aborted) throw abortedError(signal, this.#point)
      queue.length = 0
      this.#head = 0
      decoder.end(queue)
      this.#done = true
      const finish = queue[queue.length - 1] as Extract<ModelStreamEvent, { type: 'finish' }>
      this.#span?.end(
        'ok',
        endData(decoder.facts, finish.finishReason, finish.usage, this.#requestId, decoder.events),
      )
      return { done: false, value: queue[this.#head++] as ModelStreamEvent }
    } catch (error) {
      this.#done = true
      this.#queue.length = 0
      const failure = toFailure(error, signal, this.#provider, this.#point)
      this.#span?.fail(failure, failureData(failure, decoder.facts, this.#requestId, decoder.events))
      throw failure
    }
  }

  async #open(): Promise<AsyncIterator<unknown>> {
    const { signal, diagnostics } = this.#context
    throwIfAborted(signal, `before the ${this.#provider} request`)
    this.#span = diagnostics.span('model-request', this.#startData)
    const answered = await send<AsyncIterable<unknown>>(
      this.#client.messages.create(this.#body as never, { signal, maxRetries: 0 }),
    )
    this.#requestId = answered.requestId
    this.#point = 'reading the stream'
    const source = answered.data[Symbol.asyncIterator]()
    this.#source = source
    return source
  }

  async return(): Promise<IteratorResult<ModelStreamEvent>> {
    const open = !this.#done
    this.#done = true
    this.#queue.length = 0
    this.#head = 0
    // Closing the SDK's stream aborts the HTTP request.
    try {
      await this.#source?.return?.()
    } catch {
      // A stream that fails while closing: nothing more to cancel.
    }
    const span = this.#span
    if (open && span !== undefined && !span.ended) {
      const decoder = this.#decoder
      span.end('aborted', {
        ...endData(decoder.facts, undefined, decoder.usage, this.#requestId, decoder.events),
        reason: 'the consumer stopped reading the stream',
      })
    }
    return DONE
  }
}

function readBaseURL(client: Anthropic): unknown {
  try {
    return (client as { baseURL?: unknown }).baseURL
  } catch {
    return undefined
  }
}

/** Awaits an SDK call with its response headers when the client offers them (`withResponse`). */
async function send<T>(pending: unknown): Promise<Answered<T>> {
  const withResponse = (pending as { withResponse?: unknown } | null)?.withResponse
  if (typeof withResponse === 'function') {
    const { data, response } = (await withResponse.call(pending)) as { data: T; response?: Response }
    const id = response?.headers?.get('request-id') ?? response?.headers?.get('x-request-id')
    return { data, requestId: typeof id === 'string' && id !== '' ? id : undefined }
  }
  return { data: (await pending) as T, requestId: undefined }
}

/**
 * Creates a chat model over the official `@anthropic-ai/sdk` client and the Messages API: the agent loop's
 * model, and a model for `generateStructured`, `chooseRoute` and `withRetry` from
 * `@agent-core/kits/models`. Requests map from the provider-neutral `ModelRequest` (system messages become
 * the system prompt, tool results `tool_result` blocks, `responseFormat` json_schema the
 * `output_config.format`, `toolChoice` and `parallelToolCalls` the `tool_choice`); answers map back, with
 * thinking as `thinking` and its signed `thinkingBlocks`, which the next turn sends back.
 *
 * Prompt caching is on by default: up to four `cache_control` breakpoints, after the tools, after the
 * system prompt, on the last message and where the previous turn ended, so each turn of an agent run reads
 * the prefix the previous one wrote (`usage.cacheReadTokens`). `promptCache: false` turns it off;
 * `promptCache: { breakpoints }` places them yourself.
 *
 * The adapter never retries on its own: the client it builds has `maxRetries: 0`, and each request sets
 * `maxRetries: 0` (a client you pass in included). Wrap the model in `withRetry` for retries metered by
 * the attempt budget. Each request is a `model-request` diagnostics span.
 *
 * @param options - the model name and how to reach the API; see {@link AnthropicChatModelOptions}
 * @throws `InvalidInputError` for malformed or unknown options, or when no client can be built (no API key)
 * @example
 * ```ts
 * import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
 *
 * const model = createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: process.env.ANTHROPIC_API_KEY })
 * let text = ''
 * for await (const event of model.stream({ messages: [{ role: 'user', content: 'Say hello' }] })) {
 *   if (event.type === 'text-delta') text += event.text
 * }
 * ```
 */
export function createAnthropicChatModel(options: AnthropicChatModelOptions): AnthropicChatModel {
  return Object.freeze(new AnthropicChat(resolveOptions(options)))
}
