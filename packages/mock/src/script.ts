import type { MockStreamController } from './stream-controller.js'

/**
 * The endpoints MockGPT answers: OpenAI chat completions, the Responses API, the Anthropic Messages API
 * (`POST /v1/messages`), embeddings and model listing.
 * @example
 * ```ts
 * import type { MockEndpoint, MockScriptEntry } from '@agent-core/mock'
 * const endpoint: MockEndpoint = 'embeddings'
 * const entry: MockScriptEntry = { reply: { type: 'error', status: 500 }, match: { endpoint } }
 * ```
 */
export type MockEndpoint = 'chat.completions' | 'responses' | 'messages' | 'embeddings' | 'models'

/**
 * A tool call in a scripted reply. Object arguments are checked against the tool's schema; a string is
 * sent verbatim.
 * @example
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
  /**
   * An object (checked against the offered tool's parameters schema, then serialised), a raw JSON string
   * sent verbatim (use it to simulate broken model output), or omitted to generate arguments from the
   * schema.
   */
  readonly arguments?: string | Readonly<Record<string, unknown>> | undefined
  readonly id?: string | undefined
}

/**
 * A scripted answer: a discriminated union on `type`.
 * - `text`: assistant text, streamed token by token (or as the given `chunks`).
 * - `tool-calls`: one or more tool calls (parallel calls stream interleaved by `index`), optional text first.
 * - `json`: a JSON value as the content; omitted `value` is generated from the request's `json_schema`.
 * - `error`: an OpenAI-shaped (or, on `/v1/messages`, Anthropic-shaped) error with a status and optional
 *   retry headers.
 * - `raw-chunks`: an SSE body written exactly as given (strings verbatim, objects as `data: <json>`).
 * - `controlled-stream`: an SSE body the test writes step by step through a {@link MockStreamController}.
 *
 * `text`, `tool-calls` and `json` take an optional `reasoning`: the model's thinking, sent before the answer
 * as `reasoning_content` deltas (chat completions), a reasoning item (Responses API) or a thinking block
 * (Anthropic Messages).
 * @example
 * ```ts
 * import type { MockReply } from '@agent-core/mock'
 * const replies: MockReply[] = [
 *   { type: 'text', text: 'Hello!', reasoning: 'The user greets me; greet back.' },
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
      /** Thinking sent before the text (streamed token by token). */
      readonly reasoning?: string | undefined
    }
  | {
      readonly type: 'tool-calls'
      readonly calls: readonly MockToolCallScript[]
      readonly text?: string | undefined
      /** Thinking sent before the calls (streamed token by token). */
      readonly reasoning?: string | undefined
    }
  | {
      readonly type: 'json'
      readonly value?: unknown
      /** Thinking sent before the value (streamed token by token). */
      readonly reasoning?: string | undefined
    }
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
      /** Sent as `x-should-retry: true|false` (the OpenAI and Anthropic SDKs obey it). */
      readonly shouldRetry?: boolean | undefined
    }
  | { readonly type: 'raw-chunks'; readonly chunks: readonly (string | Readonly<Record<string, unknown>>)[] }
  | { readonly type: 'controlled-stream'; readonly controller: MockStreamController }

/**
 * A reply computed from the request, in code only (JSON scripts cannot hold functions). It runs
 * synchronously when its entry matches and returns a {@link MockReply}; a thrown error, a Promise or a
 * malformed reply is a script error (see {@link MockScriptEntry}). Use it to answer from the tool results
 * in the conversation.
 * @example
 * ```ts
 * import type { MockComputedReply } from '@agent-core/mock'
 * const reply: MockComputedReply = (request) =>
 *   request.toolResults.length === 0
 *     ? { type: 'tool-calls', calls: [{ name: 'search', arguments: { query: request.lastUserMessage } }] }
 *     : { type: 'text', text: `Found: ${request.toolResults.map((r) => r.output).join(' ')}` }
 * ```
 */
export type MockComputedReply = (request: MockRequestView) => MockReply

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

/**
 * One message of the conversation as a script sees it.
 * @example
 * ```ts
 * import type { MockMessageView } from '@agent-core/mock'
 * const message: MockMessageView = { role: 'tool', text: '{"hits":3}', toolCallId: 'call_1', toolName: 'search' }
 * ```
 */
export interface MockMessageView {
  /** `system`, `developer`, `user`, `assistant` or `tool` (Anthropic tool results appear as `tool`). */
  readonly role: string
  /** The text of the message; for an assistant turn with tool calls, the text and then `name(arguments)`. */
  readonly text: string
  /** On an assistant message: the tool calls it made. */
  readonly toolCalls?: readonly MockToolCallView[] | undefined
  /** On a tool message: the id of the call it answers. */
  readonly toolCallId?: string | undefined
  /** On a tool message: the name of the tool whose call it answers, when the conversation shows it. */
  readonly toolName?: string | undefined
}

/**
 * A tool call made earlier in the conversation.
 * @example
 * ```ts
 * import type { MockToolCallView } from '@agent-core/mock'
 * const call: MockToolCallView = { id: 'call_1', name: 'search', arguments: '{"query":"otters"}' }
 * ```
 */
export interface MockToolCallView {
  readonly id: string
  readonly name: string
  /** The arguments as the client sent them back (a JSON string). */
  readonly arguments: string
}

/**
 * A tool result in the conversation, paired with the call it answers.
 * @example
 * ```ts
 * import type { MockToolResultView } from '@agent-core/mock'
 * const result: MockToolResultView = { callId: 'call_1', name: 'search', arguments: '{"query":"otters"}', output: '3 hits' }
 * ```
 */
export interface MockToolResultView {
  readonly callId: string
  /** The tool's name (`''` when the conversation does not contain the call). */
  readonly name: string
  /** The call's arguments (`''` when the conversation does not contain the call). */
  readonly arguments: string
  /** The result text the client sent. */
  readonly output: string
}

