/**
 * The transport-neutral request and response descriptions MockGPT's engine speaks. A transport (the
 * node:http server, the fetch handler) turns its native request into a {@link MockHttpRequest}, asks the
 * engine for a {@link MockHttpResponse} and writes that out; it never decides anything itself.
 */

/**
 * One HTTP request as the engine sees it. Header names are lower case.
 * @example
 * ```ts
 * import { createMockGPT, type MockHttpRequest } from '@agent-core/mock'
 * const request: MockHttpRequest = { method: 'GET', url: '/v1/models', headers: { authorization: 'Bearer sk-test' } }
 * const response = createMockGPT().handle(request)
 * ```
 */
export interface MockHttpRequest {
  readonly method: string
  /** The path with an optional query (`/v1/models?x=1`) or an absolute URL. */
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The body as text; `undefined` or `''` when there is none. */
  readonly body?: string | undefined
}

/**
 * One step of a streamed body.
 * - `data`: write `chunk` (already SSE-framed text, or its UTF-8 bytes) after waiting `delayMs`.
 * - `disconnect`: drop the connection without finishing the body (the client sees a network error).
 * - `hang`: write nothing more until the client gives up or the server closes.
 * @example
 * ```ts
 * import type { MockStreamStep } from '@agent-core/mock'
 * const steps: MockStreamStep[] = [
 *   { type: 'data', chunk: 'data: {"choices":[]}\n\n', delayMs: 10 },
 *   { type: 'disconnect' },
 * ]
 * ```
 */
export type MockStreamStep =
  | { readonly type: 'data'; readonly chunk: string | Uint8Array; readonly delayMs?: number | undefined }
  | { readonly type: 'disconnect'; readonly delayMs?: number | undefined }
  | { readonly type: 'hang' }

/**
 * The body of a {@link MockHttpResponse}.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const { body } = createMockGPT().handle({ method: 'GET', url: '/v1/models', headers: {} })
 * if (body.type === 'text') console.log(JSON.parse(body.text).object) // 'list'
 * ```
 */
export type MockHttpBody =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'empty' }
  /** Chunked transfer, no Content-Length. A plain array when every step is known up front. */
  | { readonly type: 'stream'; readonly steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep> }
  /** Send no status line at all until the client times out or the server closes. */
  | { readonly type: 'hang' }

/**
 * What a transport must write: status, headers, then the body, after `firstByteDelayMs`.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const response = createMockGPT().handle({ method: 'GET', url: '/v1/nope', headers: {} })
 * console.log(response.status, response.headers['content-type']) // 404 'application/json'
 * ```
 */
export interface MockHttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Wait this long before sending the status line (a slow first byte). */
  readonly firstByteDelayMs: number
  readonly body: MockHttpBody
}
