import { type AgentCoreError, describeValue, isAbortSignal, refuseField } from '@agent-core/core'
import { toFailure } from './internal/errors.js'

/**
 * Options of {@link fromAnthropicError}.
 * @example
 * ```ts
 * import type { FromAnthropicErrorOptions } from '@agent-core/kits/anthropic'
 * const options: FromAnthropicErrorOptions = { point: 'counting tokens' }
 * ```
 */
export interface FromAnthropicErrorOptions {
  /** The signal the failed call ran under: once it aborted, the failure is the cancellation. */
  readonly signal?: AbortSignal | undefined
  /** Who serves the model, for the message and `details.provider`. Default `anthropic`. */
  readonly provider?: string | undefined
  /** What was under way, for the message. Default `calling the API`. */
  readonly point?: string | undefined
}

const NEVER = new AbortController().signal

/**
 * Maps anything the `@anthropic-ai/sdk` client throws to the `AgentCoreError` agent-core code branches
 * on, as the chat model does: an HTTP error becomes a `ModelProviderError` with `status`, `retryAfterMs`
 * (from `retry-after-ms` / `Retry-After`) and `retryable` (honouring `x-should-retry`); an error event
 * inside a stream keeps its Anthropic type as the kind (`overloaded_error` is `overloaded`, retryable); a
 * connection failure is `kind: 'network'`, the client's own timeout `kind: 'timeout'`, unreadable JSON
 * `kind: 'invalid-response'`; and when `signal` aborted, the result is the `AbortedError` (or the
 * deadline's `TimeoutError`), never retried. Use it around your own SDK calls (token counting, batches)
 * so `withRetry` treats them alike.
 *
 * @param error - what the SDK threw
 * @throws `InvalidInputError` for malformed options
 * @example
 * ```ts
 * import Anthropic from '@anthropic-ai/sdk'
 * import { fromAnthropicError } from '@agent-core/kits/anthropic'
 * import { defineModelBinding } from '@agent-core/kits/models'
 *
 * const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:8787', maxRetries: 0 })
 * const count = defineModelBinding({
 *   id: 'count',
 *   identity: 'claude-sonnet-4-6',
 *   async invoke(text: string, context) {
 *     try {
 *       const result = await client.messages.countTokens(
 *         { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: text }] },
 *         { signal: context.signal },
 *       )
 *       return result.input_tokens
 *     } catch (error) {
 *       throw fromAnthropicError(error, { signal: context.signal, point: 'counting tokens' })
 *     }
 *   },
 * })
 * ```
 */
export function fromAnthropicError(error: unknown, options: FromAnthropicErrorOptions = {}): AgentCoreError {
  if (typeof options !== 'object' || options === null)
    refuseField(
      'input',
      'options',
      `must be an object or left out, but got ${describeValue(options)}`,
      options,
    )
  const { signal, provider, point } = options
  if (signal !== undefined && !isAbortSignal(signal))
    refuseField(
      'input',
      'options.signal',
      `must be an AbortSignal or left out, but got ${describeValue(signal)}`,
      signal,
    )
  for (const [field, value] of [
    ['options.provider', provider],
    ['options.point', point],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      refuseField(
        'input',
        field,
        `must be a non-empty string or left out, but got ${describeValue(value)}`,
        value,
      )
  }
  return toFailure(error, signal ?? NEVER, provider ?? 'anthropic', point ?? 'calling the API')
}
