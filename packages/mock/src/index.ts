/**
 * MockGPT: an OpenAI-compatible model simulator for tests and CI, deterministic from a seed.
 *
 * This entry is the engine: pure and platform neutral (no `node:` imports). It turns a request into a
 * response description; `@agent-core/mock/node` serves it over HTTP + SSE and `@agent-core/mock/web`
 * wraps it as a `fetch` handler. It answers chat completions (JSON and SSE, tool calls, structured output,
 * usage, reasoning), the Responses API, the Anthropic Messages API, embeddings and model listing; replays
 * scripted, computed and recorded replies; injects failures; enforces a call/token budget; records every
 * request per test scope; and generates JSON values from a schema (`generateJson`).
 *
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 7, script: [{ reply: { type: 'text', text: 'pong' } }] })
 * const response = mock.handle({
 *   method: 'POST',
 *   url: '/v1/chat/completions',
 *   headers: {},
 *   body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
 * })
 * console.log(response.status, mock.requests.length) // 200 1
 * ```
 *
 * @module
 */
export { type GenerateJsonOptions, generateJson } from './generate-json.js'
export {
  createMockGPT,
  type MockGPT,
  type MockGPTOptions,
  type MockGPTScope,
  type MockJournalStats,
  type MockUsage,
  type RecordedRequest,
} from './mock-gpt.js'
export type { MockHttpBody, MockHttpRequest, MockHttpResponse, MockStreamStep } from './mock-http.js'
export {
  MockScriptError,
  type MockScriptErrorDetails,
  type MockScriptProblem,
} from './mock-script-error.js'
export { type MockFixture, parseMockFixtures } from './parse-mock-fixtures.js'
export { parseMockScript } from './parse-mock-script.js'
export { type MockBodySink, pumpMockBody } from './pump-mock-body.js'
export type {
  MockBudget,
  MockChaos,
  MockComputedReply,
  MockEndpoint,
  MockFault,
  MockMatch,
  MockMessageView,
  MockReply,
  MockRequestView,
  MockScriptEntry,
  MockToolCallScript,
  MockToolCallView,
  MockToolResultView,
} from './script.js'
export { createStreamController, type MockStreamController } from './stream-controller.js'
export { countTokens, tokenize } from './tokenizer.js'
