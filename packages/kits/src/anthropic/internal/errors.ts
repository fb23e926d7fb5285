/**
 * Every failure of a Messages API request becomes one of three things: the run's own cancellation (an
 * `AbortedError`, or the `TimeoutError` its deadline carried), or a `ModelProviderError` whose kind tells
 * a refused request (HTTP status), a connection failure, the client's own timeout and an unreadable answer
 * apart, with the same kinds and `retryAfterMs` as the OpenAI adapter. Nothing else escapes, so
 * `withRetry` reads one shape.
 */
import { AbortedError, AgentCoreError, abortedError, describeValue } from '@agent-core/core'
import { ModelProviderError, type ProviderFailureKind } from '@agent-core/kits/models'
import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk'

/** True for `error` of the SDK class `type`, also when it comes from another loaded copy of the SDK. */
function isSdk(error: unknown, type: abstract new (...args: never[]) => Error, name: string): boolean {
  if (error instanceof type) return true
  if (typeof error !== 'object' || error === null) return false
  try {
    for (let c: unknown = error.constructor; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
      if (c === Function.prototype) break
      if ((c as { name?: unknown }).name === name) return true
    }
  } catch {
    // A hostile object (a throwing getter or proxy trap) is no SDK error.
  }
  return false
}

/** The `error` object of an Anthropic error body: `{ type: 'error', error: { type, message } }`. */
function bodyError(error: APIError): { type?: unknown; message?: unknown } | undefined {
  const body = error.error as { error?: unknown } | undefined
  const inner = body?.error
  return typeof inner === 'object' && inner !== null
    ? (inner as { type?: unknown; message?: unknown })
    : undefined
}

function providerMessage(error: APIError): string {
  const message = bodyError(error)?.message
  if (typeof message === 'string' && message) return message
  return error.message
}

/**
 * The most specific code the error names: `error.details.error_code` (the SDK's `errorCode`), a `code`
 * beside the type (MockGPT's `insufficient_quota`, proxies), then the Anthropic error type.
 */
function providerCode(error: APIError): string | undefined {
  const inner = bodyError(error) as { code?: unknown; type?: unknown } | undefined
  for (const code of [
    (error as { errorCode?: unknown }).errorCode,
    inner?.code,
    inner?.type,
    (error as { type?: unknown }).type,
  ]) {
    if (typeof code === 'string' && code !== '') return code
  }
  return undefined
}

/** The Anthropic error type of an error event (`overloaded_error`, ...), for its kind. */
function errorType(error: APIError): string | undefined {
  const type = bodyError(error)?.type ?? (error as { type?: unknown }).type
  return typeof type === 'string' && type !== '' ? type : undefined
}

/** The kind of an error event inside a 200 stream, from its Anthropic error type. */
function kindOfEventType(type: string | undefined): ProviderFailureKind {
  switch (type) {
    case 'invalid_request_error':
      return 'invalid-request'
    case 'authentication_error':
      return 'authentication'
    case 'permission_error':
      return 'permission'
    case 'not_found_error':
      return 'not-found'
    case 'rate_limit_error':
      return 'rate-limit'
    case 'overloaded_error':
      return 'overloaded'
    case 'timeout_error':
      return 'timeout'
    default:
      return 'server'
  }
}

const PERMANENT: ReadonlySet<ProviderFailureKind> = new Set([
  'invalid-request',
  'authentication',
  'permission',
  'not-found',
])

/**
 * The error to throw for `error`, caught while `point` was under way. The caller's signal decides first:
 * once it aborted, the failure is the cancellation, whatever the SDK threw on the way out.
 */
export function toFailure(
  error: unknown,
  signal: AbortSignal,
  provider: string,
  point: string,
): AgentCoreError {
  if (signal.aborted) return abortedError(signal, point)
  if (AgentCoreError.isInstance(error)) return error
  if (isSdk(error, APIUserAbortError, 'APIUserAbortError')) {
    return new AbortedError(
      `The ${provider} request was cancelled by the client, not by this call's signal (${point}). Check the signal in the client's fetchOptions.`,
      { cause: error, details: { point } },
    )
  }
  if (isSdk(error, APIConnectionTimeoutError, 'APIConnectionTimeoutError')) {
    return new ModelProviderError(
      `The ${provider} client's own timeout passed before the server answered (${point}). Retry, or raise the client's timeout option.`,
      { kind: 'timeout', provider, cause: error },
    )
  }
  if (isSdk(error, APIConnectionError, 'APIConnectionError')) {
    const cause = (error as { cause?: unknown }).cause
    const reason = cause instanceof Error && cause.message ? `: ${cause.message}` : ''
    return new ModelProviderError(
      `Could not reach the ${provider} server (${point})${reason}. Check the base URL and the network; the failure is retryable.`,
      { kind: 'network', provider, cause: error },
    )
  }
  if (isSdk(error, APIError, 'APIError')) {
    const failure = error as APIError
    const status = failure.status
    if (typeof status === 'number') {
      return ModelProviderError.fromHttp({
        status,
        headers: failure.headers,
        message: providerMessage(failure),
        providerCode: providerCode(failure),
        provider,
        cause: error,
      })
    }
    // An error event inside a 200 stream (overloaded_error is the usual one): the server gave up mid-answer.
    const code = providerCode(failure)
    const kind = kindOfEventType(errorType(failure))
    const permanent = PERMANENT.has(kind)
    return new ModelProviderError(
      `The ${provider} server reported an error in the middle of its answer (${point}): ${providerMessage(failure).replace(/\.$/, '')}. ${permanent ? 'Fix the request.' : 'Retry the call.'}`,
      {
        kind,
        retryable: !permanent,
        providerCode: code,
        requestId: failure.requestID ?? undefined,
        provider,
        cause: error,
      },
    )
  }
  if (error instanceof SyntaxError) {
    return new ModelProviderError(
      `The ${provider} server sent an answer that is not valid JSON (${point}): ${error.message} The answer is incomplete; retry the call.`,
      { kind: 'invalid-response', provider, cause: error },
    )
  }
  if (isSdk(error, AnthropicError, 'AnthropicError')) {
    return new ModelProviderError(
      `The ${provider} client failed before the server answered (${point}): ${(error as Error).message}`,
      { kind: 'other', retryable: false, provider, cause: error },
    )
  }
  const message = error instanceof Error ? error.message : describeValue(error)
  return new ModelProviderError(
    `The connection to the ${provider} server failed (${point}): ${message}. The answer is incomplete; the failure is retryable.`,
    { kind: 'network', provider, cause: error },
  )
}

/** The stream ended (cleanly, as far as the transport knows) without `message_stop`. */
export function truncatedStream(provider: string, received: number): ModelProviderError {
  return new ModelProviderError(
    `The ${provider} stream ended after ${received} event${received === 1 ? '' : 's'} without message_stop, so the answer is incomplete (a dropped connection or a proxy cut it). Retry the call.`,
    { kind: 'invalid-response', provider },
  )
}

/** An event or a message that is valid JSON but not the shape the Messages API promises. */
export function malformedAnswer(provider: string, what: string, value: unknown): ModelProviderError {
  return new ModelProviderError(
    `The ${provider} server sent ${what}, but got ${describeValue(value)}. The server is not speaking the Messages API as expected; check the base URL, or retry.`,
    { kind: 'invalid-response', provider },
  )
}
