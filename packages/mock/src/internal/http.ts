import { describeValue } from '@agent-core/core'
import type { MockHttpRequest, MockHttpResponse } from '../mock-http.js'
import type { MockFault, MockReply } from '../script.js'
import { badRequest, MockRequestError, openAIErrorResponse } from './openai-error.js'

/** A JSON response. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): MockHttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    firstByteDelayMs: 0,
    body: { type: 'text', text: JSON.stringify(value) },
  }
}

/** The path of a request URL (path or absolute), without query, fragment or trailing slash. */
export function splitPath(url: string): string {
  let path = url
  const scheme = path.indexOf('://')
  if (scheme >= 0) {
    const slash = path.indexOf('/', scheme + 3)
    path = slash < 0 ? '/' : path.slice(slash)
  }
  const q = path.search(/[?#]/)
  if (q >= 0) path = path.slice(0, q)
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

/** The query parameters of a request URL (path or absolute). */
export function queryOf(url: string): URLSearchParams {
  const q = url.indexOf('?')
  if (q < 0) return new URLSearchParams()
  const hash = url.indexOf('#', q)
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash))
}

/** A request body parsed once: the value, or why it is not JSON. */
export type ParsedBody = { readonly value: unknown } | { readonly error: string }

/** How deeply a request body may nest arrays and objects; deeper bodies would overflow the stack later. */
export const MAX_BODY_DEPTH = 256

/** Whether `value` nests arrays and objects more than `max` levels deep (iterative, so it cannot overflow). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item
    if (typeof node !== 'object' || node === null) continue
    if (depth >= max) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

export function parseBody(text: string | undefined): ParsedBody {
  if (text === undefined || text.trim() === '') return { error: 'the body is empty' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { error: (error as Error).message }
  }
  // A body shorter than two characters per level cannot nest that deep: skip the walk.
  if (text.length > 2 * MAX_BODY_DEPTH && nestsDeeperThan(value, MAX_BODY_DEPTH))
    return { error: `the body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep` }
  return { value }
}

/** The parsed body as a JSON object, or a 400 that says why not. */
export function requireJsonObject(parsed: ParsedBody): Record<string, unknown> {
  if ('error' in parsed) {
    throw badRequest(
      `We could not parse the JSON body of your request: ${parsed.error}. Send a JSON object with Content-Type: application/json.`,
    )
  }
  const value = parsed.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`The request body must be a JSON object, but got ${describeValue(value)}.`)
  }
  return value as Record<string, unknown>
}

function errorHeaders(fault: {
  retryAfterMs?: number | undefined
  retryAfterSeconds?: number | undefined
  shouldRetry?: boolean | undefined
}) {
  const headers: Record<string, string> = {}
  if (fault.retryAfterMs !== undefined) {
    headers['retry-after-ms'] = String(fault.retryAfterMs)
    if (fault.retryAfterSeconds === undefined)
      headers['retry-after'] = String(Math.ceil(fault.retryAfterMs / 1000))
  }
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds)
  if (fault.shouldRetry !== undefined) headers['x-should-retry'] = String(fault.shouldRetry)
  return headers
}

function defaultErrorMessage(status: number): { message: string; code: string | null } {
  if (status === 429)
    return {
      message: 'Rate limit reached for requests (simulated by MockGPT). Retry after the advertised delay.',
      code: 'rate_limit_exceeded',
    }
  if (status === 503)
    return {
      message: 'The server is overloaded (simulated by MockGPT). Retry later.',
      code: 'service_unavailable',
    }
  if (status >= 500)
    return {
      message:
        'The server had an error while processing your request (simulated by MockGPT). Retry the request.',
      code: null,
    }
  return { message: `MockGPT answered ${status} as scripted.`, code: null }
}

/** The response for a scripted `error` reply or a `status` fault, with its retry headers. */
export function errorReplyResponse(
  fault: Extract<MockFault, { type: 'status' }> | Extract<MockReply, { type: 'error' }>,
): MockHttpResponse {
  const fallback = defaultErrorMessage(fault.status)
  return openAIErrorResponse(fault.status, fault.message ?? fallback.message, {
    type: 'errorType' in fault ? fault.errorType : undefined,
    code: 'code' in fault && fault.code !== undefined ? fault.code : fallback.code,
    headers: errorHeaders(fault),
  })
}

/** Header values that are strings, copied. */
export function stringHeaders(
  headers: MockHttpRequest['headers'] | null | undefined,
): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof headers !== 'object' || headers === null) return out
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (typeof value === 'string') out[name.toLowerCase()] = value
  }
  return out
}

/** A 405 naming the allowed method. */
export function methodNotAllowed(method: string, path: string, allowed: string): MockHttpResponse {
  return openAIErrorResponse(405, `Method ${method} is not allowed on ${path}; use ${allowed}.`, {
    code: 'method_not_allowed',
    headers: { allow: allowed },
  })
}

/** Turns anything thrown while answering into an OpenAI-shaped error response. */
export function errorToResponse(error: unknown): MockHttpResponse {
  if (MockRequestError.isInstance(error)) return error.toResponse()
  const message = error instanceof Error ? error.message : describeValue(error)
  return openAIErrorResponse(500, `MockGPT failed while answering: ${message}`, {
    code: 'mock_internal_error',
  })
}
