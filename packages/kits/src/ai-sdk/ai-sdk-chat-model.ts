import {
  type ChatModel,
  createOperationContext,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type OperationContext,
  type OperationContextInit,
  throwIfAborted,
} from '@agent-core/core'
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { type AnswerFacts, emptyFacts, PartDecoder, readGenerateResult } from './internal/answer.js'
import { type CallSettings, callOptionsOf } from './internal/call-options.js'
import { toFailure, truncatedStream } from './internal/errors.js'
import { type AiSdkChatModelOptions, type ResolvedOptions, resolveOptions } from './options.js'

/**
 * A core `ChatModel` over an AI SDK language model: the agent loop's model, and what `generateStructured`
 * or `withRetry` take. `generate` is one `doGenerate` call, `stream` one `doStream` call.
 *
 * Every failure is a `ModelProviderError` (status, `retryAfterMs`, `retryable`, `kind`), except the
 * caller's cancellation, which is the `AbortedError` (or the deadline's `TimeoutError`) it always is. A
 * stream that closes without its finish is an error, never a shorter answer.
 *
 * @example
 * ```ts
 * import { MockLanguageModelV4 } from 'ai/test'
 * import { createAiSdkChatModel } from '@agent-core/kits/ai-sdk'
 *
 * const model = createAiSdkChatModel({ model: new MockLanguageModelV4({ modelId: 'mock-model' }) })
 * model.identity // 'mock-model'
 * ```
 */
export interface AiSdkChatModel extends ChatModel<unknown> {
  /** The model's identity: `options.identity`, or the AI SDK model's `modelId`. */
  readonly identity: string
  /** Who serves it: `options.provider`, or the AI SDK model's `provider`. */
  readonly provider: string
  /** The AI SDK language model calls go through. */
  readonly languageModel: LanguageModelV4
  /**
   * Sends one non-streamed call (`doGenerate`) and reads the whole answer.
   * @throws `InvalidInputError` for a malformed request (before anything is sent)
   * @throws `ModelProviderError` for every failure of the provider or the connection
   * @throws `AbortedError` / `TimeoutError` when the context's signal aborts
   */
  generate(request: ModelRequest, context?: OperationContextInit<unknown>): Promise<ModelResponse>
  /**
   * Sends one streamed call (`doStream`). The request is checked when `stream` is called (a malformed one
   * throws `InvalidInputError` right away); the call goes out when iteration starts. Breaking out of the
   * loop cancels the provider's stream.
   */
  stream(request: ModelRequest, context?: OperationContextInit<unknown>): AsyncIterable<ModelStreamEvent>
  /**
   * Checks a request as `generate` and `stream` do, without sending it: returns nothing, throws
   * `InvalidInputError` naming the offending field.
   */
  assertRequest(request: unknown): asserts request is ModelRequest
}

function startData(
  chat: AiSdkChat,
  options: LanguageModelV4CallOptions,
  stream: boolean,
): Record<string, unknown> {
  const data: Record<string, unknown> = {
    operation: 'chat',
    provider: chat.provider,
    identity: chat.identity,
    requestModel: chat.languageModel.modelId,
    stream,
  }
  if (options.temperature !== undefined) data.temperature = options.temperature
  if (options.maxOutputTokens !== undefined) data.maxOutputTokens = options.maxOutputTokens
  if (options.seed !== undefined) data.seed = options.seed
  if (options.tools !== undefined) data.toolCount = options.tools.length
  if (options.responseFormat !== undefined) data.responseFormat = options.responseFormat.type
  return data
}

function factsData(facts: AnswerFacts): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  if (facts.responseId !== undefined) data.responseId = facts.responseId
  if (facts.responseModel !== undefined) data.responseModel = facts.responseModel
  if (facts.providerFinishReason !== undefined) data.providerFinishReason = facts.providerFinishReason
  if (facts.cachedInputTokens !== undefined) data.cachedInputTokens = facts.cachedInputTokens
  if (facts.reasoningTokens !== undefined) data.reasoningTokens = facts.reasoningTokens
  if (facts.warnings.length > 0) data.warnings = facts.warnings.map((warning) => ({ ...warning }))
  return data
}

function failureData(error: unknown, facts: AnswerFacts): Record<string, unknown> {
  const data = factsData(facts)
  const failure = error as { code?: unknown; kind?: unknown; status?: unknown; retryable?: unknown }
  if (failure?.code === 'provider-error') {
    data.errorKind = failure.kind
    if (failure.status !== undefined) data.status = failure.status
    data.retryable = failure.retryable
  }
  return data
}

class AiSdkChat implements AiSdkChatModel {
  readonly identity: string
  readonly provider: string
  readonly languageModel: LanguageModelV4
  readonly #settings: CallSettings

