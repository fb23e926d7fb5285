/**
 * MockGPT in the browser, a service worker or an in-process test: the engine as a `fetch`-compatible
 * handler `(request: Request) => Promise<Response>`, with real `ReadableStream` SSE bodies. No Node APIs.
 *
 * @example
 * ```ts
 * import { createMockGPTFetchHandler } from '@agent-core/mock/web'
 * const handler = createMockGPTFetchHandler({ seed: 1, script: [{ reply: { type: 'text', text: 'Hi' } }] })
 * const response = await handler.fetch('http://mockgpt.local/v1/chat/completions', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
 * })
 * console.log((await response.json()).choices[0].message.content) // 'Hi'
 * ```
 *
 * @module
 */
/**
 * The engine's types, declared and documented in `@agent-core/mock`, re-exported so that code using this
 * entry can import everything it needs from it (the one list `/node`, `/web` and `/vitest` share is
 * `internal/engine-types.ts`).
 */
export type * from '../internal/engine-types.js'
export {
  createMockGPTFetchHandler,
  type MockGPTFetchHandler,
  type MockGPTFetchHandlerOptions,
} from './create-mock-gpt-fetch-handler.js'