/**
 * What a script predicate or a computed reply sees of a request.
 * @example
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
  /** Every message (chat), input item (Responses) or message (Anthropic), in order. */
  readonly messages: readonly MockMessageView[]
  /** The text of the last user message, `''` when there is none. */
  readonly lastUserMessage: string
  /** The names of the tools the request offers. */
  readonly toolNames: readonly string[]
  /** Every tool call the assistant made earlier in the conversation, oldest first. */
  readonly toolCalls: readonly MockToolCallView[]
  /** Every tool result in the conversation, oldest first, each paired with its call. */
  readonly toolResults: readonly MockToolResultView[]
  /** The turn this request asks for: how many assistant turns the conversation already has (0 = first). */
  readonly turn: number
  /** The parsed JSON body as sent. */
  readonly body: unknown
  /** The request's position in its scope's recording (0-based). */
  readonly index: number
  /** The test scope (`X-Test-Id` header or `/test/<id>/` path prefix); `undefined` for the default scope. */
  readonly testId: string | undefined
}

/**
 * A declarative match (usable from JSON script files); every given field must hold.
 * @example
 * ```ts
 * import type { MockMatch } from '@agent-core/mock'
 * const match: MockMatch = { endpoint: 'responses', stream: true, lastUserMessageMatches: 'summar(y|ise)' }
 * ```
 */
export interface MockMatch {
  /** Default: `['chat.completions', 'responses', 'messages']`. */
  readonly endpoint?: MockEndpoint | readonly MockEndpoint[] | undefined
  /** The request's model is this one (or one of these). */
  readonly model?: string | readonly string[] | undefined
  /** The last user message contains this text. */
  readonly lastUserMessageIncludes?: string | undefined
  /**
   * The last user message matches this regular expression (a `RegExp` in code, its source in JSON; a
   * string is compiled with the `u` flag).
   */
  readonly lastUserMessageMatches?: string | RegExp | undefined
  readonly stream?: boolean | undefined
  /** The request offers tools (true) or none (false). */
  readonly hasTools?: boolean | undefined
  /** The request offers a tool of this name. */
  readonly toolOffered?: string | undefined
  /** The conversation already contains a call to a tool of this name (the assistant called it earlier). */
  readonly toolCalled?: string | undefined
  /** The request asks for this turn: the conversation has exactly this many assistant turns (0 = first). */
  readonly turn?: number | undefined
}

/**
 * One scripted step. Entries are tried in order; the first one whose `match` holds answers the request and
 * is used up after `times` matches (default 1; `Infinity` keeps it).
 *
 * - `reply`: a {@link MockReply}, or (in code) a {@link MockComputedReply} that computes one from the request.
 * - `sequence`: replies for turn 0, 1, 2, ... of a conversation: a request whose conversation already has
 *   `k` assistant turns gets `sequence[k]` (each step answers `times` times). Use it for an agent loop:
 *   tool call first, answer after the tool result.
 * - With neither, the default responder answers (useful to attach `faults` alone).
 *
 * A reply that cannot be sent as scripted (a value that breaks the request's schema, a call to a tool the
 * request does not offer, a computed reply that throws) is a script error: a non-retryable 400 naming the
 * entry, recorded so that `assertAllScriptsUsed()` and the server's `close()` fail. The scope then answers
 * every model request with that error until `reset()`, so nothing can fall through to generated data.
 * @example
 * ```ts
 * import { createMockGPT, type MockScriptEntry } from '@agent-core/mock'
 * const script: MockScriptEntry[] = [
 *   { reply: { type: 'text', text: 'Always this.' }, times: Number.POSITIVE_INFINITY, match: { model: 'gpt-4o' } },
 *   {
 *     label: 'agent loop',
 *     sequence: [
 *       { type: 'tool-calls', calls: [{ name: 'search', arguments: { query: 'otters' } }] },
 *       { type: 'text', text: 'Otters hold hands while sleeping.' },
 *     ],
 *   },
 *   { faults: [{ type: 'malformed-chunk' }] },
 * ]
 * const mock = createMockGPT({ script })
 * ```
 */
export interface MockScriptEntry {
  readonly reply?: MockReply | MockComputedReply | undefined
  readonly sequence?: readonly (MockReply | MockComputedReply)[] | undefined
  readonly match?: MockMatch | ((request: MockRequestView) => boolean) | undefined
  readonly times?: number | undefined
  readonly faults?: readonly MockFault[] | undefined
  /** A name for the entry in errors and in `assertAllScriptsUsed()` (default: its position). */
  readonly label?: string | undefined
}

/**
 * A seeded chaos monkey: each model request fails with probability `rate`, with a fault picked from `faults`.
 * The default pool holds only faults a correct client recovers from: 429, 500 and 503 with `Retry-After`, a
 * slow first byte and slow chunks. `unrecoverable: true` adds a dropped stream and a malformed chunk.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 9, chaos: { rate: 0.2, faults: [{ type: 'status', status: 503, retryAfterMs: 50 }] } })
 * ```
 */
export interface MockChaos {
  /** From 0 (never) to 1 (always). */
  readonly rate: number
  /** The pool to pick from. Default: the recoverable pool (see above). */
  readonly faults?: readonly MockFault[] | undefined
  /** Add a disconnect after 2 chunks and a malformed chunk to the default pool. Default false. */
  readonly unrecoverable?: boolean | undefined
}

/**
 * Limits past which every model request is answered 429 with the usage so far.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ budget: { maxCalls: 10, maxTokens: 5_000 } })
 * ```
 */
export interface MockBudget {
  readonly maxCalls?: number | undefined
  readonly maxTokens?: number | undefined
}
