import { describeValue, InvalidInputError } from '@agent-core/core'
import { budgetExhausted, checkApiKey } from './internal/access.js'
import {
  type Answer,
  type AnswerContext,
  isScriptProblem,
  planAnswer,
  scriptProblem,
} from './internal/answer.js'
import { toAnthropicError } from './internal/anthropic-error.js'
import { BodyCache, type BodyEntry, withBody } from './internal/body-cache.js'
import { contentKeyOf } from './internal/content-key.js'
import { embeddingsResponse } from './internal/embeddings.js'
import { applyFaults, MALFORMED_MESSAGE_EVENT } from './internal/faults.js'
import { deterministicId, foldSeed, hashString, NumberedIds } from './internal/hash.js'
import {
  errorReplyResponse,
  errorToResponse,
  json,
  methodNotAllowed,
  type ParsedBody,
  parseBody,
  queryOf,
  requireJsonObject,
  splitPath,
  stringHeaders,
} from './internal/http.js'
import { Journal, type MutableRecord } from './internal/journal.js'
import type { NormalizedMessage, NormalizedRequest } from './internal/normalize.js'
import { normalizeChatRequest } from './internal/normalize-chat.js'
import { normalizeMessagesRequest } from './internal/normalize-messages.js'
import { normalizeResponsesRequest } from './internal/normalize-responses.js'
import { badRequest, MockRequestError, openAIErrorResponse } from './internal/openai-error.js'
import { mulberry32 } from './internal/prng.js'
import { PromptCache } from './internal/prompt-cache.js'
import { jsonTextResponse, renderAnswer, sseResponse } from './internal/render-answer.js'
import type { RenderMeta } from './internal/render-chat.js'
import type { MockFixture } from './internal/replay.js'
import { ReplayBook } from './internal/replay.js'
import { checkRequestParams } from './internal/request-params.js'
import { embeddingsView, requestView } from './internal/request-view.js'
import { type ResolvedOptions, resolveOptions } from './internal/resolve-options.js'
import { entryName, ScriptQueue, type TakenEntry } from './internal/script-queue.js'
import { assertScriptEntry, runComputedReply } from './internal/validate-script.js'
import type { MockHttpRequest, MockHttpResponse, MockStreamStep } from './mock-http.js'
import { MockScriptError, type MockScriptProblem, scriptErrorMessage } from './mock-script-error.js'
import { parseMockScript } from './parse-mock-script.js'
import type {
  MockBudget,
  MockChaos,
  MockEndpoint,
  MockFault,
  MockReply,
  MockRequestView,
  MockScriptEntry,
} from './script.js'
import { controllerSteps } from './stream-controller.js'

/**
 * Options of {@link createMockGPT}. Every field is optional.
 * @example
 * ```ts
 * import { createMockGPT, type MockGPTOptions } from '@agent-core/mock'
 * const options: MockGPTOptions = { seed: 1, apiKey: 'sk-test', budget: { maxCalls: 100 }, chaos: { rate: 0.1 } }
 * const mock = createMockGPT(options)
 * ```
 */
export interface MockGPTOptions {
  /** Seeds every generated text, JSON value, id, embedding and chaos roll. Default 0. */
  readonly seed?: number | undefined
  /**
   * When set, model requests must carry one of these keys (`Authorization: Bearer <key>`, or `x-api-key`
   * as the Anthropic SDK sends it).
   */
  readonly apiKey?: string | readonly string[] | undefined
  /** The ids `GET /v1/models` lists. Requests may name any model. */
  readonly models?: readonly string[] | undefined
  /**
   * Scripted replies, used in order (see {@link MockScriptEntry}). `reset()` restores this script; every
   * test scope starts from it too.
   */
  readonly script?: readonly MockScriptEntry[] | undefined
  /** A seeded failure rate for model requests. */
  readonly chaos?: MockChaos | undefined
  /** Call and token limits (per scope); past them model requests get a 429 with the usage so far. */
  readonly budget?: MockBudget | undefined
  /** The clock for `created` timestamps, in milliseconds. Default `Date.now`. */
  readonly now?: (() => number) | undefined
  /**
   * Strict mode for CI (off by default, for exploratory use): a model request no script entry (or replay
   * fixture) matches is a non-retryable 400 with the request's summary, recorded as a script problem, never
   * a generated answer; and request fields the official SDKs do not define are refused.
   */
  readonly strict?: boolean | undefined
  /** Bounds of each scope's request journal. Default 1000 requests and 64 MiB; the oldest are dropped. */
  readonly journal?:
    | { readonly maxEntries?: number | undefined; readonly maxBytes?: number | undefined }
    | undefined
  /**
   * Keep credential headers (`authorization`, `x-api-key`, `api-key`, `cookie`, ...) in recorded requests.
   * Default false: they are recorded as `<redacted>` (a scheme such as `Bearer` is kept).
   */
  readonly recordCredentials?: boolean | undefined
  /**
   * A token the admin routes (`/_mock/*`) require, as `Authorization: Bearer <token>` or
   * `x-mockgpt-admin-token`. The node server generates one when it listens on anything but loopback.
   */
  readonly adminToken?: string | undefined
  /**
   * Browser origins allowed to call the admin routes (CORS and `Origin` check), e.g.
   * `['http://localhost:5173']`. Default none: a web page cannot read or change the mock's state.
   */
  readonly adminOrigins?: readonly string[] | undefined
  /**
   * Recorded upstream interactions to answer from (see `parseMockFixtures`). A request that matches one
   * (same method, path and JSON body) gets the recorded response, after the script and before the default
   * responder; in strict mode a request that matches neither is an error.
   */
  readonly replay?: readonly MockFixture[] | undefined
}

