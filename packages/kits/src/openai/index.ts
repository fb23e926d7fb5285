/**
 * The OpenAI adapter: a core `ChatModel` ({@link createOpenAIChatModel}, the agent loop's model) and a
 * `ModelCalls` binding ({@link openAIChatBinding}) over the official `openai` client, for any
 * OpenAI-compatible base URL. Streaming with tool-call fragments reassembled by index, token usage,
 * reasoning deltas, response formats and tool choice; every failure a `ModelProviderError` from
 * `@agent-core/kits/models` (or the caller's own cancellation), and no retries except through `withRetry`.
 * `openai` is an optional peer dependency: install it to use this subpath.
 *
 * @example
 * ```ts
 * import { withRetry } from '@agent-core/kits/models'
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 *
 * const model = withRetry(createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:8787/v1' }))
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] }, context)
 * response.message.content
 * ```
 *
 * @module
 */
export { type FromOpenAIErrorOptions, fromOpenAIError } from './from-openai-error.js'
export { type OpenAIChatBindingOptions, openAIChatBinding } from './openai-chat-binding.js'
export { createOpenAIChatModel, type OpenAIChatModel } from './openai-chat-model.js'
export type { OpenAIChatModelOptions } from './options.js'
