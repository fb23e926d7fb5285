/**
 * The conformance suite of chat model adapters: {@link describeChatModelConformance} registers, with any
 * test runner's `describe` and `it` (vitest, `node:test`, jest, mocha), the tests a core `ChatModel`
 * adapter must pass to carry an agent: text streaming, `generate` agreeing with the stream, finish reasons
 * and usage, tool calls (parallel ones included) and their results, JSON response formats, reasoning,
 * provider errors as `ModelProviderError` (a 429 with `Retry-After`, recovery through `withRetry`),
 * cancellation, dropped streams, and the loop guide's first agent running unchanged. The suite scripts the
 * backend: your `open(replies)` wires the model to a backend that plays them ({@link scriptMockGPT} for
 * MockGPT). Run it on your own adapter the way the OpenAI, AI SDK and Anthropic adapters of this package
 * are tested. It imports no test framework; assertions use `node:assert/strict`.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 * import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
 * import { startMockGPTServer } from '@agent-core/mock/node'
 *
 * const server = await startMockGPTServer({ apiKey: 'sk-test' })
 * describeChatModelConformance({
 *   describe,
 *   it,
 *   name: 'openai',
 *   open: async (replies) => {
 *     server.mock.reset()
 *     scriptMockGPT(server.mock, replies)
 *     return {
 *       model: createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL }),
 *       requests: () => server.mock.requests.length,
 *       close: async () => server.mock.assertAllScriptsUsed(),
 *     }
 *   },
 *   reasoning: true,
 *   disconnects: true,
 * })
 * ```
 *
 * @module
 */
export {
  type ChatModelConformanceHarness,
  type ChatModelConformanceOptions,
  type ChatModelConformanceRunner,
  describeChatModelConformance,
} from './conformance.js'
export { type MockGPTScriptTarget, scriptMockGPT } from './mock-gpt-script.js'
export {
  type ConformanceJson,
  type ConformanceReply,
  type ConformanceToolCall,
  toolResultsText,
} from './replies.js'
export { assertValidUsage, assertWellFormedResponse, assertWellFormedStream } from './stream-checks.js'