/**
 * Calls and tokens MockGPT has answered since creation or the last `reset()`.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT()
 * const { calls, totalTokens } = mock.usage // 0 0
 * ```
 */
export interface MockUsage {
  readonly calls: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/**
 * One request MockGPT received (admin `/_mock/*` requests excluded), for assertions.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT()
 * // ... after the code under test ran:
 * const last = mock.requests.at(-1)
 * console.log(last?.path, last?.status, last?.body)
 * ```
 */
export interface RecordedRequest {
  /** 0-based position in its scope since creation or the last reset (dropped entries keep their index). */
  readonly index: number
  /** The test scope; `undefined` for the default scope. */
  readonly testId: string | undefined
  readonly method: string
  /** The path without the query (and without a `/test/<id>` prefix). */
  readonly path: string
  /** Lower-case header names; credential headers are `<redacted>` unless `recordCredentials` is set. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, or `undefined` when there was none, it did not parse, or it was too big to keep. */
  readonly body: unknown
  /** The size of the body in UTF-16 code units. */
  readonly bodyBytes: number
  /** True when the body was too large for the journal and was not kept. */
  readonly bodyOmitted: boolean
  /** The endpoint the route belongs to; `undefined` for unknown routes. */
  readonly endpoint: MockEndpoint | undefined
  /** The status MockGPT answered with. */
  readonly status: number
  /** The index of the script entry that answered, `undefined` for the default responder. */
  readonly scriptEntry: number | undefined
  /** The reply type that answered (a computed reply records the type it returned; `replay` for a fixture). */
  readonly reply: MockReply['type'] | 'replay' | undefined
  /** The faults injected into the answer (scripted and chaos). */
  readonly faults: readonly MockFault['type'][]
  /** The script problem this request hit, if any. */
  readonly scriptError: string | undefined
}

/**
 * The journal's bounds and how much it dropped.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const { entries, bytes, dropped } = createMockGPT().journal
 * ```
 */
export interface MockJournalStats {
  readonly entries: number
  /** An estimate of the memory the retained records use. */
  readonly bytes: number
  /** Records dropped (oldest first) to stay within the bounds. */
  readonly dropped: number
}

/**
 * The state of one test scope (or the default scope): its script, recording, usage and chaos rolls.
 * Requests carrying `X-Test-Id: <id>` (or sent under `/test/<id>/v1/...`) use the scope of that id, so
 * parallel test files sharing one server never see each other's state.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT()
 * const scope = mock.scope('checkout.test.ts > pays')
 * scope.script({ reply: { type: 'text', text: 'Paid.' } })
 * // requests with the header x-test-id: checkout.test.ts > pays now get 'Paid.'
 * scope.assertAllScriptsUsed()
 * ```
 */
export interface MockGPTScope {
  /** The scope's test id; `undefined` for the default scope. */
  readonly testId: string | undefined
  /** Appends scripted entries (validated now; a bad entry throws `InvalidInputError`). */
  script(...entries: MockScriptEntry[]): void
  /** The retained requests of this scope, oldest first (see `journal` for the bounds). */
  readonly requests: readonly RecordedRequest[]
  readonly usage: MockUsage
  readonly journal: MockJournalStats
  /** How many script entries are still waiting to answer. */
  readonly pendingScript: number
  /** Script errors and (in strict mode) unmatched requests recorded so far. */
  readonly scriptProblems: readonly MockScriptProblem[]
  /**
   * Throws {@link MockScriptError} when a script problem was recorded or an entry was never used up (an
   * entry kept forever counts once it answered once).
   */
  assertAllScriptsUsed(): void
  /** Forgets requests, usage, problems and stored responses, restores the initial script, restarts sequences. */
  reset(): void
}

/**
 * The MockGPT engine: a pure function from a {@link MockHttpRequest} to a {@link MockHttpResponse}
 * description, plus scripts, recordings and usage per scope. Transports (`@agent-core/mock/node`,
 * `@agent-core/mock/web`) only write the description out. The engine itself is the default scope.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 2 })
 * mock.script({ reply: { type: 'text', text: 'Scripted.' } })
 * const response = mock.handle({ method: 'GET', url: '/v1/models', headers: {} })
 * mock.reset()
 * ```
 */
export interface MockGPT extends MockGPTScope {
  readonly seed: number
  readonly strict: boolean
  /** Answers one request. Never throws: every failure is an OpenAI-shaped (or Anthropic-shaped) error. */
  handle(request: MockHttpRequest): MockHttpResponse
  /** The scope of a test id (created on first use, from the initial script). */
  scope(testId: string): MockGPTScope
  /** Script problems of every scope, in the order they happened. */
  readonly allScriptProblems: readonly MockScriptProblem[]
  /**
   * Throws {@link MockScriptError} when any scope recorded a script problem. Servers and fetch handlers
   * call it from `close()`, so a suite whose script failed cannot end green.
   */
  assertNoScriptProblems(): void
  /** Resets the default scope and forgets every test scope. */
  reset(): void
}

const MODEL_ROUTES: Readonly<Record<string, { method: string; endpoint: MockEndpoint }>> = {
  '/v1/chat/completions': { method: 'POST', endpoint: 'chat.completions' },
  '/v1/responses': { method: 'POST', endpoint: 'responses' },
  '/v1/messages': { method: 'POST', endpoint: 'messages' },
  '/v1/embeddings': { method: 'POST', endpoint: 'embeddings' },
  '/v1/models': { method: 'GET', endpoint: 'models' },
}
const ADMIN_ROUTES: Readonly<Record<string, string>> = {
  '/_mock/requests': 'GET',
  '/_mock/usage': 'GET',
  '/_mock/reset': 'POST',
  '/_mock/script': 'POST',
}
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'x-mockgpt-admin-token',
  'openai-organization',
  'openai-project',
])
/** Scopes kept at once; the least recently used one is forgotten past this. */
const MAX_SCOPES = 1000
/** Default-responder answers kept by content. */
const MAX_DEFAULT_ANSWERS = 256
/** The faults of a request without scripted faults or a chaos roll (shared: never mutated). */
const NO_FAULTS: readonly MockFault[] = Object.freeze([])
const TEST_PREFIX = '/test/'
const TEST_ID = /^[\x20-\x7e]{1,200}$/

