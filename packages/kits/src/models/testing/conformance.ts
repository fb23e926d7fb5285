import {
  type ChatModel,
  collectModelStream,
  createOperationContext,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type OperationContext,
} from '@agent-core/core'
import { registerAgentTests } from './agent-tests.js'
import { assert } from './assert.js'
import { registerFailureTests } from './failure-tests.js'
import type { ConformanceReply } from './replies.js'
import { assertWellFormedResponse, assertWellFormedStream } from './stream-checks.js'
import { registerTextTests } from './text-tests.js'
import { registerToolTests } from './tool-tests.js'

/**
 * What the `open` of {@link describeChatModelConformance} hands to each test: the model under test, wired
 * to a backend that plays the replies `open` was given.
 * @example
 * ```ts
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import type { ChatModelConformanceHarness } from '@agent-core/kits/models/testing'
 *
 * const harness: ChatModelConformanceHarness = {
 *   model: createScriptedModel([{ text: 'Hello!' }]),
 *   close: async () => {},
 * }
 * ```
 */
export interface ChatModelConformanceHarness {
  /** The model under test. */
  readonly model: ChatModel<unknown>
  /**
   * How many requests the backend has received so far (MockGPT: `server.mock.requests.length`). The
   * cancellation tests then abort a request once it arrived; without it they abort after a short wait,
   * which on a slow machine can come before the request, leaving a `hang` reply unplayed.
   */
  requests?(): number
  /**
   * Releases what `open` made, after the test. A backend that can tell may throw here when replies were
   * left unplayed (MockGPT's `assertAllScriptsUsed()`): the test then fails.
   */
  close?(): Promise<void>
}

/**
 * The test functions of a runner: `describe(name, body)` and `it(name, body)` as vitest, `node:test`,
 * jest and mocha all provide them (`suite` and `test` fit as well).
 * @example
 * ```ts no-run
 * import { suite, test } from 'node:test'
 * import type { ChatModelConformanceRunner } from '@agent-core/kits/models/testing'
 *
 * const runner: ChatModelConformanceRunner = { describe: suite, it: test }
 * ```
 */
export interface ChatModelConformanceRunner {
  /** Groups tests: the runner's `describe` (or `suite`). */
  readonly describe: (name: string, body: () => void) => unknown
  /** Registers one asynchronous test: the runner's `it` (or `test`). */
  readonly it: (name: string, body: () => Promise<void>) => unknown
}

/**
 * Options of {@link describeChatModelConformance}.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 * import { type ChatModelConformanceOptions, scriptMockGPT } from '@agent-core/kits/models/testing'
 * import { startMockGPTServer } from '@agent-core/mock/node'
 *
 * const server = await startMockGPTServer({ apiKey: 'sk-test' })
 * const options: ChatModelConformanceOptions = {
 *   describe,
 *   it,
 *   name: 'openai',
 *   open: async (replies) => {
 *     server.mock.reset()
 *     scriptMockGPT(server.mock, replies)
 *     return {
 *       model: createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL }),
 *       requests: () => server.mock.requests.length,
 *       close: async () => server.mock.assertAllScriptsUsed(),
 *     }
 *   },
 *   reasoning: true,
 *   disconnects: true,
 * }
 * ```
 */
export interface ChatModelConformanceOptions extends ChatModelConformanceRunner {
  /** Names the suite: its tests are grouped under `<name>: chat model conformance`. */
  readonly name: string
  /**
   * Makes the model under test for one test, its backend scripted to answer the model's requests with
   * `replies`, one each, in order. Called once per test; the harness is closed after it.
   */
  open(replies: readonly ConformanceReply[]): Promise<ChatModelConformanceHarness>
  /** The model offers `stream` (default `true`): test streaming too; `false` tests a `generate`-only model. */
  readonly stream?: boolean | undefined
  /** The model reports the provider's reasoning as `thinking` (default `false`). */
  readonly reasoning?: boolean | undefined
  /** The backend can drop a streamed answer midway (`disconnect` replies, default `false`). */
  readonly disconnects?: boolean | undefined
}

/** What the section files register tests with. */
export interface ConformanceSuite {
  readonly options: ChatModelConformanceOptions
  readonly streams: boolean
  /** Registers a test that opens a harness for `replies`, runs `body` with its model and closes it. */
  test(
    name: string,
    replies: readonly ConformanceReply[],
    body: (model: ChatModel<unknown>, harness: ChatModelConformanceHarness) => Promise<void>,
  ): void
}

/** A deep-frozen copy of `value`: requests go in frozen, so an adapter that writes to one fails. */
export function frozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {}
  for (const [key, item] of Object.entries(value)) (copy as Record<string, unknown>)[key] = frozen(item)
  return Object.freeze(copy) as T
}

/** A fresh operation context, with `signal` when given. */
export function contextOf(signal?: AbortSignal): OperationContext<unknown> {
  return createOperationContext(signal ? { signal } : {})
}

