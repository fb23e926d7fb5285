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
import type OpenAI from 'openai'
import { type AnswerFacts, emptyFacts, readCompletion } from './internal/answer.js'
import { ChunkDecoder } from './internal/chunk-decoder.js'
import { toFailure } from './internal/errors.js'
import { buildChatBody, type ChatCompletionBody } from './internal/request.js'
import { endData, failureData, type ServerAddress, serverAddressOf, startData } from './internal/telemetry.js'
import { type OpenAIChatModelOptions, type ResolvedOptions, resolveOptions } from './options.js'

/**
 * A core `ChatModel` over the official `openai` client: the agent loop's model, and what
 * `generateStructured` or `withRetry` take. `generate` sends one chat completion request, `stream` one
 * streamed request (text, reasoning and tool-call deltas, then `finish` with the usage).
 *
 * Every failure is a `ModelProviderError` (status, `retryAfterMs`, `retryable`, `kind`), except the
 * caller's cancellation, which is the `AbortedError` (or the deadline's `TimeoutError`) it always is. A
 * stream that stops before the model finished is an error, never a shorter answer.
 *
 * @example
 * ```ts
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 * const model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:8787/v1' })
 * model.identity // 'gpt-4o-mini'
 * ```
 */
export interface OpenAIChatModel extends ChatModel<unknown> {
  /** The model name given in the options. */
  readonly identity: string
  /** Who serves it (`options.provider`, default `openai`). */
  readonly provider: string
  /** The client requests go through. */
  readonly client: OpenAI
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

interface Prepared {
  readonly body: ChatCompletionBody
  readonly context: OperationContext<unknown>
}

/** What a `withResponse()` call resolves to, or the bare answer of a client without it. */
interface Answered<T> {
  readonly data: T
  readonly requestId: string | undefined
}

class OpenAIChat implements OpenAIChatModel {
  readonly identity: string
  readonly provider: string
  readonly client: OpenAI
  readonly #options: ResolvedOptions
  readonly #server: ServerAddress
  /** The client's base URL, named in connection errors. */
  readonly #url: string | undefined

  constructor(options: ResolvedOptions) {
    this.#options = options
    this.identity = options.model
    this.provider = options.provider
    this.client = options.client
    const baseURL = readBaseURL(options.client)
    this.#server = serverAddressOf(baseURL)
    this.#url = typeof baseURL === 'string' && baseURL !== '' ? baseURL : undefined
  }

  assertRequest(request: unknown): asserts request is ModelRequest {
    this.#body(request)
  }

  #body(request: unknown): ChatCompletionBody {
    const options = this.#options
    return buildChatBody(request, {
      model: options.model,
      maxTokensParameter: options.maxTokensParameter,
      body: options.body,
    })
  }

  #prepare(request: unknown, context: OperationContextInit<unknown> | undefined): Prepared {
    const body = this.#body(request)
    return { body, context: createOperationContext(context) }
  }

  async generate(request: ModelRequest, context?: OperationContextInit<unknown>): Promise<ModelResponse> {
    const prepared = this.#prepare(request, context)
    return this.#generate(prepared.body, prepared.context)
  }

  async #generate(body: ChatCompletionBody, context: OperationContext<unknown>): Promise<ModelResponse> {
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
        this.client.chat.completions.create(body as never, { signal, maxRetries: 0 }),
      )
      requestId = answered.requestId
      const response = readCompletion(answered.data, provider, facts)
      span.end('ok', endData(facts, response.finishReason, response.usage, requestId, undefined))
      return response
    } catch (error) {
      const failure = toFailure(error, signal, provider, 'waiting for the answer', this.#url)
      span.fail(failure, failureData(failure, facts, requestId, undefined))
      throw failure
    }
  }

  stream(request: ModelRequest, context?: OperationContextInit<unknown>): AsyncIterable<ModelStreamEvent> {
    const prepared = this.#prepare(request, context)
    const body: ChatCompletionBody = { ...prepared.body, stream: true }
    if (this.#options.streamUsage) body.stream_options = { include_usage: true }
    return this.#stream(body, prepared.context)
  }

  async *#stream(
    body: ChatCompletionBody,
    context: OperationContext<unknown>,
  ): AsyncGenerator<ModelStreamEvent> {
    const { signal } = context
    const provider = this.provider
    throwIfAborted(signal, `before the ${provider} request`)
    const span = context.diagnostics.span(
      'model-request',
      startData(provider, this.identity, body, true, this.#server),
    )
    const decoder = new ChunkDecoder(provider)
    let requestId: string | undefined
    let point = 'waiting for the stream to start'
    try {
      const answered = await send<AsyncIterable<unknown>>(
        this.client.chat.completions.create(body as never, { signal, maxRetries: 0 }),
      )
      requestId = answered.requestId
      point = 'reading the stream'
      const out: ModelStreamEvent[] = []
      for await (const chunk of answered.data) {
        decoder.read(chunk, out)
        if (out.length === 0) continue
        if (out.length === 1) {
          const event = out[0] as ModelStreamEvent
          out.length = 0
          yield event
        } else {
          const events = out.splice(0)
          for (const event of events) yield event
        }
      }
      // The SDK ends a stream quietly when the signal aborts it: that is the cancellation, not an answer.
      if (signal.aborted) throw abortedError(signal, point)
      decoder.end(out)
      const finish = out[out.length - 1] as Extract<ModelStreamEvent, { type: 'finish' }>
      span.end('ok', endData(decoder.facts, finish.finishReason, finish.usage, requestId, decoder.chunks))
      for (const event of out.splice(0)) yield event
    } catch (error) {
      const failure = toFailure(error, signal, provider, point, this.#url)
      span.fail(failure, failureData(failure, decoder.facts, requestId, decoder.chunks))
      throw failure
    } finally {
      // The consumer stopped reading early (break, return): the request was cancelled with the iteration.
      if (!span.ended) {
        span.end('aborted', {
          ...endData(decoder.facts, undefined, decoder.usage, requestId, decoder.chunks),
          reason: 'the consumer stopped reading the stream',
        })
      }
    }
  }
}

function readBaseURL(client: OpenAI): unknown {
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
    const id = response?.headers?.get('x-request-id')
    return { data, requestId: typeof id === 'string' && id !== '' ? id : undefined }
  }
  return { data: (await pending) as T, requestId: undefined }
}

/**
 * Creates a chat model over the official `openai` client, for any OpenAI-compatible server: the agent
 * loop's model, and a model for `generateStructured`, `chooseRoute` and `withRetry` from
 * `@agent-core/kits/models`. Requests map from the provider-neutral `ModelRequest` (messages, tools, tool
 * choice, response format, temperature, `maxOutputTokens`, seed, stop, parallel tool calls); answers map
 * back, with `reasoning_content` / `reasoning` as thinking.
 *
 * The adapter never retries on its own: the client it builds has `maxRetries: 0`, and each request sets
 * `maxRetries: 0` (a client you pass in included). Wrap the model in `withRetry` for retries metered by
 * the attempt budget. Each request is a `model-request` diagnostics span with the model, the token usage
 * and the finish reason.
 *
 * @param options - the model name and how to reach the server; see {@link OpenAIChatModelOptions}
 * @throws `InvalidInputError` for malformed options, or when no client can be built (no API key)
 * @example
 * ```ts
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 *
 * const model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY })
 * let text = ''
 * for await (const event of model.stream({ messages: [{ role: 'user', content: 'Say hello' }] })) {
 *   if (event.type === 'text-delta') text += event.text
 * }
 * ```
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): OpenAIChatModel {
  return Object.freeze(new OpenAIChat(resolveOptions(options)))
}
