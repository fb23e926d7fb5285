/**
 * MockGPT over real HTTP: a `node:http` server with SSE streaming (chunked transfer), real network faults
 * (slow first byte, dropped sockets, hangs), admin routes (`GET /_mock/requests`, `GET /_mock/usage`,
 * `POST /_mock/reset`, `POST /_mock/script`), safe defaults (loopback, Host check, no CORS on the admin
 * plane, an admin token beyond loopback) and a record mode for fixtures. The `mockgpt` CLI runs the same
 * server.
 *
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * const server = await startMockGPTServer({ seed: 1, script: [{ reply: { type: 'text', text: 'Hello' } }] })
 * // new OpenAI({ baseURL: server.baseURL, apiKey: 'test' })
 * await server.close()
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
export type { MockGPTRecordOptions } from './record-proxy.js'
export { createMockGPTRequestListener, type MockGPTRequestListenerOptions } from './request-listener.js'
export { type MockGPTServer, type MockGPTServerOptions, startMockGPTServer } from './start-mock-gpt-server.js'
