import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  describeValue,
  type ErrorDetails,
} from '@agent-core/core'
import { type HeaderSource, parseRetryAfterMs, readHeader } from './retry-after.js'

/**
 * What kind of provider failure a {@link ModelProviderError} reports. Derived from the HTTP status when
 * there is one; `network`, `timeout` and `invalid-response` describe failures without a usable status.
 *
 * @example
 * ```ts
 * import type { ProviderFailureKind } from '@agent-core/kits/models'
 * const kind: ProviderFailureKind = 'rate-limit'
 * ```
 */
export type ProviderFailureKind =
  | 'invalid-request'
  | 'authentication'
  | 'permission'
  | 'not-found'
  | 'timeout'
  | 'conflict'
  | 'rate-limit'
  | 'quota'
  | 'server'
  | 'overloaded'
  | 'network'
  | 'invalid-response'
  | 'other'

/**
 * Structured fields of a {@link ModelProviderError}: `kind`, `status`, `retryAfterMs` and `retryable` are
 * also properties of the error; `providerCode`, `requestId` and `provider` are for logs and support tickets.
 * @example
 * ```ts
 * import { ModelProviderError } from '@agent-core/kits/models'
 *
 * const error = ModelProviderError.fromHttp({
 *   status: 429,
 *   headers: { 'x-request-id': 'req_123' },
 *   message: 'You exceeded your current quota',
 *   providerCode: 'insufficient_quota',
 *   provider: 'openai',
 * })
 * const { kind, retryable, requestId } = error.details
 * console.log(`${kind} (retryable: ${retryable}), request ${requestId}`) // quota (retryable: false), request req_123
 * ```
 */
export interface ModelProviderErrorDetails extends ErrorDetails {
  readonly kind: ProviderFailureKind
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly retryable: boolean
  /** The provider's own error code (`rate_limit_exceeded`, `insufficient_quota`, ...), when it sent one. */
  readonly providerCode: string | undefined
  /** The provider's request id (`x-request-id`), when it sent one. */
  readonly requestId: string | undefined
  /** Which provider or binding failed, e.g. `"openai"` or a binding id. */
  readonly provider: string | undefined
}

/**
 * Options of the {@link ModelProviderError} constructor: what a binding knows about the failure. Leave
 * `kind` and `retryable` out to derive them from `status`.
 * @example
 * ```ts
 * import { ModelProviderError, type ModelProviderErrorOptions } from '@agent-core/kits/models'
 *
 * // a binding whose connection dropped mid-answer: no status, but worth another attempt
 * const options: ModelProviderErrorOptions = { kind: 'network', provider: 'local-llm', cause: new Error('socket hang up') }
 * const error = new ModelProviderError('The connection to local-llm dropped mid-answer. Retry the call.', options)
 * error.retryable // true
 * ```
 */
export interface ModelProviderErrorOptions {
  /** The HTTP status, when the provider answered one. */
  readonly status?: number | undefined
  /** Default: derived from `status` (or `other` without one). */
  readonly kind?: ProviderFailureKind | undefined
  /** How long the provider asked to wait before the next attempt, in milliseconds. */
  readonly retryAfterMs?: number | undefined
  /** Default: {@link isRetryableFailure} of the status and kind. */
  readonly retryable?: boolean | undefined
  readonly providerCode?: string | undefined
  readonly requestId?: string | undefined
  readonly provider?: string | undefined
  /** The underlying error (a fetch `TypeError`, the SDK's error, ...). */
  readonly cause?: unknown
}

/** The failure kind an HTTP status means. */
function kindOfStatus(status: number): ProviderFailureKind {
  switch (status) {
    case 400:
    case 413:
    case 415:
    case 422:
      return 'invalid-request'
    case 401:
      return 'authentication'
    case 403:
      return 'permission'
    case 404:
      return 'not-found'
    case 408:
      return 'timeout'
    case 409:
      return 'conflict'
    case 429:
      return 'rate-limit'
    case 503:
    case 529:
      return 'overloaded'
    default:
      return status >= 500 && status <= 599
        ? 'server'
        : status >= 400 && status <= 499
          ? 'invalid-request'
          : 'other'
  }
}

/**
 * True for a 4xx status that a retry can never fix: every 4xx except 408 (request timeout), 409
 * (conflict) and 429 (rate limit). `withRetry` never retries these, whatever `retryable` says.
 *
 * @example
 * ```ts
 * import { isPermanentStatus } from '@agent-core/kits/models'
 * isPermanentStatus(400) // true
 * isPermanentStatus(429) // false
 * ```
 */