/** A percent-decoded path segment; a malformed escape is kept as written (it then names no model). */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** `headers` with credential values replaced (a copy only when there is something to replace). */
function redact(headers: Readonly<Record<string, string>>): Record<string, string> {
  let out: Record<string, string> | undefined
  for (const name in headers) {
    if (!CREDENTIAL_HEADERS.has(name)) continue
    out ??= { ...headers }
    const value = headers[name] as string
    const scheme = /^(Bearer|Basic|Token)\s/i.exec(value)?.[1]
    out[name] = scheme ? `${scheme} <redacted>` : '<redacted>'
  }
  return out ?? (headers as Record<string, string>)
}

/** One scope's mutable state. */
class Scope {
  queue = new ScriptQueue()
  journal: Journal
  usage: MockUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  answers = 0
  chaosRandom: () => number
  conversations = new Map<string, NormalizedMessage[]>()
  /** The prompt prefixes `/v1/messages` requests wrote with cache breakpoints. */
  promptCache = new PromptCache()
  problems: MockScriptProblem[] = []
  /** The script error every later model request gets until reset. */
  poison: string | undefined

  constructor(
    readonly testId: string | undefined,
    private readonly options: ResolvedOptions,
    readonly replay: ReplayBook,
  ) {
    this.journal = new Journal(options.journal)
    this.chaosRandom = mulberry32(hashString('chaos', options.seed))
    this.reset()
  }

  reset(): void {
    this.queue.clear()
    this.journal = new Journal(this.options.journal)
    this.usage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    this.promptCache = new PromptCache()
    this.answers = 0
    this.chaosRandom = mulberry32(hashString('chaos', this.options.seed))
    this.conversations = new Map()
    this.problems = []
    this.poison = undefined
    this.replay.reset()
    this.queue.enqueue(this.options.script)
  }
}

/**
 * Creates a MockGPT engine. Pure and platform neutral: give it to `startMockGPTServer` (node) or
 * `createMockGPTFetchHandler` (web), or call `handle` directly.
 * @throws InvalidInputError when an option is malformed (the message names the field)
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 1, script: [{ reply: { type: 'text', text: 'Hello!' } }] })
 * const response = mock.handle({
 *   method: 'POST',
 *   url: '/v1/chat/completions',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
 * })
 * console.log(response.status) // 200
 * ```
 */
export function createMockGPT(options: MockGPTOptions = {}): MockGPT {
  return createEngine(resolveOptions(options))
}

