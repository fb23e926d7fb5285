/**
 * The AI SDK adapter: any AI SDK language model (`LanguageModelV4`, the specification of `ai` 7.x:
 * OpenAI, Anthropic, Google, Bedrock, Azure, Mistral, xAI, OpenAI-compatible servers, ...) as a core
 * `ChatModel` ({@link createAiSdkChatModel}, the agent loop's model), and the reverse: an agent-core
 * `ChatModel` as an AI SDK language model ({@link toAiSdkLanguageModel}) for `generateText` and
 * `streamText`. Streaming with tool inputs as core's indexed tool-call events, reasoning as thinking, token
 * usage; every failure a `ModelProviderError` from `@agent-core/kits/models` with the kinds and
 * `retryAfterMs` of the OpenAI adapter (or the caller's own cancellation), and no retries except through
 * `withRetry`. `@ai-sdk/provider` is an optional peer dependency (it comes with every AI SDK provider
 * package): install your provider to use this subpath.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
 * import { withRetry } from '@agent-core/kits/models'
 * import { createAiSdkChatModel } from '@agent-core/kits/ai-sdk'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 *
 * const local = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:8787/v1', apiKey: 'sk-test' })
 * const model = withRetry(createAiSdkChatModel({ model: local('llama3') }))
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] }, context)
 * ```
 *
 * @module
 */
export { type AiSdkChatModel, createAiSdkChatModel } from './ai-sdk-chat-model.js'
export type { AiSdkChatModelOptions } from './options.js'
export { type ToAiSdkLanguageModelOptions, toAiSdkLanguageModel } from './to-ai-sdk-language-model.js'