export function isPermanentStatus(status: number | undefined): boolean {
  return (
    status !== undefined &&
    status >= 400 &&
    status <= 499 &&
    status !== 408 &&
    status !== 409 &&
    status !== 429
  )
}

/**
 * Whether a failure is worth another attempt by default: 408, 409, 429 and 5xx statuses, and failures
 * without a status that are network, timeout or invalid-response failures (a connection dropped
 * mid-answer, a truncated body).
 *
 * @example
 * ```ts
 * import { isRetryableFailure } from '@agent-core/kits/models'
 * isRetryableFailure({ status: 503 }) // true
 * isRetryableFailure({ status: 401 }) // false
 * isRetryableFailure({ kind: 'network' }) // true
 * ```
 */
export function isRetryableFailure(failure: {
  readonly status?: number | undefined
  readonly kind?: ProviderFailureKind | undefined
}): boolean {
  const { status, kind } = failure
  if (status !== undefined) {
    if (isPermanentStatus(status)) return false
    return status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599)
  }
  return kind === 'network' || kind === 'timeout' || kind === 'invalid-response' || kind === 'overloaded'
}

function validStatus(status: unknown): number | undefined {
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599
    ? status
    : undefined
}

function validDelay(ms: unknown): number | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms) : undefined
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

/**
 * A model provider failed: an HTTP error status, a dropped connection, a timeout reported by the provider,
 * or an answer that could not be read. Every binding that talks HTTP throws this error (the OpenAI
 * adapter does too), so retry logic reads one shape: {@link ModelProviderError.status},
 * {@link ModelProviderError.retryAfterMs} (from `retry-after-ms` or `Retry-After`) and
 * {@link ModelProviderError.retryable}. Branch on `code === 'provider-error'` and `kind`, never on the
 * message.
 *
 * @example
 * ```ts
 * import { ModelProviderError } from '@agent-core/kits/models'
 * const error = new ModelProviderError('The provider is rate limiting this key. Wait and retry.', {
 *   status: 429,
 *   retryAfterMs: 1200,
 *   provider: 'openai',
 * })
 * error.kind // 'rate-limit'
 * error.retryable // true
 * ModelProviderError.isInstance(error) // true
 * ```
 */
export class ModelProviderError extends AgentCoreError<ModelProviderErrorDetails> {
  static override readonly code = 'provider-error'
  declare readonly code: 'provider-error'
  /** What kind of failure this is. */
  readonly kind: ProviderFailureKind
  /** The HTTP status, or `undefined` when the failure happened without one (network, stream). */
  readonly status: number | undefined
  /** How long the provider asked to wait before retrying, in milliseconds. */
  readonly retryAfterMs: number | undefined
  /** Whether another attempt may succeed. */
  readonly retryable: boolean

  constructor(message: string, init: ModelProviderErrorOptions = {}) {
    const options: ModelProviderErrorOptions = typeof init === 'object' && init !== null ? init : {}
    const status = validStatus(options.status)
    const kind = options.kind ?? (status === undefined ? 'other' : kindOfStatus(status))
    const retryAfterMs = validDelay(options.retryAfterMs)
    const retryable =
      typeof options.retryable === 'boolean' ? options.retryable : isRetryableFailure({ status, kind })
    const details: ModelProviderErrorDetails = {
      kind,
      status,
      retryAfterMs,
      retryable,
      providerCode: optionalString(options.providerCode),
      requestId: optionalString(options.requestId),
      provider: optionalString(options.provider),
    }
    const base: AgentCoreErrorOptions<ModelProviderErrorDetails> =
      options.cause === undefined ? { details } : { details, cause: options.cause }
    super('provider-error', String(message), base)
    this.kind = kind
    this.status = status
    this.retryAfterMs = retryAfterMs
    this.retryable = retryable
  }