/** Builds the engine from options already checked (transports check their own extra keys first). */
export function createEngine(config: ResolvedOptions): MockGPT {
  const { seed, keys, models, chaos, chaosPool, budget, now, strict } = config
  const root = new Scope(undefined, config, new ReplayBook(config.replay))
  /** Default-responder answers by request content (bounded; see defaultAnswer). */
  const defaultAnswers = new Map<string, Answer>()
  /** Normalized requests and default answers by body text (see BodyCache). */
  const bodies = new BodyCache()
  let scopes = new Map<string, Scope>()
  /** Request and response ids by answer number (see NumberedIds). */
  const ids = {
    request: new NumberedIds(seed, 'req_', 'req', 32),
    chat: new NumberedIds(seed, 'chatcmpl-', 'chat', 29),
    message: new NumberedIds(seed, 'msg_', 'msg', 24),
    response: new NumberedIds(seed, 'resp_', 'resp', 40),
  }

  const scopeOf = (testId: string | undefined): Scope => {
    if (testId === undefined) return root
    let scope = scopes.get(testId)
    if (scope) {
      // Most recently used last, so the first one is the one to forget.
      scopes.delete(testId)
    } else {
      scope = new Scope(testId, config, new ReplayBook(config.replay))
      if (scopes.size >= MAX_SCOPES) scopes.delete(scopes.keys().next().value as string)
    }
    scopes.set(testId, scope)
    return scope
  }

  const addUsage = (scope: Scope, input: number, output: number) => {
    const usage = scope.usage
    scope.usage = {
      calls: usage.calls + 1,
      inputTokens: usage.inputTokens + input,
      outputTokens: usage.outputTokens + output,
      totalTokens: usage.totalTokens + input + output,
    }
  }

  const rollChaos = (scope: Scope): MockFault | undefined => {
    if (!chaos || chaos.rate === 0) return undefined
    const roll = scope.chaosRandom()
    const pick = scope.chaosRandom()
    return roll < chaos.rate ? chaosPool[Math.floor(pick * chaosPool.length)] : undefined
  }

  const problem = (
    scope: Scope,
    record: MutableRecord,
    kind: MockScriptProblem['kind'],
    entry: number | undefined,
    message: string,
  ): void => {
    scope.problems.push({ kind, requestIndex: record.index, testId: scope.testId, entry, message })
    record.scriptError = message
  }

  /** Records a script error, poisons the scope, and answers the non-retryable 400. */
  const scriptFailure = (
    scope: Scope,
    record: MutableRecord,
    taken: TakenEntry | undefined,
    error: unknown,
  ): MockHttpResponse => {
    const reason = error instanceof Error ? error.message : describeValue(error)
    const name = taken ? `MockGPT script entry ${entryName(taken.index, taken.entry)}` : 'MockGPT script'
    const step = taken?.step !== undefined ? ` (sequence step ${taken.step})` : ''
    const message = `${name}${step}: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`
    problem(scope, record, 'script-error', taken?.index, message)
    scope.poison = message
    return scriptErrorResponse(message)
  }

  /**
   * The default responder's answer (no script entry answered). It depends only on what was asked, so
   * identical requests (retries, repeated test runs, load tests) reuse it, unless it calls tools (their ids
   * are per request). Two bounded caches hold the same answers under two keys:
   * - by content (`defaultAnswers`): the request's seed, what the content seed hashes and every other field
   *   `planAnswer` reads of an unscripted request;
   * - by the exact body text of a chat or Messages request (`known`, an entry of `bodies`): the body
   *   determines the normalized request, hence the content key, so the answer kept there is the one the
   *   content cache (or `planAnswer`) would give, found without serializing the messages.
   */
  const defaultAnswer = (request: NormalizedRequest, known: BodyEntry | undefined, n: number): Answer => {
    if (known?.answer) return known.answer
    const contentKey = contentKeyOf(request)
    const cacheKey = `${request.seed ?? 0}\u0000${contentKey}\u0000${JSON.stringify(request.toolChoice)}\u0000${request.parallelToolCalls}\u0000${request.maxOutputTokens}\u0000${request.stop.join('\u0001')}`
    let answer = defaultAnswers.get(cacheKey)
    if (!answer) {
      answer = planAnswer(request, undefined, new PlanContext(seed, request, n, contentKey))
      if (answer.toolCalls.length) return answer
      if (defaultAnswers.size >= MAX_DEFAULT_ANSWERS)
        defaultAnswers.delete(defaultAnswers.keys().next().value as string)
      defaultAnswers.set(cacheKey, answer)
    }
    if (known) known.answer = answer
    return answer
  }

  const serveModel = (
    scope: Scope,
    endpoint: Exclude<MockEndpoint, 'models'>,
    body: Record<string, unknown>,
    bodyText: string,
    record: MutableRecord,
  ): MockHttpResponse => {
    // A chat or Messages body seen before passed these checks and normalized to `known.request` (BodyCache).
    const bodyKeyed = endpoint === 'chat.completions' || endpoint === 'messages' ? endpoint : undefined
    let known = bodyKeyed ? bodies.get(bodyKeyed, bodyText) : undefined
    if (!known) checkRequestParams(endpoint, body, strict)
    let normalized: NormalizedRequest | undefined
    let embeddings: { text: string; tokens: number } | undefined
    // The view is built only when a script entry or a summary needs it (most requests have no script), and
    // then once: the predicates and a computed reply see the same object.
    let built: MockRequestView | undefined
    if (endpoint === 'embeddings') {
      embeddings = embeddingsResponse(body, seed)
    } else {
      let history: NormalizedMessage[] = []
      const previousId = body.previous_response_id
      if (endpoint === 'responses' && previousId !== undefined && previousId !== null) {
        if (typeof previousId !== 'string') {
          throw badRequest(
            `'previous_response_id' must be a string, but got ${describeValue(previousId)}.`,
            'previous_response_id',
          )
        }
        const previous = scope.conversations.get(previousId)
        if (!previous) {
          throw badRequest(
            `Previous response with id '${previousId}' not found (MockGPT forgets responses on reset()).`,
            'previous_response_id',
            'previous_response_not_found',
          )
        }
        history = previous
      }
      if (known) {
        normalized = withBody(known.request, body)
      } else {
        normalized =
          endpoint === 'chat.completions'
            ? normalizeChatRequest(body)
            : endpoint === 'messages'
              ? normalizeMessagesRequest(body)
              : normalizeResponsesRequest(body, history)
        if (bodyKeyed) known = bodies.add(bodyKeyed, bodyText, normalized)
      }
    }
    if (scope.poison !== undefined) {
      record.scriptError = scope.poison
      return scriptErrorResponse(
        `${scope.poison} (MockGPT answers every request of this scope with this script error until reset(), so nothing falls through to generated data.)`,
      )
    }
    const exhausted = budgetExhausted(budget, scope.usage)
    if (exhausted) return exhausted

    // A chaos status fault answers before the script, so the scripted entry is still there for the retry.
    const chaosFault = rollChaos(scope)
    if (chaosFault?.type === 'status') {
      record.faults.push('status')
      return errorReplyResponse(chaosFault)
    }
    let taken: TakenEntry | undefined
    let reply: MockReply | undefined
    try {
      if (scope.queue.size > 0) {
        built ??= viewOf(normalized, body, record.index, scope.testId)
        taken = scope.queue.take(built)
      }
      const scripted = taken?.reply
      reply =
        typeof scripted === 'function'
          ? runComputedReply(
              scripted,
              (built ??= viewOf(normalized, body, record.index, scope.testId)),
              `MockGPT script entry ${entryName(taken?.index ?? 0, taken?.entry)} reply`,
            )
          : scripted
    } catch (error) {
      return scriptFailure(scope, record, taken, error)
    }
    record.scriptEntry = taken?.index
    record.reply = reply?.type
    const scriptedFaults = taken?.entry.faults
    const faults: readonly MockFault[] =
      scriptedFaults === undefined && chaosFault === undefined
        ? NO_FAULTS
        : [...(scriptedFaults ?? []), ...(chaosFault ? [chaosFault] : [])]
    if (faults.length) {
      record.faults.push(...faults.map((f) => f.type))
      const statusFault = faults.find((f): f is Extract<MockFault, { type: 'status' }> => f.type === 'status')
      if (statusFault) return errorReplyResponse(statusFault)
    }
    if (reply?.type === 'error') return applyFaults(errorReplyResponse(reply), faults)

    if (!taken) {
      const replayed = scope.replay.take(record.method, record.path, body)
      if (replayed) {
        record.reply = 'replay'
        addUsage(scope, normalized?.inputTokens ?? 0, 0)
        return applyFaults(replayed, faults)
      }
      if (strict) {
        const message = `MockGPT strict mode: no script entry${scope.replay.size ? ' or replay fixture' : ''} matches ${summarize(record, built ?? viewOf(normalized, body, record.index, scope.testId))}. Script a reply for it (or turn strict mode off to get generated answers).`
        problem(scope, record, 'unmatched', undefined, message)
        return openAIErrorResponse(400, message, {
          type: 'mock_script_error',
          code: 'mock_unmatched_request',
          headers: { 'x-should-retry': 'false' },
        })
      }
    }

    const n = scope.answers++
    const requestId = ids.request.get(n)
    if (reply?.type === 'raw-chunks') {
      const steps = reply.chunks.map(
        (c): MockStreamStep => ({
          type: 'data',
          chunk: typeof c === 'string' ? c : `data: ${JSON.stringify(c)}\n\n`,
        }),
      )
      addUsage(scope, normalized?.inputTokens ?? 0, 0)
      return applyFaults(sseResponse(steps, requestId), faults)
    }
    if (reply?.type === 'controlled-stream') {
      let steps: () => AsyncIterable<MockStreamStep>
      try {
        const make = controllerSteps(reply.controller)
        if (!make)
          throw scriptProblem(
            'the controlled-stream reply has no controller made by createStreamController().',
          )
        steps = make
        const body = steps()
        addUsage(scope, normalized?.inputTokens ?? 0, 0)
        return applyFaults(sseResponse(body, requestId), faults)
      } catch (error) {
        return scriptFailure(scope, record, taken, error)
      }
    }
    if (embeddings) {
      if (reply) {
        return scriptFailure(
          scope,
          record,
          taken,
          scriptProblem(
            `a "${reply.type}" reply cannot answer an embeddings request; use an "error" reply or faults, or match { endpoint: 'chat.completions' }.`,
          ),
        )
      }
      addUsage(scope, embeddings.tokens, 0)
      return applyFaults(jsonTextResponse(embeddings.text, requestId), faults)
    }
    const request = normalized as NormalizedRequest
    let answer: Answer
    try {
      answer =
        reply === undefined
          ? defaultAnswer(request, known, n)
          : planAnswer(request, reply, new PlanContext(seed, request, n))
    } catch (error) {
      if (reply && (isScriptProblem(error) || !MockRequestError.isInstance(error)))
        return scriptFailure(scope, record, taken, error)
      throw error
    }
    const meta: RenderMeta = {
      id:
        endpoint === 'chat.completions'
          ? ids.chat.get(n)
          : endpoint === 'messages'
            ? ids.message.get(n)
            : ids.response.get(n),
      created: Math.floor(now() / 1000),
      model: request.model,
      cache:
        request.promptCache === undefined
          ? undefined
          : scope.promptCache.use(request.promptCache, request.inputTokens),
    }
    addUsage(scope, request.inputTokens, answer.outputTokens)
    if (endpoint === 'responses') remember(scope, meta.id, request, answer, body)
    return applyFaults(
      renderAnswer(request, answer, meta, requestId),
      faults,
      endpoint === 'messages' ? MALFORMED_MESSAGE_EVENT : undefined,
    )
  }

  /** Keeps a Responses conversation for `previous_response_id` (instructions are not carried over). */
  const remember = (
    scope: Scope,
    id: string,
    request: NormalizedRequest,
    answer: Answer,
    body: Record<string, unknown>,
  ) => {
    const hadInstructions = typeof body.instructions === 'string' && body.instructions !== ''
    const turn: NormalizedMessage = {
      role: 'assistant',
      text: answer.text + answer.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(''),
      ...(answer.toolCalls.length ? { toolCalls: answer.toolCalls } : {}),
    }
    const conversations = scope.conversations
    if (conversations.size >= 1000) conversations.delete(conversations.keys().next().value as string)
    conversations.set(id, [...request.messages.slice(hadInstructions ? 1 : 0), turn])
  }

  const scopeView = (get: () => Scope): MockGPTScope => ({
    get testId() {
      return get().testId
    },
    script(...entries) {
      for (const [i, entry] of entries.entries()) assertScriptEntry(entry, `MockGPT script(...) entry ${i}`)
      get().queue.enqueue(entries)
    },
    get requests() {
      return get().journal.all()
    },
    get usage() {
      return get().usage
    },
    get journal() {
      const journal = get().journal
      return { entries: journal.length, bytes: journal.bytes, dropped: journal.dropped }
    },
    get pendingScript() {
      return get().queue.size
    },
    get scriptProblems() {
      return [...get().problems]
    },
    assertAllScriptsUsed() {
      const scope = get()
      const unused = scope.queue
        .pending()
        .filter((p) => p.remaining !== Number.POSITIVE_INFINITY || p.used === 0)
        .map((p) => ({ index: p.index, label: p.label, testId: scope.testId, waitsFor: p.waitsFor }))
      if (scope.problems.length === 0 && unused.length === 0) return
      throw new MockScriptError(
        scriptErrorMessage('MockGPT: the script did not run as written', scope.problems, unused),
        { problems: [...scope.problems], unused },
      )
    },
    reset() {
      get().reset()
    },
  })

  const serveAdmin = (scope: Scope, path: string, request: MockHttpRequest): MockHttpResponse => {
    switch (path) {
      case '/_mock/requests': {
        const query = queryOf(request.url)
        const offset = pageNumber(query.get('offset'), 'offset', 0, 0)
        const limit = pageNumber(query.get('limit'), 'limit', 100, 1, 1000)
        const { data, hasMore } = scope.journal.page(offset, limit)
        return json(200, {
          object: 'list',
          data,
          has_more: hasMore,
          next_offset: hasMore ? (data.at(-1)?.index ?? offset) + 1 : null,
          total: scope.journal.next,
          dropped: scope.journal.dropped,
        })
      }
      case '/_mock/usage':
        return json(200, {
          ...scope.usage,
          budget: budget ?? null,
          pendingScript: scope.queue.size,
          scriptProblems: scope.problems.length,
          journal: {
            entries: scope.journal.length,
            bytes: scope.journal.bytes,
            dropped: scope.journal.dropped,
          },
        })
      case '/_mock/reset':
        if (scope === root) resetAll()
        else scope.reset()
        return json(200, { ok: true })
      default: {
        let entries: MockScriptEntry[]
        try {
          entries = parseMockScript(request.body ?? '', 'script')
        } catch (error) {
          if (InvalidInputError.isInstance(error)) throw badRequest(error.message, 'script')
          throw error
        }
        scope.queue.enqueue(entries)
        return json(200, { ok: true, pendingScript: scope.queue.size })
      }
    }
  }

  const adminDenied = (request: MockHttpRequest): MockHttpResponse | undefined => {
    const origin = request.headers.origin
    if (origin !== undefined && !config.adminOrigins.includes(origin)) {
      return openAIErrorResponse(
        403,
        `MockGPT refuses admin requests from the web origin ${origin}: a page must not read recorded requests or rewrite the script. Allow it with the adminOrigins option if you mean to.`,
        { type: 'permission_error', code: 'admin_origin_refused' },
      )
    }
    const token = config.adminToken
    if (token === undefined) return undefined
    const given =
      request.headers['x-mockgpt-admin-token'] ??
      /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]
    if (given === token) return undefined
    return openAIErrorResponse(
      401,
      'MockGPT admin routes need the admin token: send Authorization: Bearer <token> (printed at start, or the adminToken option).',
      { code: 'admin_token_required' },
    )
  }

  /**
   * A web page can send a POST that needs no CORS preflight (`text/plain`, a form) to any URL, and the
   * browser sends it without asking: MockGPT refuses such a body from a web origin (one not listed in
   * `adminOrigins`) before it is parsed or recorded, so no page can fill the journal or spend scripted
   * answers. Browser apps that call MockGPT send JSON, which a preflight guards.
   */
  const simpleCrossSiteBody = (request: MockHttpRequest, method: string): MockHttpResponse | undefined => {
    const origin = request.headers.origin
    if (method !== 'POST' || origin === undefined || config.adminOrigins.includes(origin)) return undefined
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    if (
      type !== '' &&
      type !== 'text/plain' &&
      type !== 'application/x-www-form-urlencoded' &&
      type !== 'multipart/form-data'
    )
      return undefined
    return openAIErrorResponse(
      415,
      `MockGPT refuses a ${type || 'typeless'} body from the web origin ${origin}: a page can send one without a CORS preflight. Send the request as application/json (or list the origin in adminOrigins).`,
      { type: 'invalid_request_error', code: 'cross_site_body_refused' },
    )
  }

  const route = (
    request: MockHttpRequest,
    method: string,
    path: string,
    testId: string | undefined,
  ): MockHttpResponse => {
    // Own keys only: a path such as `constructor` or `__proto__` must not find Object.prototype members.
    const admin = Object.hasOwn(ADMIN_ROUTES, path) ? ADMIN_ROUTES[path] : undefined
    if (admin) {
      if (method !== admin) return methodNotAllowed(method, path, admin)
      const denied = adminDenied(request)
      if (denied) return denied
      return serveAdmin(scopeOf(testId), path, request)
    }
    const simple = simpleCrossSiteBody(request, method)
    if (simple !== undefined) return simple
    const scope = scopeOf(testId)
    const modelRoute = Object.hasOwn(MODEL_ROUTES, path) ? MODEL_ROUTES[path] : undefined
    const modelId = path.startsWith('/v1/models/')
      ? decodePathSegment(path.slice('/v1/models/'.length))
      : undefined
    // handle() already made a private copy of the headers: the record may keep it as it is.
    const headers = request.headers as Record<string, string>
    const bodyText = request.body ?? ''
    const keep = scope.journal.keepsBody(bodyText.length)
    const record: MutableRecord = {
      index: scope.journal.next,
      testId,
      method,
      path,
      headers: config.recordCredentials ? headers : redact(headers),
      body: undefined,
      bodyBytes: bodyText.length,
      bodyOmitted: !keep,
      endpoint: modelRoute?.endpoint ?? (modelId !== undefined ? 'models' : undefined),
      status: 0,
      scriptEntry: undefined,
      reply: undefined,
      faults: [],
      scriptError: undefined,
    }
    scope.journal.add(record)
    let response: MockHttpResponse
    try {
      const parsed = parseBody(request.body)
      if ('value' in parsed && keep) record.body = parsed.value
      response = serveRoute(scope, request, method, path, modelRoute, modelId, parsed, record)
    } catch (error) {
      response = errorToResponse(error)
    }
    record.status = response.status
    if (response.status >= 400) {
      // Errors carry a request id as answers do (the SDKs show it on the error they throw): it names the
      // journal record, so a failed call can be looked up in `requests()` of its scope.
      const requestId = `req_mockgpt_error_${record.index}`
      const anthropic = record.endpoint === 'messages'
      const header = anthropic ? 'request-id' : 'x-request-id'
      response = { ...response, headers: { ...response.headers, [header]: requestId } }
      if (anthropic) response = toAnthropicError(response, requestId)
    }
    return response
  }

  const serveRoute = (
    scope: Scope,
    request: MockHttpRequest,
    method: string,
    path: string,
    modelRoute: (typeof MODEL_ROUTES)[string] | undefined,
    modelId: string | undefined,
    parsed: ParsedBody,
    record: MutableRecord,
  ): MockHttpResponse => {
    if (!modelRoute && modelId === undefined) {
      return openAIErrorResponse(
        404,
        `Invalid URL (${method} ${path}). MockGPT serves ${Object.keys(MODEL_ROUTES).join(', ')} and /v1/models/{id}.`,
        { code: 'unknown_url' },
      )
    }
    const expected = modelRoute?.method ?? 'GET'
    if (method !== expected) return methodNotAllowed(method, path, expected)
    const denied = checkApiKey(keys, request.headers)
    if (denied) return denied
    if (modelId !== undefined) {
      if (!models.includes(modelId)) {
        return openAIErrorResponse(
          404,
          `The model '${modelId}' does not exist. MockGPT lists: ${models.join(', ')}.`,
          { code: 'model_not_found', param: 'model' },
        )
      }
      return json(200, { id: modelId, object: 'model', created: 1_700_000_000, owned_by: 'mockgpt' })
    }
    const endpoint = (modelRoute as (typeof MODEL_ROUTES)[string]).endpoint
    if (endpoint === 'models') {
      return json(200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'mockgpt' })),
      })
    }
    return serveModel(scope, endpoint, requireJsonObject(parsed), request.body ?? '', record)
  }

  const resetAll = () => {
    root.reset()
    scopes = new Map()
  }

  const rootView = scopeView(() => root)
  const allProblems = () => {
    const list = [...root.problems]
    for (const scope of scopes.values()) list.push(...scope.problems)
    return list
  }
  const engine = {
    seed,
    strict,
    handle(given: MockHttpRequest): MockHttpResponse {
      // Callers outside TypeScript may pass anything: keep only string headers and a string body.
      const request: MockHttpRequest = {
        method: typeof given?.method === 'string' ? given.method : 'GET',
        url: typeof given?.url === 'string' ? given.url : '/',
        headers: stringHeaders(given?.headers),
        body: typeof given?.body === 'string' ? given.body : undefined,
      }
      let response: MockHttpResponse
      let method = 'GET'
      let path = '/'
      try {
        method = request.method.toUpperCase()
        path = splitPath(request.url)
        let testId = headerOf(request, 'x-test-id')
        if (path.startsWith(TEST_PREFIX)) {
          const end = path.indexOf('/', TEST_PREFIX.length)
          testId = decodePathSegment(path.slice(TEST_PREFIX.length, end < 0 ? undefined : end))
          path = end < 0 ? '/' : path.slice(end)
        }
        if (testId !== undefined && !TEST_ID.test(testId)) {
          response = openAIErrorResponse(
            400,
            `The test id ${JSON.stringify(testId.slice(0, 80))} must be 1 to 200 printable ASCII characters.`,
            { param: 'x-test-id' },
          )
        } else if (method === 'OPTIONS') {
          response = { status: 204, headers: {}, firstByteDelayMs: 0, body: { type: 'empty' } }
        } else {
          response = route(request, method, path, testId)
        }
      } catch (error) {
        response = errorToResponse(error)
      }
      return withCors(request, method, path, response, config.adminOrigins)
    },
    scope(testId: string): MockGPTScope {
      if (typeof testId !== 'string' || !TEST_ID.test(testId)) {
        throw new InvalidInputError(
          `MockGPT scope(testId) needs 1 to 200 printable ASCII characters, but got ${describeValue(testId)}.`,
          { details: { field: 'testId', received: describeValue(testId) } },
        )
      }
      return scopeView(() => scopeOf(testId))
    },
    assertNoScriptProblems() {
      const problems = allProblems()
      if (problems.length === 0) return
      throw new MockScriptError(scriptErrorMessage('MockGPT recorded script problems', problems, []), {
        problems,
        unused: [],
      })
    },
  }
  Object.defineProperties(engine, {
    ...Object.getOwnPropertyDescriptors(rootView),
    reset: { value: resetAll, enumerable: true },
    allScriptProblems: { get: allProblems, enumerable: true },
  })
  return engine as unknown as MockGPT
}

