import {
  collectModelStream,
  describeValue,
  type ModelRequest,
  type ModelResponse,
  refuseField,
} from '@agent-core/core'
import { defineModelBinding, type ModelBinding } from '@agent-core/kits/models'
import { type AnthropicChatModel, createAnthropicChatModel } from './anthropic-chat-model.js'
import type { AnthropicChatModelOptions } from './options.js'

/**
 * Options of {@link anthropicChatBinding}: the binding's `id`, then either a ready `chatModel` or the
 * options to create one.
 * @example
 * ```ts
 * import type { AnthropicChatBindingOptions } from '@agent-core/kits/anthropic'
 * const options: AnthropicChatBindingOptions<'draft'> = { id: 'draft', model: 'claude-sonnet-4-6', apiKey: 'sk-ant-test' }
 * ```
 */
export type AnthropicChatBindingOptions<Id extends string = string> =
  | (AnthropicChatModelOptions & {
      /** The registration id callers name in `ModelCalls.invoke`. */
      readonly id: Id
      /**
       * Read the answer as a stream and collect it (default false: one non-streamed request). Useful
       * behind proxies that cut idle connections during long answers.
       */
      readonly stream?: boolean | undefined
      readonly chatModel?: undefined
    })
  | {
      readonly id: Id
      /** A model from {@link createAnthropicChatModel}, shared with the agent loop, say. */
      readonly chatModel: AnthropicChatModel
      readonly stream?: boolean | undefined
    }

/**
 * A `ModelCalls` binding over the official `@anthropic-ai/sdk` client: its input is a `ModelRequest`, its
 * output the `ModelResponse`, its identity the model name. `assertInput` checks the request before
 * `ModelCalls` takes an attempt, so a malformed request costs nothing; `invoke` sends it with the call's
 * signal (which aborts at the call's `timeoutMs`). Failures are `ModelProviderError`s, so
 * `withRetry(binding)` retries exactly the retryable ones; the adapter itself never retries.
 *
 * @param options - the binding id and a chat model, or the options to create one
 * @throws `InvalidInputError` for malformed or unknown options
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { anthropicChatBinding } from '@agent-core/kits/anthropic'
 * import { ModelCalls, withRetry } from '@agent-core/kits/models'
 *
 * const models = new ModelCalls([
 *   withRetry(anthropicChatBinding({ id: 'chat', model: 'claude-sonnet-4-6', apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:8787' })),
 * ])
 * const { value } = await models.invoke(
 *   { modelId: 'chat', input: { messages: [{ role: 'user', content: 'Hello' }] }, timeoutMs: 30_000 },
 *   { attemptBudget: new AttemptBudget(3) },
 * )
 * value.message.content
 * ```
 */
export function anthropicChatBinding<const Id extends string>(
  options: AnthropicChatBindingOptions<Id>,
): ModelBinding<ModelRequest, ModelResponse, unknown, Id> {
  if (typeof options !== 'object' || options === null) {
    refuseField(
      'input',
      'options',
      `must be { id, model, ... } or { id, chatModel }, but got ${describeValue(options)}`,
      options,
      { prefix: 'anthropicChatBinding: ' },
    )
  }
  const { id, stream, chatModel, ...modelOptions } = options as AnthropicChatBindingOptions<Id> & {
    chatModel?: unknown
  }
  if (stream !== undefined && typeof stream !== 'boolean')
    refuseField(
      'input',
      'options.stream',
      `must be a boolean or left out, but got ${describeValue(stream)}`,
      stream,
    )
  let model: AnthropicChatModel
  if (chatModel !== undefined) {
    if (!isAnthropicChatModel(chatModel)) {
      refuseField(
        'input',
        'options.chatModel',
        `must be a model from createAnthropicChatModel, but got ${describeValue(chatModel)}`,
        chatModel,
      )
    }
    const extra = Object.keys(modelOptions)
    if (extra.length > 0) {
      refuseField(
        'input',
        `options.${extra[0] as string}`,
        `must be left out when chatModel is given (got ${extra.join(', ')} too): pass either chatModel or the options to create one, not both; the model already has its settings`,
        (modelOptions as Record<string, unknown>)[extra[0] as string],
      )
    }
    model = chatModel
  } else {
    model = createAnthropicChatModel(modelOptions as AnthropicChatModelOptions)
  }
  return defineModelBinding({
    id,
    identity: model.identity,
    assertInput(input: unknown): asserts input is ModelRequest {
      model.assertRequest(input)
    },
    invoke(request: ModelRequest, context): Promise<ModelResponse> {
      return stream === true
        ? collectModelStream(model.stream(request, context))
        : model.generate(request, context)
    },
  })
}

function isAnthropicChatModel(value: unknown): value is AnthropicChatModel {
  const model = value as Partial<AnthropicChatModel> | null
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.generate === 'function' &&
    typeof model.stream === 'function' &&
    typeof model.assertRequest === 'function' &&
    typeof model.identity === 'string'
  )
}