  /**
   * Builds the error from an HTTP failure whose body was already read (an SDK's error object, say):
   * the kind from the status (a 429 with provider code `insufficient_quota` is `quota`), the wait from
   * `retry-after-ms` / `Retry-After`, `retryable` from `x-should-retry` when the provider sent it, and the
   * request id from `x-request-id`.
   *
   * @example
   * ```ts
   * import { ModelProviderError } from '@agent-core/kits/models'
   * const error = ModelProviderError.fromHttp({
   *   status: 503,
   *   headers: { 'retry-after': '2' },
   *   message: 'The engine is currently overloaded',
   *   provider: 'openai',
   * })
   * error.retryAfterMs // 2000
   * ```
   */
  static fromHttp(failure: HttpFailure): ModelProviderError {
    const init: Partial<HttpFailure> = typeof failure === 'object' && failure !== null ? failure : {}
    const status = validStatus(init.status)
    const headers = init.headers
    const providerCode = optionalString(init.providerCode)
    const shouldRetry = readHeader(headers, 'x-should-retry')
    const provider = optionalString(init.provider)
    const kind: ProviderFailureKind =
      status === 429 && providerCode === 'insufficient_quota'
        ? 'quota'
        : status === undefined
          ? 'other'
          : kindOfStatus(status)
    const where = provider ? `${provider} ` : ''
    const text = optionalString(init.message) ?? 'no message'
    return new ModelProviderError(
      `The ${where}model provider answered HTTP ${status ?? describeValue(init.status)}: ${text.replace(/\.$/, '')}. ${adviceFor(kind)}`,
      {
        status,
        kind,
        retryAfterMs: parseRetryAfterMs(headers, typeof init.nowMs === 'number' ? init.nowMs : Date.now()),
        retryable:
          kind === 'quota' || shouldRetry === 'false' ? false : shouldRetry === 'true' ? true : undefined,
        providerCode,
        requestId: readHeader(headers, 'x-request-id') ?? readHeader(headers, 'request-id'),
        provider,
        cause: init.cause,
      },
    )
  }

  /**
   * Builds the error from a failed `fetch` response: {@link ModelProviderError.fromHttp} with the message
   * and code read from an OpenAI- or Anthropic-shaped JSON error body (at most 64 KiB of it is read).
   *
   * @example
   * ```ts
   * import { ModelProviderError } from '@agent-core/kits/models'
   * declare const init: RequestInit
   * declare const url: string
   * const response = await fetch(url, init)
   * if (!response.ok) throw await ModelProviderError.fromResponse(response, { provider: 'openai' })
   * ```
   */
  static async fromResponse(
    response: Response,
    options: { readonly provider?: string | undefined; readonly nowMs?: number | undefined } = {},
  ): Promise<ModelProviderError> {
    let body = ''
    try {
      body = (await response.text()).slice(0, 65_536)
    } catch {
      // The body could not be read (the connection dropped): the status still says enough.
    }
    const parsed = readErrorBody(body)
    return ModelProviderError.fromHttp({
      status: response.status,
      headers: response.headers,
      message: parsed.message ?? (body.trim().slice(0, 200) || response.statusText),
      providerCode: parsed.code,
      provider: options.provider,
      nowMs: options.nowMs,
    })
  }
}

/**
 * An HTTP failure as {@link ModelProviderError.fromHttp} reads it.
 *
 * @example
 * ```ts
 * import type { HttpFailure } from '@agent-core/kits/models'
 * const failure: HttpFailure = { status: 429, headers: { 'retry-after-ms': '500' }, message: 'Slow down' }
 * ```
 */
export interface HttpFailure {
  readonly status: number
  readonly headers?: HeaderSource | undefined
  /** The provider's message. */
  readonly message?: string | undefined
  /** The provider's error code, e.g. `insufficient_quota`. */
  readonly providerCode?: string | undefined
  readonly provider?: string | undefined
  readonly cause?: unknown
  /** The clock reading an HTTP-date `Retry-After` is counted from. Default `Date.now()`. */
  readonly nowMs?: number | undefined
}

function adviceFor(kind: ProviderFailureKind): string {
  switch (kind) {
    case 'rate-limit':
    case 'overloaded':
    case 'server':
    case 'timeout':
    case 'conflict':
      return 'Retry later (withRetry honours Retry-After).'
    case 'quota':
      return 'The account is out of quota; retrying will not help until it is raised.'
    case 'authentication':
      return 'Check the API key.'
    case 'permission':
      return 'The key may not use this model or resource.'
    case 'not-found':
      return 'Check the model name and the base URL.'
    case 'invalid-request':
      return 'Fix the request; retrying it unchanged will fail again.'
    default:
      return 'See the provider message.'
  }
}

function readErrorBody(body: string): { message?: string; code?: string } {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return {}
  }
  if (typeof json !== 'object' || json === null) return {}
  const error = (json as { error?: unknown }).error
  const source = typeof error === 'object' && error !== null ? error : json
  const { message, code, type } = source as { message?: unknown; code?: unknown; type?: unknown }
  const out: { message?: string; code?: string } = {}
  if (typeof message === 'string' && message) out.message = message
  else if (typeof error === 'string' && error) out.message = error
  if (typeof code === 'string' && code) out.code = code
  else if (typeof type === 'string' && type) out.code = type
  return out
}