/**
 * What `planAnswer` derives content and tool call ids from, for answer number `n` of a scope. Both are
 * made on first use: a scripted text reply needs neither, and only answers that call tools need ids.
 */
class PlanContext implements AnswerContext {
  private derivedSeed: number | undefined

  constructor(
    private readonly seed: number,
    private readonly request: NormalizedRequest,
    private readonly n: number,
    /** The request's content key when the caller already has it. */
    private readonly contentKey?: string,
  ) {}

  get contentSeed(): number {
    // Content depends on the seed and what was asked (not on order), so JSON and stream answers agree.
    this.derivedSeed ??= hashString(
      this.contentKey ?? contentKeyOf(this.request),
      foldSeed(this.seed) ^ foldSeed(this.request.seed ?? 0),
    )
    return this.derivedSeed
  }

  callId(i: number): string {
    const id = deterministicId(this.seed, `call:${this.n}:${i}`, 24)
    return this.request.endpoint === 'messages' ? `toolu_${id}` : `call_${id}`
  }
}

/** What a script predicate, a computed reply or a summary sees of a request (embeddings have no normalized form). */
function viewOf(
  normalized: NormalizedRequest | undefined,
  body: Record<string, unknown>,
  index: number,
  testId: string | undefined,
): MockRequestView {
  return normalized === undefined
    ? embeddingsView(body, index, testId)
    : requestView(normalized, index, testId)
}

