/**
 * Every failure of an AI SDK model call becomes the run's own cancellation (`AbortedError`, or the
 * `TimeoutError` its deadline carried) or a `ModelProviderError` with the kinds the OpenAI adapter uses:
 * an `APICallError` with a status through `ModelProviderError.fromHttp` (kind, `retryAfterMs` from
 * `retry-after-ms` / `Retry-After`, request id), one without a status as a network failure, unreadable
 * answers as `invalid-response`, requests the provider cannot express as `invalid-request`.
 */
import { AbortedError, AgentCoreError, abortedError, describeValue } from '@agent-core/core'
import { ModelProviderError } from '@agent-core/kits/models'
import {
  AISDKError,
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoContentGeneratedError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider'

/** The provider's own error code in a parsed error body (`{ error: { code | type } }` or `{ type }`). */
function providerCodeOf(data: unknown, body: string | undefined): string | undefined {
  let source = data
  if (source === undefined && body !== undefined) {
    try {
      source = JSON.parse(body)
    } catch {
      return undefined
    }
  }
  if (typeof source !== 'object' || source === null) return undefined
  const inner = (source as { error?: unknown }).error
  const holder = typeof inner === 'object' && inner !== null ? inner : source
  const { code, type } = holder as { code?: unknown; type?: unknown }
  if (typeof code === 'string' && code !== '') return code
  if (typeof type === 'string' && type !== '' && type !== 'error') return type
  return undefined
}

function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'AbortError' ||
      (error as { name?: unknown }).name === 'TimeoutError')
  )
}

/**
 * The error to throw for `error`, caught while `point` was under way. The caller's signal decides first:
 * once it aborted, the failure is the cancellation, whatever the provider threw on the way out.
 */
export function toFailure(
  error: unknown,
  signal: AbortSignal,
  provider: string,
  point: string,
): AgentCoreError {
  if (signal.aborted) return abortedError(signal, point)
  if (AgentCoreError.isInstance(error)) return error
  if (APICallError.isInstance(error)) {
    if (typeof error.statusCode === 'number' && error.statusCode >= 400) {
      return ModelProviderError.fromHttp({
        status: error.statusCode,
        headers: error.responseHeaders,
        message: error.message,
        providerCode: providerCodeOf(error.data, error.responseBody),
        provider,
        cause: error,
      })
    }
    const cause = (error as { cause?: unknown }).cause
    const reason = cause instanceof Error && cause.message ? ` (${cause.message})` : ''
    // A status below 400 is a successful answer whose body broke off: the provider's wrapper of a
    // connection that dropped mid-answer. Without a status the server was never reached.
    const what =
      typeof error.statusCode === 'number'
        ? `The connection to the ${provider} server dropped in the middle of its answer (${point}): ${error.message.replace(/\.$/, '')}${reason}. The answer is incomplete; the failure is retryable.`
        : `Could not reach the ${provider} server (${point}): ${error.message.replace(/\.$/, '')}${reason}. Check the provider's base URL and the network; the failure is retryable.`
    return new ModelProviderError(what, {
      kind: 'network',
      retryable: error.isRetryable,
      provider,
      cause: error,
    })
  }
  if (isAbortError(error)) {
    return new AbortedError(
      `The ${provider} request was cancelled by the provider's client, not by this call's signal (${point}). Check the provider's fetch and headers settings.`,
      { cause: error, details: { point } },
    )
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error)
  ) {
    return new ModelProviderError(
      `The ${provider} server sent an answer the AI SDK provider could not read (${point}): ${(error as Error).message.replace(/\.$/, '')}. The answer is incomplete; retry the call.`,
      { kind: 'invalid-response', provider, cause: error },
    )
  }
  if (
    UnsupportedFunctionalityError.isInstance(error) ||
    InvalidPromptError.isInstance(error) ||
    InvalidArgumentError.isInstance(error)
  ) {
    return new ModelProviderError(
      `The ${provider} AI SDK provider cannot send this request (${point}): ${(error as Error).message.replace(/\.$/, '')}. Change the request; retrying it unchanged fails again.`,
      { kind: 'invalid-request', retryable: false, provider, cause: error },
    )
  }
  if (LoadAPIKeyError.isInstance(error) || LoadSettingError.isInstance(error)) {
    return new ModelProviderError(
      `The ${provider} AI SDK provider is not configured (${point}): ${(error as Error).message.replace(/\.$/, '')}. Pass the setting to the provider, or set its environment variable.`,
      { kind: 'authentication', retryable: false, provider, cause: error },
    )
  }
  if (AISDKError.isInstance(error)) {
    return new ModelProviderError(
      `The ${provider} AI SDK provider failed (${point}): ${error.message.replace(/\.$/, '')}.`,
      { kind: 'other', retryable: false, provider, cause: error },
    )
  }
  const message = error instanceof Error ? error.message : describeValue(error)
  return new ModelProviderError(
    `The connection to the ${provider} server failed (${point}): ${message.replace(/\.$/, '')}. The answer is incomplete; the failure is retryable.`,
    { kind: 'network', provider, cause: error },
  )
}

/** The stream closed without its finish part. */
export function truncatedStream(provider: string, parts: number): ModelProviderError {
  return new ModelProviderError(
    `The ${provider} stream ended after ${parts} part${parts === 1 ? '' : 's'} without a finish, so the answer is incomplete (a dropped connection or a proxy cut it). Retry the call.`,
    { kind: 'invalid-response', provider },
  )
}
