import { describeValue, refuseField } from '@agent-core/core'
import { scopeView } from './engine/admin.js'
import { decodePathSegment, route } from './engine/route.js'
import { EngineState } from './engine/state.js'
import { errorToResponse, splitPath, stringHeaders } from './internal/http.js'
import { openAIErrorResponse } from './internal/openai-error.js'
import type { MockFixture } from './internal/replay.js'
import { type ResolvedOptions, resolveOptions } from './internal/resolve-options.js'
import type { MockHttpRequest, MockHttpResponse } from './mock-http.js'
import { MockScriptError, type MockScriptProblem, scriptErrorMessage } from './mock-script-error.js'
import type { MockBudget, MockChaos, MockEndpoint, MockFault, MockReply, MockScriptEntry } from './script.js'

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

const TEST_PREFIX = '/test/'
const TEST_ID = /^[\x20-\x7e]{1,200}$/

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

/**
 * Builds the engine from options already checked (transports check their own extra keys first). The
 * engine is a short driver over named stages, each in its own file under `engine/`:
 * 1. state (`engine/state.ts`): the scopes, caches and id sequences;
 * 2. routing (`engine/route.ts`): the route, the journal record, the error response;
 * 3. serving a model call (`engine/serve-model.ts`): normalize, gate, script, faults (applied once),
 *    answer;
 * 4. admin routes and scope views (`engine/admin.ts`).
 * This driver reads the request's method, path and test id, answers preflights and adds CORS headers.
 */
export function createEngine(config: ResolvedOptions): MockGPT {
  const state = new EngineState(config)
  const rootView = scopeView(() => state.root)
  const resetAll = () => state.resetAll()
  const allProblems = () => state.allProblems()
  const engine = {
    seed: config.seed,
    strict: config.strict,
    handle: (given: MockHttpRequest): MockHttpResponse => handle(state, given),
    scope(testId: string): MockGPTScope {
      if (typeof testId !== 'string' || !TEST_ID.test(testId)) {
        refuseField(
          'input',
          'testId',
          `must be 1 to 200 printable ASCII characters, but got ${describeValue(testId)}`,
          testId,
          { prefix: 'MockGPT scope: ' },
        )
      }
      return scopeView(() => state.scopeOf(testId))
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

/** One request through the engine: its method, path and test id, then {@link route}, then CORS. */
function handle(state: EngineState, given: MockHttpRequest): MockHttpResponse {
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
      response = route(state, request, method, path, testId)
    }
  } catch (error) {
    response = errorToResponse(error)
  }
  return withCors(request, method, path, response, state.config.adminOrigins)
}

function headerOf(request: MockHttpRequest, name: string): string | undefined {
  const headers = request.headers
  if (typeof headers !== 'object' || headers === null) return undefined
  const value = headers[name]
  return typeof value === 'string' ? value : undefined
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
