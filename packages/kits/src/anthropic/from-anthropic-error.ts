import { type AgentCoreError, FieldReader, isAbortSignal } from '@agent-core/core'
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
  const fields = new FieldReader(options, 'options', 'an object { signal?, provider?, point? } or left out')
  const signal = fields.get('signal')
  if (signal !== undefined && !isAbortSignal(signal))
    fields.mustBe('signal', 'an AbortSignal or left out', signal)
  const provider = fields.string('provider')
  const point = fields.string('point')
  fields.done()
  return toFailure(
    error,
    (signal as AbortSignal | undefined) ?? NEVER,
    provider ?? 'anthropic',
    point ?? 'calling the API',
  )
}
