import type { MockStreamController } from './stream-controller.js'

/** The endpoints MockGPT answers.  * @example
 * ```ts
 * import type { MockEndpoint, MockScriptEntry } from '@agent-core/mock'
 * const endpoint: MockEndpoint = 'embeddings'
 * const entry: MockScriptEntry = { reply: { type: 'error', status: 500 }, match: { endpoint } }
 * ```
 */
export type MockEndpoint = 'chat.completions' | 'responses' | 'embeddings' | 'models'

/** A tool call in a scripted reply. Object arguments are checked against the tool's schema; a string is sent verbatim.  * @example
 * ```ts
 * import type { MockToolCallScript } from '@agent-core/mock'
 * const calls: MockToolCallScript[] = [
 *   { name: 'get_weather', arguments: { city: 'Lisbon' } },
 *   { name: 'get_time' },
 *   { name: 'broken', arguments: '{"oops": ' },
 * ]
 * ```
 */
export interface MockToolCallScript {
  readonly name: string
  /** An object (checked against the offered tool's parameters schema, then serialised), a raw JSON string
   * sent verbatim (use it to simulate broken model output), or omitted to generate arguments from the schema. */
  readonly arguments?: string | Readonly<Record<string, unknown>> | undefined
  readonly id?: string | undefined
}

/**
 * A scripted answer: a discriminated union on `type`.
 * - `text`: assistant text, streamed token by token (or as the given `chunks`).
 * - `tool-calls`: one or more tool calls (parallel calls stream interleaved by `index`), optional text first.
 * - `json`: a JSON value as the content; omitted `value` is generated from the request's `json_schema`.
 * - `error`: an OpenAI-shaped error with a status and optional retry headers.
 * - `raw-chunks`: an SSE body written exactly as given (strings verbatim, objects as `data: <json>`).
 * - `controlled-stream`: an SSE body the test writes step by step through a {@link MockStreamController}.
 * @example
 * ```ts
 * import type { MockReply } from '@agent-core/mock'
 * const replies: MockReply[] = [
 *   { type: 'text', text: 'Hello!' },
 *   { type: 'tool-calls', calls: [{ name: 'search', arguments: { q: 'otters' } }] },
 *   { type: 'json', value: { ok: true } },
 *   { type: 'error', status: 429, retryAfterMs: 100 },
 *   { type: 'raw-chunks', chunks: [{ choices: [] }, 'data: [DONE]\n\n'] },
 * ]
 * ```
 */
export type MockReply =
  | {
      readonly type: 'text'
      readonly text: string
      /** Exact content deltas to stream; they must join to `text`. Default: one token per delta. */
      readonly chunks?: readonly string[] | undefined
      readonly finishReason?: 'stop' | 'length' | undefined
    }
  | {
      readonly type: 'tool-calls'
      readonly calls: readonly MockToolCallScript[]
      readonly text?: string | undefined
    }
  | { readonly type: 'json'; readonly value?: unknown }
  | {
      readonly type: 'error'
      readonly status: number
      readonly message?: string | undefined
      /** OpenAI error `type`; default by status (`rate_limit_error`, `server_error`, ...). */
      readonly errorType?: string | undefined
      readonly code?: string | null | undefined
      /** Sent as `retry-after-ms`. */
      readonly retryAfterMs?: number | undefined
      /** Sent as `Retry-After` (whole seconds). */
      readonly retryAfterSeconds?: number | undefined
      /** Sent as `x-should-retry: true|false` (the OpenAI SDKs obey it). */
      readonly shouldRetry?: boolean | undefined
    }
  | { readonly type: 'raw-chunks'; readonly chunks: readonly (string | Readonly<Record<string, unknown>>)[] }
  | { readonly type: 'controlled-stream'; readonly controller: MockStreamController }

/**
 * A failure to inject into one response.
 * - `status`: answer with this HTTP error instead (429/5xx with `Retry-After` and `retry-after-ms`).
 * - `slow-first-byte`: wait `delayMs` before the status line.
 * - `slow-chunks`: wait `delayMs` before every streamed chunk.
 * - `disconnect`: drop the connection after `afterChunks` chunks (default 1), so no `[DONE]` arrives; a JSON
 *   body is cut in half.
 * - `malformed-chunk`: send a `data:` line that is not valid JSON after `afterChunks` chunks (default 1);
 *   a JSON body is truncated.
 * - `hang`: stop sending after `afterChunks` chunks (default 0: not even headers) until the client gives up.
 * - `duplicate-finish`: send the finish chunk (or `response.completed`) twice. Streams only.
 * @example
 * ```ts
 * import type { MockFault } from '@agent-core/mock'
 * const faults: MockFault[] = [
 *   { type: 'slow-first-byte', delayMs: 200 },
 *   { type: 'disconnect', afterChunks: 3 },
 * ]
 * ```
 */