/** `model.generate` on a frozen copy of `request`, the answer checked for its shape. */
export async function generate(
  model: ChatModel<unknown>,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<ModelResponse> {
  const response = await model.generate(frozen(request), contextOf(signal))
  assertWellFormedResponse(response)
  return response
}

/** Every event of `model.stream` on a frozen copy of `request`, the stream checked for its shape. */
export async function streamEvents(
  model: ChatModel<unknown>,
  request: ModelRequest,
): Promise<ModelStreamEvent[]> {
  assert.equal(typeof model.stream, 'function', 'the options say the model streams, but it has no stream')
  const events: ModelStreamEvent[] = []
  for await (const event of model.stream!(frozen(request), contextOf())) events.push(event)
  assertWellFormedStream(events)
  return events
}

/** The response a stream folds to (after checking the stream). */
export async function streamed(model: ChatModel<unknown>, request: ModelRequest): Promise<ModelResponse> {
  const events = await streamEvents(model, request)
  return collectModelStream(
    (async function* replay() {
      yield* events
    })(),
  )
}

/**
 * Runs `action` once the backend received a request (polling `harness.requests`, for at most ten seconds),
 * or after a short wait when the harness cannot tell. Returns a function that cancels it.
 */
export function afterArrival(harness: ChatModelConformanceHarness, action: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let polls = 0
  const poll = () => {
    if (harness.requests === undefined || harness.requests() > 0 || ++polls > 2000) action()
    else timer = setTimeout(poll, 5)
  }
  timer = setTimeout(poll, harness.requests === undefined ? 20 : 0)
  return () => clearTimeout(timer)
}

function checkHarness(harness: unknown): ChatModelConformanceHarness {
  const candidate = harness as Partial<ChatModelConformanceHarness> | null
  assert.ok(
    typeof candidate === 'object' && candidate !== null,
    'open() must resolve to a harness { model, close? }',
  )
  const model = candidate.model as Partial<ChatModel<unknown>> | undefined
  assert.ok(
    typeof model === 'object' && model !== null && typeof model.generate === 'function',
    'open() must resolve to { model } where model is a ChatModel { identity, generate, stream? }',
  )
  return candidate as ChatModelConformanceHarness
}

/**
 * Registers the conformance tests of a core `ChatModel` adapter with any test runner's `describe` and `it`:
 * text streaming (deltas that join to the answer, one `finish` last, `generate` agreeing with the folded
 * stream, finish reasons), usage, tool calls (single and parallel, arguments that parse, results sent
 * back paired with their calls), JSON response formats, reasoning, provider errors as
 * `ModelProviderError` with the kinds and `retryAfterMs` of `@agent-core/kits/models` (a 429 with
 * `Retry-After`, then recovery through `withRetry`), cancellation (`AbortedError` before and during a
 * request, a stream left early), dropped streams, and the loop guide's first agent running unchanged on
 * the model. Every request goes in deep-frozen, and every stream is checked against the event contract
 * ({@link assertWellFormedStream}).
 *
 * The suite controls the backend: each test calls `options.open(replies)` with the replies the backend
 * must play, one per model request. For a model wired to MockGPT, {@link scriptMockGPT} turns them into
 * MockGPT script entries. It imports no test framework; assertions use `node:assert/strict`.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'vitest'
 * import { createOpenAIChatModel } from '@agent-core/kits/openai'
 * import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
 * import { startMockGPTServer } from '@agent-core/mock/node'
 *
 * const server = await startMockGPTServer({ apiKey: 'sk-test' })
 * describeChatModelConformance({
 *   describe,
 *   it,
 *   name: 'openai',
 *   open: async (replies) => {
 *     server.mock.reset()
 *     scriptMockGPT(server.mock, replies)
 *     return {
 *       model: createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL }),
 *       requests: () => server.mock.requests.length,
 *       close: async () => server.mock.assertAllScriptsUsed(),
 *     }
 *   },
 *   reasoning: true,
 *   disconnects: true,
 * })
 * ```
 */
export function describeChatModelConformance(options: ChatModelConformanceOptions): void {
  assert.ok(typeof options === 'object' && options !== null, 'options must be an object')
  assert.equal(typeof options.describe, 'function', 'options.describe must be the runner’s describe')
  assert.equal(typeof options.it, 'function', 'options.it must be the runner’s it')
  assert.equal(typeof options.open, 'function', 'options.open must be a function (replies) => harness')
  assert.ok(
    typeof options.name === 'string' && options.name !== '',
    'options.name must be a non-empty string',
  )
  const suite: ConformanceSuite = {
    options,
    streams: options.stream !== false,
    test(name, replies, body) {
      options.it(name, async () => {
        const harness = checkHarness(await options.open(frozen(replies)))
        let failed = false
        try {
          await body(harness.model, harness)
        } catch (error) {
          failed = true
          throw error
        } finally {
          // A failed body's own error says more than the backend's complaint about unplayed replies.
          if (failed) await harness.close?.().catch(() => undefined)
          else await harness.close?.()
        }
      })
    },
  }
  options.describe(`${options.name}: chat model conformance`, () => {
    registerTextTests(suite)
    registerToolTests(suite)
    registerFailureTests(suite)
    registerAgentTests(suite)
  })
}