function headerOf(request: MockHttpRequest, name: string): string | undefined {
  const headers = request.headers
  if (typeof headers !== 'object' || headers === null) return undefined
  const value = headers[name]
  return typeof value === 'string' ? value : undefined
}

function pageNumber(
  text: string | null,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (text === null) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw badRequest(
      `'${name}' must be an integer from ${min} to ${max}, but got "${text.slice(0, 40)}".`,
      name,
    )
  }
  return value
}

/** A non-retryable 400 for a script error (`x-should-retry: false`, a 4xx no SDK retries). */
function scriptErrorResponse(message: string): MockHttpResponse {
  return openAIErrorResponse(400, message, {
    type: 'mock_script_error',
    code: 'mock_script_error',
    headers: { 'x-should-retry': 'false' },
  })
}

function summarize(record: MutableRecord, view: MockRequestView): string {
  const last = view.lastUserMessage.replace(/\s+/g, ' ')
  const parts = [
    `${record.method} ${record.path}`,
    `model ${JSON.stringify(view.model)}`,
    `stream ${view.stream}`,
    `turn ${view.turn}`,
    view.toolNames.length ? `tools [${view.toolNames.join(', ')}]` : 'no tools',
    `last user message ${JSON.stringify(last.length > 120 ? `${last.slice(0, 119)}…` : last)}`,
  ]
  return `the request (${parts.join(', ')})`
}

/**
 * CORS: the model routes answer any origin (browser apps call them); the admin routes answer only the
 * configured `adminOrigins`, so a page the developer has open can neither read recordings nor preflight a
 * script change.
 */
function withCors(
  request: MockHttpRequest,
  method: string,
  path: string,
  response: MockHttpResponse,
  adminOrigins: readonly string[],
): MockHttpResponse {
  const origin = headerOf(request, 'origin')
  if (!origin) return response
  const adminPath = path.startsWith('/_mock')
  if (adminPath && !adminOrigins.includes(origin)) return response
  return {
    ...response,
    headers: {
      ...response.headers,
      'access-control-allow-origin': adminPath ? origin : '*',
      'access-control-expose-headers': '*',
      ...(adminPath ? { vary: 'origin' } : {}),
      ...(method === 'OPTIONS'
        ? {
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': headerOf(request, 'access-control-request-headers') ?? '*',
            'access-control-max-age': '600',
          }
        : {}),
    },
  }
}
