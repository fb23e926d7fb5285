import { type AgentCoreError, FieldReader, isAbortSignal } from '@agent-core/core'
import { toFailure } from './internal/errors.js'

/**
 * Options of {@link fromOpenAIError}.
 * @example
 * ```ts
 * import type { FromOpenAIErrorOptions } from '@agent-core/kits/openai'
 * const options: FromOpenAIErrorOptions = { provider: 'vllm', point: 'embedding the documents' }
 * ```
 */
export interface FromOpenAIErrorOptions {
  /** The signal the failed call ran under: once it aborted, the failure is the cancellation. */
  readonly signal?: AbortSignal | undefined
  /** Who serves the model, for the message and `details.provider`. Default `openai`. */
  readonly provider?: string | undefined
  /** What was under way, for the message. Default `calling the API`. */
  readonly point?: string | undefined
}

const NEVER = new AbortController().signal

/**
 * Maps anything the `openai` SDK throws to the `AgentCoreError` agent-core code branches on, as the chat
 * model does:
 * an HTTP error becomes a `ModelProviderError` with `status`, `retryAfterMs` (from `retry-after-ms` /
 * `Retry-After`) and `retryable` (honouring `x-should-retry`); a connection failure is `kind: 'network'`,
 * the client's own timeout `kind: 'timeout'`, unreadable JSON `kind: 'invalid-response'`; and when
 * `signal` aborted, the result is the `AbortedError` (or the deadline's `TimeoutError`), never retried.
 * Use it around your own SDK calls (embeddings, moderation, files) so `withRetry` treats them alike.
 *
 * @param error - what the SDK threw
 * @throws `InvalidInputError` for malformed options
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * import { defineModelBinding } from '@agent-core/kits/models'
 * import { fromOpenAIError } from '@agent-core/kits/openai'
 *
 * const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:8787/v1', maxRetries: 0 })
 * const embed = defineModelBinding({
 *   id: 'embed',
 *   identity: 'text-embedding-3-small',
 *   async invoke(texts: string[], context) {
 *     try {
 *       const result = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts }, { signal: context.signal })
 *       return result.data.map((item) => item.embedding)
 *     } catch (error) {
 *       throw fromOpenAIError(error, { signal: context.signal, point: 'embedding texts' })
 *     }
 *   },
 * })
 * ```
 */
export function fromOpenAIError(error: unknown, options: FromOpenAIErrorOptions = {}): AgentCoreError {
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
    provider ?? 'openai',
    point ?? 'calling the API',
  )
}
