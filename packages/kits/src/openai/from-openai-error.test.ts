/** fromOpenAIError over the SDK's own error classes: one typed error per kind of failure. */
import { AbortedError, InvalidInputError, TimeoutError } from '@agent-core/core'
import { ModelProviderError } from '@agent-core/kits/models'
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  InternalServerError,
  OpenAIError,
  RateLimitError,
} from 'openai'
import { describe, expect, it } from 'vitest'
import { fromOpenAIError } from './index.js'

function rateLimit(headers: Record<string, string>, code = 'rate_limit_exceeded'): RateLimitError {
  return new RateLimitError(
    429,
    { message: 'Rate limit reached', code, type: 'requests' },
    undefined,
    new Headers(headers),
  )
}

describe('fromOpenAIError', () => {
  it('HTTP errors keep status, wait, retryability, provider code and request id', () => {
    const error = fromOpenAIError(
      rateLimit({ 'retry-after-ms': '250', 'retry-after': '1', 'x-request-id': 'req_1' }),
      {
        provider: 'vllm',
      },
    )
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 250,
      retryable: true,
      details: { provider: 'vllm', providerCode: 'rate_limit_exceeded', requestId: 'req_1' },
    })
    expect(error.message).toBe(
      'The vllm model provider answered HTTP 429: Rate limit reached. Retry later (withRetry honours Retry-After).',
    )
    expect(error.cause).toBeInstanceOf(RateLimitError)
    expect(fromOpenAIError(rateLimit({}, 'insufficient_quota'))).toMatchObject({
      kind: 'quota',
      retryable: false,
    })
    expect(fromOpenAIError(rateLimit({ 'x-should-retry': 'false' }))).toMatchObject({ retryable: false })
    const server = new InternalServerError(
      503,
      undefined,
      'upstream down',
      new Headers({ 'retry-after': '2' }),
    )
    expect(fromOpenAIError(server)).toMatchObject({
      kind: 'overloaded',
      status: 503,
      retryAfterMs: 2000,
      retryable: true,
    })
  })

  it('connection failures, client timeouts and unreadable answers are distinct kinds', () => {
    expect(fromOpenAIError(new APIConnectionError({ cause: new Error('ECONNREFUSED') }))).toMatchObject({
      kind: 'network',
      retryable: true,
    })
    const timeout = fromOpenAIError(new APIConnectionTimeoutError())
    expect(timeout).toMatchObject({ kind: 'timeout', retryable: true })
    expect(TimeoutError.isInstance(timeout)).toBe(false)
    expect(fromOpenAIError(new SyntaxError('Unexpected end of JSON input'))).toMatchObject({
      kind: 'invalid-response',
    })
    expect(fromOpenAIError(new TypeError('terminated'))).toMatchObject({ kind: 'network', retryable: true })
    expect(fromOpenAIError(new OpenAIError('Cannot iterate over a consumed stream'))).toMatchObject({
      kind: 'other',
      retryable: false,
    })
    const midStream = new APIError(
      undefined,
      { message: 'The server had an error', type: 'server_error' },
      undefined,
      undefined,
    )
    expect(fromOpenAIError(midStream)).toMatchObject({ kind: 'server', retryable: true, status: undefined })
  })

  it("the caller's signal decides first: cancellation, or the deadline's TimeoutError, never a provider error", () => {
    const cancelled = new AbortController()
    cancelled.abort(new Error('stop'))
    const aborted = fromOpenAIError(new APIUserAbortError(), { signal: cancelled.signal, point: 'embedding' })
    expect(AbortedError.isInstance(aborted)).toBe(true)
    expect(aborted.details).toEqual({ point: 'embedding' })

    const deadline = new AbortController()
    const reason = new TimeoutError('model call "chat" did not finish within 10 ms.')
    deadline.abort(reason)
    expect(fromOpenAIError(new APIConnectionError({ message: 'x' }), { signal: deadline.signal })).toBe(
      reason,
    )

    // A user abort the caller's signal did not cause (the client's own fetchOptions.signal) is still an abort.
    expect(AbortedError.isInstance(fromOpenAIError(new APIUserAbortError()))).toBe(true)
  })

  it('recognises the error classes of another loaded copy of the SDK by name', () => {
    class APIErrorCopy extends Error {}
    Object.defineProperty(APIErrorCopy, 'name', { value: 'APIError' })
    class RateLimitCopy extends APIErrorCopy {
      status = 429
      headers = new Headers({ 'retry-after-ms': '10' })
      error = { message: 'slow down' }
    }
    expect(fromOpenAIError(new RateLimitCopy('429 slow down'))).toMatchObject({
      kind: 'rate-limit',
      retryAfterMs: 10,
    })
  })

  it('refuses malformed options', () => {
    expect(() => fromOpenAIError(new Error('x'), { signal: 'no' as never })).toThrow(InvalidInputError)
    expect(() => fromOpenAIError(new Error('x'), { provider: '' })).toThrow(InvalidInputError)
  })
})
