import {
  type ChatModel,
  createOperationContext,
  describeValue,
  FieldReader,
  type FinishReason,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelUsage,
  refuseField,
} from '@agent-core/core'
import { ModelProviderError } from '@agent-core/kits/models'
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4FinishReason,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { requestOf } from './internal/from-call-options.js'

/**
 * Options of {@link toAiSdkLanguageModel}.
 * @example
 * ```ts
 * import type { ToAiSdkLanguageModelOptions } from '@agent-core/kits/ai-sdk'
 * const options: ToAiSdkLanguageModelOptions = { provider: 'agent-core.scripted' }
 * ```
 */
export interface ToAiSdkLanguageModelOptions {
  /** The AI SDK `provider` name. Default `agent-core`. */
  readonly provider?: string | undefined
  /** The AI SDK `modelId`. Default: the chat model's `identity`. */
  readonly modelId?: string | undefined
}

function finishOf(reason: FinishReason): LanguageModelV4FinishReason {
  return { unified: reason, raw: reason }
}

function usageOf(usage: ModelUsage): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: undefined },
  }
}

/**
 * A `ModelProviderError` as the AI SDK's `APICallError`, so `generateText` and `streamText` retry what is
 * retryable and wait the `retry-after-ms` the provider asked for; other errors pass unchanged.
 */
function toAiSdkError(error: unknown, options: LanguageModelV4CallOptions): unknown {
  if (!ModelProviderError.isInstance(error)) return error
  const headers: Record<string, string> = {}
  if (error.retryAfterMs !== undefined) headers['retry-after-ms'] = String(error.retryAfterMs)
  return new APICallError({
    message: error.message,
    url: `agent-core:${error.details.provider ?? 'model'}`,
    requestBodyValues: { prompt: options.prompt.length },
    ...(error.status === undefined ? {} : { statusCode: error.status }),
    responseHeaders: headers,
    isRetryable: error.retryable,
    cause: error,
    data: error.details,
  })
}

function contentOf(response: ModelResponse): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = []
  if (response.message.thinking) content.push({ type: 'reasoning', text: response.message.thinking })
  if (response.message.content !== '') content.push({ type: 'text', text: response.message.content })
  for (const call of response.message.toolCalls ?? [])
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments })
  return content
}

/** The AI SDK stream parts of a core stream (text and reasoning blocks opened and closed around deltas). */
async function* partsOf(events: AsyncIterable<ModelStreamEvent>): AsyncGenerator<LanguageModelV4StreamPart> {
  let open: 'text' | 'reasoning' | undefined
  let block = 0
  const ids = new Map<number, string>()
  const close = function* (): Generator<LanguageModelV4StreamPart> {
    if (open === 'text') yield { type: 'text-end', id: `text-${block}` }
    if (open === 'reasoning') yield { type: 'reasoning-end', id: `reasoning-${block}` }
    open = undefined
  }
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
      case 'thinking-delta': {
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning'
        if (open !== kind) {
          yield* close()
          block++
          open = kind
          yield { type: `${kind}-start`, id: `${kind}-${block}` }
        }
        yield { type: `${kind}-delta`, id: `${kind}-${block}`, delta: event.text }
        break
      }
      case 'tool-call-start':
        yield* close()
        ids.set(event.index, event.id)
        yield { type: 'tool-input-start', id: event.id, toolName: event.name }
        break
      case 'tool-call-delta': {
        const id = ids.get(event.index)
        if (id !== undefined) yield { type: 'tool-input-delta', id, delta: event.argumentsDelta }
        break
      }
      case 'tool-call-end':
        yield* close()
        if (ids.has(event.index)) yield { type: 'tool-input-end', id: event.call.id }
        yield {
          type: 'tool-call',
          toolCallId: event.call.id,
          toolName: event.call.name,
          input: event.call.arguments,
        }
        break
      case 'finish':
        yield* close()
        yield { type: 'finish', finishReason: finishOf(event.finishReason), usage: usageOf(event.usage) }
        break
    }
  }
}