  constructor(options: ResolvedOptions) {
    this.identity = options.identity
    this.provider = options.provider
    this.languageModel = options.model
    this.#settings = {
      modelId: options.model.modelId,
      providerOptions: options.providerOptions,
      headers: options.headers,
    }
  }

  assertRequest(request: unknown): asserts request is ModelRequest {
    callOptionsOf(request, this.#settings, undefined)
  }

  async generate(request: ModelRequest, context?: OperationContextInit<unknown>): Promise<ModelResponse> {
    const ready = createOperationContext(context)
    const options = callOptionsOf(request, this.#settings, ready.signal)
    const { signal } = ready
    throwIfAborted(signal, `before the ${this.provider} request`)
    const span = ready.diagnostics.span('model-request', startData(this, options, false))
    const facts = emptyFacts()
    try {
      const result = await this.languageModel.doGenerate(options)
      if (signal.aborted) throw signal.reason
      const response = readGenerateResult(result, this.identity, facts)
      span.end('ok', {
        ...factsData(facts),
        finishReason: response.finishReason,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        totalTokens: response.usage.totalTokens,
      })
      return response
    } catch (error) {
      const failure = toFailure(error, signal, this.provider, 'waiting for the answer')
      span.fail(failure, failureData(failure, facts))
      throw failure
    }
  }

  stream(request: ModelRequest, context?: OperationContextInit<unknown>): AsyncIterable<ModelStreamEvent> {
    const ready = createOperationContext(context)
    const options = callOptionsOf(request, this.#settings, ready.signal)
    return this.#stream(options, ready)
  }

  async *#stream(
    options: LanguageModelV4CallOptions,
    context: OperationContext<unknown>,
  ): AsyncGenerator<ModelStreamEvent> {
    const { signal } = context
    const provider = this.provider
    throwIfAborted(signal, `before the ${provider} request`)
    const span = context.diagnostics.span('model-request', startData(this, options, true))
    const decoder = new PartDecoder(this.identity, provider, signal)
    let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined
    let point = 'waiting for the stream to start'
    try {
      const result = await this.languageModel.doStream(options)
      reader = result.stream.getReader()
      point = 'reading the stream'
      const out: ModelStreamEvent[] = []
      for (;;) {
        const next = await reader.read()
        if (next.done) break
        decoder.read(next.value, out)
        if (out.length === 1) {
          const event = out[0] as ModelStreamEvent
          out.length = 0
          yield event
        } else if (out.length > 1) {
          for (const event of out.splice(0)) yield event
        }
      }
      reader = undefined
      // A provider may close its stream quietly when the signal aborts it: that is the cancellation.
      if (signal.aborted) throw signal.reason
      const finish = decoder.finish
      if (finish === undefined || decoder.unfinishedTools() > 0)
        throw truncatedStream(provider, decoder.parts)
      span.end('ok', {
        ...factsData(decoder.facts),
        finishReason: finish.finishReason,
        inputTokens: finish.usage.inputTokens,
        outputTokens: finish.usage.outputTokens,
        totalTokens: finish.usage.totalTokens,
        parts: decoder.parts,
      })
      yield finish
    } catch (error) {
      const failure = toFailure(error, signal, provider, point)
      span.fail(failure, { ...failureData(failure, decoder.facts), parts: decoder.parts })
      throw failure
    } finally {
      if (reader !== undefined) {
        // The consumer stopped reading early (break, return), or reading failed: release the stream.
        reader.cancel().catch(() => undefined)
      }
      if (!span.ended) {
        span.end('aborted', {
          ...factsData(decoder.facts),
          parts: decoder.parts,
          reason: 'the consumer stopped reading the stream',
        })
      }
    }
  }
}

/**
 * Wraps any AI SDK language model (`LanguageModelV4`, the specification of `ai` 7.x: `@ai-sdk/openai`,
 * `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/amazon-bedrock`, `@ai-sdk/openai-compatible`, ...) as a
 * core `ChatModel`: the agent loop's model, and a model for `generateStructured`, `chooseRoute` and
 * `withRetry` from `@agent-core/kits/models`. Requests map from the provider-neutral `ModelRequest`
 * (messages with images and tool results, tools, tool choice, response formats, temperature,
 * `maxOutputTokens`, seed, stop); answers map back with reasoning as thinking and the provider's token
 * usage. Tool inputs stream as core's indexed tool-call events.
 *
 * The adapter never retries (the AI SDK's retries live in `generateText`, which is not used): wrap the
 * model in `withRetry` for retries metered by the attempt budget. Each call is a `model-request`
 * diagnostics span with the model, the usage, the finish reason and the provider's warnings.
 *
 * @param options - the AI SDK model and what to add to every call; see {@link AiSdkChatModelOptions}
 * @throws `InvalidInputError` for malformed options (unknown fields included) or a model of another
 *   specification version
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
 * import { createAiSdkChatModel } from '@agent-core/kits/ai-sdk'
 *
 * const provider = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:8787/v1', apiKey: 'sk-test' })
 * const model = createAiSdkChatModel({ model: provider('llama3') })
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] })
 * ```
 */
export function createAiSdkChatModel(options: AiSdkChatModelOptions): AiSdkChatModel {
  return Object.freeze(new AiSdkChat(resolveOptions(options)))
}
