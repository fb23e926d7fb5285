import type { MockHttpResponse } from '../mock-http.js'

/** The Anthropic error `type` for a status. */
function anthropicType(status: number, openAIType: unknown): string {
  if (openAIType === 'mock_script_error') return 'invalid_request_error'
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 529 || status === 503) return 'overloaded_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}

/**
 * Rewrites an OpenAI-shaped error response (`{ error: { message, type, code, param } }`) into the shape the
 * Anthropic API answers: `{ type: 'error', error: { type, message }, request_id }` (the id the caller also put
 * in the `request-id` header). Other responses pass.
 */
export function toAnthropicError(response: MockHttpResponse, requestId: string): MockHttpResponse {
  if (response.status < 400 || response.body.type !== 'text') return response
  let parsed: { error?: { message?: unknown; type?: unknown; code?: unknown } }
  try {
    parsed = JSON.parse(response.body.text)
  } catch {
    return response
  }
  const error = parsed.error
  if (typeof error !== 'object' || error === null) return response
  return {
    ...response,
    body: {
      type: 'text',
      text: JSON.stringify({
        type: 'error',
        error: {
          type: anthropicType(response.status, error.type),
          message: typeof error.message === 'string' ? error.message : 'MockGPT error',
          ...(typeof error.code === 'string' ? { code: error.code } : {}),
        },
        request_id: requestId,
      }),
    },
  }
}