/**
 * Serves an agent-core `ChatModel` (the OpenAI adapter, the scripted model, your own, a `withRetry`
 * wrapper) as an AI SDK language model (`LanguageModelV4`), for `generateText`, `streamText` and the rest
 * of `ai` 7.x. Calls map to a core `ModelRequest` (system, user text and images, assistant text, reasoning
 * and tool calls, tool results; tools, tool choice, response format, temperature, `maxOutputTokens`,
 * seed, stop sequences); settings core has no field for (`topP`, `topK`, penalties, provider tools) come
 * back as `unsupported` warnings. A `ModelProviderError` reaches the AI SDK as its `APICallError` (status,
 * `isRetryable`, `retry-after-ms`), so `ai`'s own retries work; the abort signal becomes the context's.
 * A model without `stream` is streamed from one `generate`.
 *
 * @param model - the chat model to serve
 * @param options - the AI SDK `provider` and `modelId` names; see {@link ToAiSdkLanguageModelOptions}
 * @throws `InvalidInputError` when `model` is no chat model, or for malformed options
 * @example
 * ```ts
 * import { generateText } from 'ai'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { toAiSdkLanguageModel } from '@agent-core/kits/ai-sdk'
 *
 * const model = toAiSdkLanguageModel(createScriptedModel([{ text: 'Hello from agent-core.' }]))
 * const { text } = await generateText({ model, prompt: 'Hi' })
 * ```
 */
export function toAiSdkLanguageModel(
  model: ChatModel<unknown>,
  options: ToAiSdkLanguageModelOptions = {},
): LanguageModelV4 {
  if (typeof model !== 'object' || model === null || typeof model.generate !== 'function') {
    refuseField(
      'input',
      'model',
      `must be an agent-core chat model { identity, generate, stream? }, but got ${describeValue(model)}`,
      model,
      { prefix: 'toAiSdkLanguageModel: ' },
    )
  }
  const fields = new FieldReader(options, 'options', 'options { provider?, modelId? }', 'input')
  const provider = fields.string('provider') ?? 'agent-core'
  const modelId = fields.string('modelId') ?? model.identity
  fields.done()

  async function doGenerate(call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { request, warnings } = requestOf(call)
    const context = createOperationContext(call.abortSignal ? { signal: call.abortSignal } : {})
    try {
      const response = await model.generate(request, context)
      return {
        content: contentOf(response),
        finishReason: finishOf(response.finishReason),
        usage: usageOf(response.usage),
        warnings,
        response: { modelId: response.model ?? modelId },
      }
    } catch (error) {
      throw toAiSdkError(error, call)
    }
  }

  async function doStream(call: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { request, warnings } = requestOf(call)
    const context = createOperationContext(call.abortSignal ? { signal: call.abortSignal } : {})
    const events: AsyncIterable<ModelStreamEvent> =
      typeof model.stream === 'function'
        ? model.stream(request, context)
        : (async function* fromGenerate() {
            const response = await model.generate(request, context)
            if (response.message.thinking)
              yield { type: 'thinking-delta' as const, text: response.message.thinking }
            if (response.message.content !== '')
              yield { type: 'text-delta' as const, text: response.message.content }
            for (const [index, call] of (response.message.toolCalls ?? []).entries())
              yield { type: 'tool-call-end' as const, index, call }
            yield {
              type: 'finish' as const,
              finishReason: response.finishReason,
              usage: response.usage,
              model: response.model,
            }
          })()
    const iterator = partsOf(events)[Symbol.asyncIterator]()
    let started = false
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        if (!started) {
          started = true
          controller.enqueue({ type: 'stream-start', warnings })
          controller.enqueue({ type: 'response-metadata', modelId })
          return
        }
        try {
          const next = await iterator.next()
          if (next.done) controller.close()
          else controller.enqueue(next.value)
        } catch (error) {
          controller.enqueue({ type: 'error', error: toAiSdkError(error, call) })
          controller.close()
        }
      },
      async cancel() {
        await iterator.return?.(undefined)
      },
    })
    return { stream }
  }

  return Object.freeze({
    specificationVersion: 'v4' as const,
    provider,
    modelId,
    supportedUrls: { 'image/*': [/^https?:\/\/.*$/] },
    doGenerate,
    doStream,
  })
}
