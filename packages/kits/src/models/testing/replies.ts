/**
 * The scripted replies of the chat model conformance suite: what the backend behind the model under test
 * answers, in a provider-neutral form. A harness turns them into its backend's script (MockGPT entries
 * with {@link scriptMockGPT}, scripted turns, recorded fixtures, ...).
 */

/**
 * A JSON value, as the tool arguments and JSON answers of {@link ConformanceReply} carry it.
 * @example
 * ```ts
 * import type { ConformanceJson } from '@agent-core/kits/models/testing'
 * const value: ConformanceJson = { ok: true, tags: ['a', 'b'], score: 0.5, note: null }
 * ```
 */
export type ConformanceJson =
  | string
  | number
  | boolean
  | null
  | readonly ConformanceJson[]
  | { readonly [key: string]: ConformanceJson }

/**
 * One tool call of a scripted reply: the tool's name and its arguments (an object, sent as JSON text). The
 * backend picks the call id.
 * @example
 * ```ts
 * import type { ConformanceToolCall } from '@agent-core/kits/models/testing'
 * const call: ConformanceToolCall = { name: 'get_weather', arguments: { city: 'Lisbon' } }
 * ```
 */
export interface ConformanceToolCall {
  readonly name: string
  readonly arguments: { readonly [key: string]: ConformanceJson }
}

/**
 * One answer of the backend behind the model under test, for one model request (the suite scripts them in
 * the order the requests go out). A discriminated union on `type`:
 * - `text`: the assistant's text, streamed in several pieces; `reasoning` is thinking sent before it (only
 *   scripted when the options declare `reasoning`); `finishReason: 'length'` marks a cut answer.
 * - `tool-calls`: the model asks for these tool calls (several: parallel calls), in this order.
 * - `json`: the content is this JSON value (the request asks for a JSON response format).
 * - `tool-results`: text listing the tool results the request carries, one line `<tool name>: <output>`
 *   each, in conversation order (checks the adapter sends results paired with their calls).
 * - `error`: the provider refuses the request with this HTTP status (`retryAfterMs` as `retry-after-ms`,
 *   `retryAfterSeconds` as `Retry-After`).
 * - `hang`: the backend sends nothing more after the first pieces of `text` (nothing at all without it),
 *   until the client gives up.
 * - `disconnect`: the connection drops after the first pieces of `text`, without a finish (only scripted
 *   when the options declare `disconnects`).
 * @example
 * ```ts
 * import type { ConformanceReply } from '@agent-core/kits/models/testing'
 * const replies: ConformanceReply[] = [
 *   { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] },
 *   { type: 'tool-results' },
 *   { type: 'error', status: 429, retryAfterSeconds: 3 },
 * ]
 * ```
 */
export type ConformanceReply =
  | {
      readonly type: 'text'
      readonly text: string
      readonly reasoning?: string | undefined
      readonly finishReason?: 'stop' | 'length' | undefined
    }
  | { readonly type: 'tool-calls'; readonly calls: readonly ConformanceToolCall[] }
  | { readonly type: 'json'; readonly value: ConformanceJson }
  | { readonly type: 'tool-results' }
  | {
      readonly type: 'error'
      readonly status: number
      readonly message?: string | undefined
      readonly retryAfterMs?: number | undefined
      readonly retryAfterSeconds?: number | undefined
    }
  | { readonly type: 'hang'; readonly text?: string | undefined }
  | { readonly type: 'disconnect'; readonly text: string }

/**
 * The text a `tool-results` reply answers for these results: one `<tool name>: <output>` line each.
 * @example
 * ```ts
 * import { toolResultsText } from '@agent-core/kits/models/testing'
 * toolResultsText([{ name: 'get_weather', output: 'sunny' }]) // 'get_weather: sunny'
 * ```
 */
export function toolResultsText(
  results: readonly { readonly name: string; readonly output: string }[],
): string {
  return results.map((result) => `${result.name}: ${result.output}`).join('\n')
}
