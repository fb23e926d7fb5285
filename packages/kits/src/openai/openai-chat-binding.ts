import {
  collectModelStream,
  describeValue,
  type ModelRequest,
  type ModelResponse,
  refuseField,
} from '@agent-core/core'
import { defineModelBinding, type ModelBinding } from '@agent-core/kits/models'
import { createOpenAIChatModel, type OpenAIChatModel } from './openai-chat-model.js'
import type { OpenAIChatModelOptions } from './options.js'

/**
 * Options of {@link openAIChatBinding}: the binding's `id`, then either a ready `chatModel` or the options
 * to create one.
 * @example
 * ```ts
 * import type { OpenAIChatBindingOptions } from '@agent-core/kits/openai'
 * const options: OpenAIChatBindingOptions<'draft'> = { id: 'draft', model: 'gpt-4o-mini', apiKey: 'sk-test' }
 * ```
 */
export type OpenAIChatBindingOptions<Id extends string = string> =
  | (OpenAIChatModelOptions & {
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
      /** A model from {@link createOpenAIChatModel}, shared with the agent loop, say. */
      readonly chatModel: OpenAIChatModel
      readonly stream?: boolean | undefined
    }

/**
 * A `ModelCalls` binding over the official `openai` client: its input is a `ModelRequest`, its output the
 * `ModelResponse`, its identity the model name. `assertInput` checks the request before `ModelCalls` takes
 * an attempt, so a malformed request costs nothing; `invoke` sends it with the call's signal (which aborts
 * at the call's `timeoutMs`). Failures are `ModelProviderError`s, so `withRetry(binding)` retries exactly
 * the retryable ones; the adapter itself never retries.
 *
 * @param options - the binding id and a chat model, or the options to create one
 * @throws `InvalidInputError` for malformed options
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { ModelCalls, withRetry } from '@agent-core/kits/models'
 * import { openAIChatBinding } from '@agent-core/kits/openai'
 *
 * const models = new ModelCalls([
 *   withRetry(openAIChatBinding({ id: 'chat', model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:8787/v1' })),
 * ])
 * const { value } = await models.invoke(
 *   { modelId: 'chat', input: { messages: [{ role: 'user', content: 'Hello' }] }, timeoutMs: 30_000 },
 *   { attemptBudget: new AttemptBudget(3) },
 * )
 * value.message.content
 * ```
 */
export function openAIChatBinding<const Id extends string>(
  options: OpenAIChatBindingOptions<Id>,
): ModelBinding<ModelRequest, ModelResponse, unknown, Id> {
  if (typeof options !== 'object' || options === null) {
    refuseField(
      'input',
      'options',
      `must be { id, model, ... } or { id, chatModel }, but got ${describeValue(options)}`,
      options,
      { prefix: 'openAIChatBinding: ' },
    )
  }
  const { id, stream, chatModel, ...modelOptions } = options as OpenAIChatBindingOptions<Id> & {
    chatModel?: unknown
  }
  if (stream !== undefined && typeof stream !== 'boolean') {
    refuseField('input', 'stream', `must be a boolean or left out, but got ${describeValue(stream)}`, stream)
  }
  let model: OpenAIChatModel
  if (chatModel !== undefined) {
    if (!isOpenAIChatModel(chatModel)) {
      refuseField(
        'input',
        'chatModel',
        `must be a model from createOpenAIChatModel, but got ${describeValue(chatModel)}`,
        chatModel,
      )
    }
    const extra = Object.keys(modelOptions)
    if (extra.length > 0) {
      refuseField(
        'input',
        extra[0] as string,
        `must be left out when chatModel is given (got ${extra.join(', ')} too): pass either chatModel or the options to create one, not both; the model already has its settings`,
        (modelOptions as Record<string, unknown>)[extra[0] as string],
      )
    }
    model = chatModel
  } else {
    model = createOpenAIChatModel(modelOptions as OpenAIChatModelOptions)
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

function isOpenAIChatModel(value: unknown): value is OpenAIChatModel {
  const model = value as Partial<OpenAIChatModel> | null
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.generate === 'function' &&
    typeof model.stream === 'function' &&
    typeof model.assertRequest === 'function' &&
    typeof model.identity === 'string'
  )
}