export type MockFault =
  | {
      readonly type: 'status'
      readonly status: number
      readonly message?: string | undefined
      readonly retryAfterMs?: number | undefined
      readonly retryAfterSeconds?: number | undefined
      readonly shouldRetry?: boolean | undefined
    }
  | { readonly type: 'slow-first-byte'; readonly delayMs: number }
  | { readonly type: 'slow-chunks'; readonly delayMs: number }
  | { readonly type: 'disconnect'; readonly afterChunks?: number | undefined }
  | { readonly type: 'malformed-chunk'; readonly afterChunks?: number | undefined }
  | { readonly type: 'hang'; readonly afterChunks?: number | undefined }
  | { readonly type: 'duplicate-finish' }

/** What a script predicate sees of a request.  * @example
 * ```ts
 * import { createMockGPT, type MockRequestView } from '@agent-core/mock'
 * const wantsWeather = (request: MockRequestView) => request.toolNames.includes('get_weather')
 * const mock = createMockGPT({ script: [{ reply: { type: 'tool-calls', calls: [{ name: 'get_weather' }] }, match: wantsWeather }] })
 * ```
 */
export interface MockRequestView {
  readonly endpoint: MockEndpoint
  readonly model: string
  readonly stream: boolean
  /** Every message (chat) or input item (Responses) reduced to its role and text. */
  readonly messages: readonly { readonly role: string; readonly text: string }[]
  /** The text of the last user message, `''` when there is none. */
  readonly lastUserMessage: string
  readonly toolNames: readonly string[]
  /** The parsed JSON body as sent. */
  readonly body: unknown
  /** The request's position in the recording (0-based). */
  readonly index: number
}

/** A declarative match (usable from JSON script files); every given field must hold.  * @example
 * ```ts
 * import type { MockMatch } from '@agent-core/mock'
 * const match: MockMatch = { endpoint: 'responses', stream: true, lastUserMessageIncludes: 'summary' }
 * ```
 */
export interface MockMatch {
  /** Default: `['chat.completions', 'responses']`. */
  readonly endpoint?: MockEndpoint | readonly MockEndpoint[] | undefined
  readonly model?: string | undefined
  /** The last user message contains this text. */
  readonly lastUserMessageIncludes?: string | undefined
  readonly stream?: boolean | undefined
  /** The request offers tools (true) or none (false). */
  readonly hasTools?: boolean | undefined
}

/**
 * One scripted step. Entries are tried in order; the first one whose `match` holds answers the request and
 * is used up after `times` matches (default 1; `Infinity` keeps it). With no `reply`, the default responder
 * answers (useful to attach `faults` alone).
 * @example
 * ```ts
 * import { createMockGPT, type MockScriptEntry } from '@agent-core/mock'
 * const script: MockScriptEntry[] = [
 *   { reply: { type: 'text', text: 'Always this.' }, times: Number.POSITIVE_INFINITY, match: { model: 'gpt-4o' } },
 *   { faults: [{ type: 'malformed-chunk' }] },
 * ]
 * const mock = createMockGPT({ script })
 * ```
 */
export interface MockScriptEntry {
  readonly reply?: MockReply | undefined
  readonly match?: MockMatch | ((request: MockRequestView) => boolean) | undefined
  readonly times?: number | undefined
  readonly faults?: readonly MockFault[] | undefined
}

/** A seeded chaos monkey: each model request fails with probability `rate`, with a fault picked from `faults`.  * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 9, chaos: { rate: 0.2, faults: [{ type: 'status', status: 503, retryAfterMs: 50 }] } })
 * ```
 */
export interface MockChaos {
  /** From 0 (never) to 1 (always). */
  readonly rate: number
  /** The pool to pick from. Default: 429 with retry-after-ms 10, 500, 503, disconnect after 2 chunks, a malformed chunk. */
  readonly faults?: readonly MockFault[] | undefined
}

/** Limits past which every model request is answered 429 with the usage so far.  * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ budget: { maxCalls: 10, maxTokens: 5_000 } })
 * ```
 */
export interface MockBudget {
  readonly maxCalls?: number | undefined
  readonly maxTokens?: number | undefined
}
