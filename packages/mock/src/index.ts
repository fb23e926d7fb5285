/**
 * MockGPT: an OpenAI-compatible model simulator for tests and CI, deterministic from a seed.
 *
 * This entry is the engine: pure and platform neutral (no `node:` imports). It turns a request into a
 * response description; `@agent-core/mock/node` serves it over HTTP + SSE and `@agent-core/mock/web`
 * wraps it as a `fetch` handler. It answers chat completions (JSON and SSE, tool calls, structured output,
 * usage), the Responses API, embeddings and model listing; replays scripted replies; injects failures;
 * enforces a call/token budget; and records every request.
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
export {
  createMockGPT,
  type MockGPT,
  type MockGPTOptions,
  type MockUsage,
  type RecordedRequest,
} from './mock-gpt.js'
export type { MockHttpBody, MockHttpRequest, MockHttpResponse, MockStreamStep } from './mock-http.js'
export { parseMockScript } from './parse-mock-script.js'
export { type MockBodySink, pumpMockBody } from './pump-mock-body.js'
export type {
  MockBudget,
  MockChaos,
  MockEndpoint,
  MockFault,
  MockMatch,
  MockReply,
  MockRequestView,
  MockScriptEntry,
  MockToolCallScript,
} from './script.js'
export { createStreamController, type MockStreamController } from './stream-controller.js'
export { countTokens, tokenize } from './tokenizer.js'
