/**
 * MockGPT over real HTTP: a `node:http` server with SSE streaming (chunked transfer), real network faults
 * (slow first byte, dropped sockets, hangs) and admin routes (`GET /_mock/requests`, `GET /_mock/usage`,
 * `POST /_mock/reset`, `POST /_mock/script`). The `mockgpt` CLI runs the same server.
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
export { createMockGPTRequestListener, type MockGPTRequestListenerOptions } from './request-listener.js'
export { type MockGPTServer, type MockGPTServerOptions, startMockGPTServer } from './start-mock-gpt-server.js'
