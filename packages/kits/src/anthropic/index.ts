/**
 * The Anthropic adapter: a core `ChatModel` ({@link createAnthropicChatModel}, the agent loop's model) and
 * a `ModelCalls` binding ({@link anthropicChatBinding}) over the official `@anthropic-ai/sdk` client and the
 * Messages API. Streaming with text, extended thinking (each block's signature kept in the history and sent
 * back on the next turn), `tool_use` blocks assembled from their deltas, stop reasons and usage with cache
 * reads and writes; prompt caching on by default (breakpoints after the tools, the system prompt and the
 * growing conversation, at most four); every failure a `ModelProviderError` from `@agent-core/kits/models`
 * (or the caller's own cancellation), and no retries except through `withRetry`.
 * `@anthropic-ai/sdk` is an optional peer dependency: install it to use this subpath.
 *
 * @example
 * ```ts
 * import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
 * import { withRetry } from '@agent-core/kits/models'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 *
 * const model = withRetry(createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:8787' }))
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] }, context)
 * response.usage.cacheReadTokens
 * ```
 *
 * @module
 */
export { type AnthropicChatBindingOptions, anthropicChatBinding } from './anthropic-chat-binding.js'
export { type AnthropicChatModel, createAnthropicChatModel } from './anthropic-chat-model.js'
export { type FromAnthropicErrorOptions, fromAnthropicError } from './from-anthropic-error.js'
export type { AnthropicCacheBreakpoint, AnthropicChatModelOptions, AnthropicPromptCache } from './options.js'
