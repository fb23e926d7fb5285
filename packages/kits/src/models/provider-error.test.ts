import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPermanentStatus, isRetryableFailure, ModelProviderError, parseRetryAfterMs } from './index.js'

describe('parseRetryAfterMs', () => {
  it('prefers retry-after-ms, then Retry-After seconds, then an HTTP date', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '1' }))).toBe(250)
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '12.2' }))).toBe(13)
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000)
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.5' }))).toBe(500)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfterMs({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000)
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0)
  })

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(new Headers())).toBeUndefined()
    expect(parseRetryAfterMs(undefined)).toBeUndefined()
    expect(parseRetryAfterMs({ 'retry-after': 'soon' })).toBeUndefined()
    expect(parseRetryAfterMs({ 'retry-after-ms': '-5', 'retry-after': '2' })).toBe(2000)
    expect(parseRetryAfterMs({ 'retry-after': ['4', '9'] })).toBe(4000)
    const hostile = {
      get() {
        throw new Error('no')
      },
    }
    expect(parseRetryAfterMs(hostile)).toBeUndefined()
  })

  it('never returns a negative or fractional wait (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 0, max: 2 ** 40 }), (precise, header, now) => {
        const ms = parseRetryAfterMs({ 'retry-after-ms': precise, 'retry-after': header }, now)
        if (ms !== undefined) {
          expect(Number.isInteger(ms)).toBe(true)
          expect(ms).toBeGreaterThanOrEqual(0)
        }
      }),
    )
  })
})

describe('ModelProviderError', () => {
  it('classifies statuses: retryable are 408, 409, 429 and 5xx; other 4xx are permanent', () => {
    const reference = (status: number) =>
      status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599)
    for (let status = 100; status <= 599; status++) {
      expect(isRetryableFailure({ status })).toBe(reference(status))
      expect(isPermanentStatus(status)).toBe(status >= 400 && status < 500 && !reference(status))
      expect(new ModelProviderError('x', { status }).retryable).toBe(reference(status))
    }
    expect(isRetryableFailure({ kind: 'network' })).toBe(true)
    expect(isRetryableFailure({ kind: 'invalid-response' })).toBe(true)
    expect(isRetryableFailure({ kind: 'authentication' })).toBe(false)
  })

  it('is a typed AgentCoreError with a stable code, the kind and the fields in details', () => {
    const cause = new TypeError('fetch failed')
    const error = new ModelProviderError('connection reset', { kind: 'network', cause, provider: 'mock' })
    expect(AgentCoreError.isInstance(error)).toBe(true)
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect(error.code).toBe('provider-error')
    expect(error.kind).toBe('network')
    expect(error.status).toBeUndefined()
    expect(error.retryable).toBe(true)
    expect(error.cause).toBe(cause)
    expect(error.details).toMatchObject({ kind: 'network', retryable: true, provider: 'mock' })
    expect(new ModelProviderError('x', { status: 503, retryable: false }).retryable).toBe(false)
    expect(new ModelProviderError('x', { status: 429 }).kind).toBe('rate-limit')
    expect(new ModelProviderError('x', { status: 503 }).kind).toBe('overloaded')
    expect(new ModelProviderError('x', { status: 500 }).kind).toBe('server')
    expect(new ModelProviderError('x', { status: 404 }).kind).toBe('not-found')
    expect(new ModelProviderError('x', { status: 1234, retryAfterMs: -1 })).toMatchObject({
      status: undefined,
      retryAfterMs: undefined,
      kind: 'other',
    })
  })

  it('fromResponse reads the status, the retry headers, the request id and an OpenAI error body', async () => {
    const response = new Response(
      JSON.stringify({
        error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
      }),
      {
        status: 429,
        headers: { 'retry-after-ms': '1500', 'retry-after': '2', 'x-request-id': 'req_1' },
      },
    )
    const error = await ModelProviderError.fromResponse(response, { provider: 'openai' })
    expect(error).toMatchObject({ status: 429, kind: 'rate-limit', retryAfterMs: 1500, retryable: true })
    expect(error.details).toMatchObject({
      providerCode: 'rate_limit_exceeded',
      requestId: 'req_1',
      provider: 'openai',
    })
    expect(error.message).toMatch(/openai model provider answered HTTP 429: Rate limit reached\. Retry later/)
  })

  it('fromResponse: out of quota is not retryable, and x-should-retry overrides the default', async () => {
    const quota = await ModelProviderError.fromResponse(
      new Response(
        JSON.stringify({ error: { message: 'You exceeded your quota', code: 'insufficient_quota' } }),
        {
          status: 429,
        },
      ),
    )
    expect(quota).toMatchObject({ kind: 'quota', retryable: false })
    const noRetry = await ModelProviderError.fromResponse(
      new Response('busy', { status: 503, headers: { 'x-should-retry': 'false' } }),
    )
    expect(noRetry.retryable).toBe(false)
    const retry = await ModelProviderError.fromResponse(
      new Response('{}', { status: 400, headers: { 'x-should-retry': 'true' } }),
    )
    expect(retry.retryable).toBe(true)
    // withRetry still never retries a 400: isPermanentStatus wins over the flag.
    expect(isPermanentStatus(retry.status)).toBe(true)
  })

  it('fromResponse reads Anthropic-shaped and plain-text bodies', async () => {
    const anthropic = await ModelProviderError.fromResponse(
      new Response(
        JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        {
          status: 529,
        },
      ),
    )
    expect(anthropic).toMatchObject({ kind: 'overloaded', retryable: true })
    expect(anthropic.details.providerCode).toBe('overloaded_error')
    const text = await ModelProviderError.fromResponse(new Response('Bad gateway', { status: 502 }))
    expect(text.message).toMatch(/HTTP 502: Bad gateway/)
  })

  it('fromHttp reads headers from a plain record (an SDK error) without a body', () => {
    const error = ModelProviderError.fromHttp({
      status: 408,
      headers: { 'Retry-After': '1', 'X-Request-Id': 'abc' },
      message: 'Request timed out.',
      cause: new Error('sdk'),
    })
    expect(error).toMatchObject({ kind: 'timeout', retryAfterMs: 1000, retryable: true })
    expect(error.details.requestId).toBe('abc')
    expect(error.message).toBe(
      'The model provider answered HTTP 408: Request timed out. Retry later (withRetry honours Retry-After).',
    )
  })
})
