/**
 * Every failure of an OpenAI request becomes one of three things: the run's own cancellation (an
 * `AbortedError`, or the `TimeoutError` its deadline carried), or a `ModelProviderError` whose kind tells
 * a refused request (HTTP status), a connection failure, the client's own timeout and an unreadable answer
 * apart. Nothing else escapes, so `withRetry` reads one shape.
 */
import { AbortedError, AgentCoreError, abortedError, describeValue } from '@agent-core/core'
import { ModelProviderError } from '@agent-core/kits/models'
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from 'openai'

/** True for `error` of the SDK class `type`, also when it comes from another loaded copy of the SDK. */
function isSdk(error: unknown, type: abstract new (...args: never[]) => Error, name: string): boolean {
  if (error instanceof type) return true
  if (typeof error !== 'object' || error === null) return false
  try {
    // Another copy's class chain: walk it by name (the SDK ships unminified class names).
    for (let c: unknown = error.constructor; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
      if (c === Function.prototype) break
      if ((c as { name?: unknown }).name === name) return true
    }
  } catch {
    // A hostile object (a throwing getter or proxy trap) is no SDK error.
  }
  return false
}

function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined
  if (typeof body?.message === 'string' && body.message) return body.message
  return error.message
}

function providerCode(error: APIError): string | undefined {
  const { code, type } = error as { code?: unknown; type?: unknown }
  if (typeof code === 'string' && code) return code
  if (typeof type === 'string' && type) return type
  return undefined
}

/**
 * The error to throw for `error`, caught while `point` was under way (`sending the request`, `reading the
 * stream`). The caller's signal decides first: once it aborted, the failure is the cancellation (with its
 * `TimeoutError` reason passed through), whatever the SDK threw on the way out.
 */
export function toFailure(
  error: unknown,
  signal: AbortSignal,
  provider: string,
  point: string,
  url?: string | undefined,
): AgentCoreError {
  // Connection failures name the URL the client was sending to (a misspelt or default base URL shows there).
  const at = url === undefined ? '' : ` at ${url}`
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
      `The ${provider} client's own timeout passed before the server${at} answered (${point}). Retry, or raise the client's timeout option.`,
      { kind: 'timeout', provider, cause: error },
    )
  }
  if (isSdk(error, APIConnectionError, 'APIConnectionError')) {
    const cause = (error as { cause?: unknown }).cause
    const reason = cause instanceof Error && cause.message ? `: ${cause.message}` : ''
    return new ModelProviderError(
      `Could not reach the ${provider} server${at} (${point})${reason}. Check the base URL and the network; the failure is retryable.`,
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
    // An error event inside a 200 stream: the server gave up after it started answering.
    const code = providerCode(failure)
    const refused = code === 'invalid_request_error' || code === 'invalid_request'
    return new ModelProviderError(
      `The ${provider} server reported an error in the middle of its answer (${point}): ${providerMessage(failure).replace(/\.$/, '')}. ${refused ? 'Fix the request.' : 'Retry the call.'}`,
      {
        kind: refused ? 'invalid-request' : 'server',
        retryable: !refused,
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
  if (isSdk(error, OpenAIError, 'OpenAIError')) {
    // The SDK refused to send (credentials provider failed, a consumed stream, ...): not the server's fault.
    return new ModelProviderError(
      `The ${provider} client failed before the server answered (${point}): ${(error as Error).message}`,
      { kind: 'other', retryable: false, provider, cause: error },
    )
  }
  const message = error instanceof Error ? error.message : describeValue(error)
  return new ModelProviderError(
    `The connection to the ${provider} server${at} failed (${point}): ${message}. The answer is incomplete; the failure is retryable.`,
    { kind: 'network', provider, cause: error },
  )
}

/** The stream ended (cleanly, as far as the transport knows) without the model finishing its answer. */
export function truncatedStream(provider: string, received: number): ModelProviderError {
  return new ModelProviderError(
    `The ${provider} stream ended after ${received} chunk${received === 1 ? '' : 's'} without a finish reason, so the answer is incomplete (a dropped connection or a proxy cut it). Retry the call.`,
    { kind: 'invalid-response', provider },
  )
}

/** A chunk or a completion that is valid JSON but not the shape the chat completions API promises. */
export function malformedAnswer(provider: string, what: string, value: unknown): ModelProviderError {
  return new ModelProviderError(
    `The ${provider} server sent ${what}, but got ${describeValue(value)}. The server is not speaking the chat completions API as expected; check the base URL, or retry.`,
    { kind: 'invalid-response', provider },
  )
}
