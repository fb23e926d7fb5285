import { describeValue, InvalidInputError } from '@agent-core/core'
import { budgetExhausted, checkApiKey } from './internal/access.js'
import { type Answer, planAnswer } from './internal/answer.js'
import { embeddingsResponse } from './internal/embeddings.js'
import { applyFaults } from './internal/faults.js'
import { deterministicId, foldSeed, hashString } from './internal/hash.js'
import {
  errorReplyResponse,
  errorToResponse,
  json,
  methodNotAllowed,
  type ParsedBody,
  parseBody,
  requireJsonObject,
  splitPath,
  stringHeaders,
} from './internal/http.js'
import type { NormalizedMessage, NormalizedRequest } from './internal/normalize.js'
import { normalizeChatRequest } from './internal/normalize-chat.js'
import { normalizeResponsesRequest } from './internal/normalize-responses.js'
import { badRequest, MockRequestError, openAIErrorResponse } from './internal/openai-error.js'
import { mulberry32 } from './internal/prng.js'
import { jsonTextResponse, renderAnswer, sseResponse } from './internal/render-answer.js'
import type { RenderMeta } from './internal/render-chat.js'
import { embeddingsView, requestView } from './internal/request-view.js'
import { resolveOptions } from './internal/resolve-options.js'
import { ScriptQueue } from './internal/script-queue.js'
import { assertScriptEntry } from './internal/validate-script.js'
import type { MockHttpRequest, MockHttpResponse, MockStreamStep } from './mock-http.js'
import { parseMockScript } from './parse-mock-script.js'
import type {
  MockBudget,
  MockChaos,
  MockEndpoint,
  MockFault,
  MockRequestView,
  MockScriptEntry,
} from './script.js'
import { controllerSteps } from './stream-controller.js'

/** Options of {@link createMockGPT}. Every field is optional.  * @example
 * ```ts
 * import { createMockGPT, type MockGPTOptions } from '@agent-core/mock'
 * const options: MockGPTOptions = { seed: 1, apiKey: 'sk-test', budget: { maxCalls: 100 }, chaos: { rate: 0.1 } }
 * const mock = createMockGPT(options)
 * ```
 */
export interface MockGPTOptions {
  /** Seeds every generated text, JSON value, id, embedding and chaos roll. Default 0. */
  readonly seed?: number | undefined
  /** When set, requests to `/v1/*` must send `Authorization: Bearer <key>` with one of these keys. */
  readonly apiKey?: string | readonly string[] | undefined
  /** The ids `GET /v1/models` lists. Requests may name any model. */
  readonly models?: readonly string[] | undefined
  /** Scripted replies, used in order (see {@link MockScriptEntry}). `reset()` restores this script. */
  readonly script?: readonly MockScriptEntry[] | undefined
  /** A seeded failure rate for model requests. */
  readonly chaos?: MockChaos | undefined
  /** Call and token limits; past them model requests get a 429 with the usage so far. */
  readonly budget?: MockBudget | undefined
  /** The clock for `created` timestamps, in milliseconds. Default `Date.now`. */
  readonly now?: (() => number) | undefined
}

/** Calls and tokens MockGPT has answered since creation or the last `reset()`.  * @example
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

/** One request MockGPT received (admin `/_mock/*` requests excluded), for assertions.  * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT()
 * // ... after the code under test ran:
 * const last = mock.requests.at(-1)
 * console.log(last?.path, last?.status, last?.body)
 * ```
 */
export interface RecordedRequest {
  /** 0-based position since creation or the last reset. */
  readonly index: number
  readonly method: string
  /** The path without the query. */
  readonly path: string
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, or `undefined` when there was none or it did not parse. */
  readonly body: unknown
  /** The endpoint the route belongs to; `undefined` for unknown routes. */
  readonly endpoint: MockEndpoint | undefined
  /** The status MockGPT answered with. */
  readonly status: number
  /** The index of the script entry that answered, `undefined` for the default responder. */
  readonly scriptEntry: number | undefined
  /** The faults injected into the answer (scripted and chaos). */
  readonly faults: readonly MockFault['type'][]
}

/**
 * The MockGPT engine: a pure function from a {@link MockHttpRequest} to a {@link MockHttpResponse}
 * description, plus the script, the recording and the usage. Transports (`@agent-core/mock/node`,
 * `@agent-core/mock/web`) only write the description out.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * const mock = createMockGPT({ seed: 2 })
 * mock.script({ reply: { type: 'text', text: 'Scripted.' } })
 * const response = mock.handle({ method: 'GET', url: '/v1/models', headers: {} })
 * mock.reset()
 * ```
 */
export interface MockGPT {
  readonly seed: number
  /** Answers one request. Never throws: every failure is an OpenAI-shaped error response. */
  handle(request: MockHttpRequest): MockHttpResponse
  /** Appends scripted entries (validated now; a bad entry throws `InvalidInputError`). */
  script(...entries: MockScriptEntry[]): void
  /** Every request received since creation or the last reset, oldest first. */
  readonly requests: readonly RecordedRequest[]
  readonly usage: MockUsage
  /** How many script entries are still waiting to answer. */
  readonly pendingScript: number
  /** Forgets requests, usage and stored responses, restores the initial script and restarts every sequence. */
  reset(): void
}

const MODEL_ROUTES: Readonly<Record<string, { method: string; endpoint: MockEndpoint }>> = {
  '/v1/chat/completions': { method: 'POST', endpoint: 'chat.completions' },
  '/v1/responses': { method: 'POST', endpoint: 'responses' },
  '/v1/embeddings': { method: 'POST', endpoint: 'embeddings' },
  '/v1/models': { method: 'GET', endpoint: 'models' },
}
const ADMIN_ROUTES: Readonly<Record<string, string>> = {
  '/_mock/requests': 'GET',
  '/_mock/usage': 'GET',
  '/_mock/reset': 'POST',
  '/_mock/script': 'POST',
}

interface MutableRecord {
  index: number
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
  endpoint: MockEndpoint | undefined
  status: number
  scriptEntry: number | undefined
  faults: MockFault['type'][]
}

/** A percent-decoded path segment; a malformed escape is kept as written (it then names no model). */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
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
  const { seed, keys, models, script: initialScript, chaos, chaosPool, budget, now } = resolveOptions(options)

  let requests: MutableRecord[] = []
  const queue = new ScriptQueue()
  let usage: MockUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  let answers = 0
  let chaosRandom = mulberry32(hashString('chaos', seed))
  let conversations = new Map<string, NormalizedMessage[]>()

  const reset = () => {
    requests = []
    queue.clear()
    usage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    answers = 0
    chaosRandom = mulberry32(hashString('chaos', seed))
    conversations = new Map()
    queue.enqueue(initialScript)
  }
  reset()

  const addUsage = (input: number, output: number) => {
    usage = {
      calls: usage.calls + 1,
      inputTokens: usage.inputTokens + input,
      outputTokens: usage.outputTokens + output,
      totalTokens: usage.totalTokens + input + output,
    }
  }

  const rollChaos = (): MockFault | undefined => {
    if (!chaos || chaos.rate === 0) return undefined
    const roll = chaosRandom()
    const pick = chaosRandom()
    return roll < chaos.rate ? chaosPool[Math.floor(pick * chaosPool.length)] : undefined
  }

  const serveModel = (
    endpoint: Exclude<MockEndpoint, 'models'>,
    body: Record<string, unknown>,
    record: MutableRecord,
  ): MockHttpResponse => {
    let normalized: NormalizedRequest | undefined
    let embeddings: { text: string; tokens: number } | undefined
    let view: MockRequestView
    if (endpoint === 'embeddings') {
      embeddings = embeddingsResponse(body, seed)
      view = embeddingsView(body, record.index)
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
        const previous = conversations.get(previousId)
        if (!previous) {
          throw badRequest(
            `Previous response with id '${previousId}' not found (MockGPT forgets responses on reset()).`,
            'previous_response_id',
            'previous_response_not_found',
          )
        }
        history = previous
      }
      normalized =
        endpoint === 'chat.completions'
          ? normalizeChatRequest(body)
          : normalizeResponsesRequest(body, history)
      view = requestView(normalized, record.index)
    }
    const exhausted = budgetExhausted(budget, usage)
    if (exhausted) return exhausted

    // A chaos status fault answers before the script, so the scripted entry is still there for the retry.
    const chaosFault = rollChaos()
    if (chaosFault?.type === 'status') {
      record.faults.push('status')
      return errorReplyResponse(chaosFault)
    }
    const queued = queue.take(view)
    record.scriptEntry = queued?.index
    const faults: MockFault[] = [...(queued?.entry.faults ?? []), ...(chaosFault ? [chaosFault] : [])]
    record.faults.push(...faults.map((f) => f.type))
    const statusFault = faults.find((f): f is Extract<MockFault, { type: 'status' }> => f.type === 'status')
    if (statusFault) return errorReplyResponse(statusFault)
    const reply = queued?.entry.reply
    if (reply?.type === 'error') return applyFaults(errorReplyResponse(reply), faults)

    const n = answers++
    const requestId = `req_${deterministicId(seed, `req:${n}`, 32)}`
    if (reply?.type === 'raw-chunks') {
      const steps = reply.chunks.map(
        (c): MockStreamStep => ({
          type: 'data',
          chunk: typeof c === 'string' ? c : `data: ${JSON.stringify(c)}\n\n`,
        }),
      )
      addUsage(normalized?.inputTokens ?? 0, 0)
      return applyFaults(sseResponse(steps, requestId), faults)
    }
    if (reply?.type === 'controlled-stream') {
      const steps = controllerSteps(reply.controller)
      if (!steps)
        throw new MockRequestError(
          500,
          'The controlled-stream reply has no controller made by createStreamController().',
        )
      addUsage(normalized?.inputTokens ?? 0, 0)
      return applyFaults(sseResponse(steps(), requestId), faults)
    }
    if (embeddings) {
      if (reply) {
        throw new MockRequestError(
          500,
          `Script entry ${queued?.index} has a "${reply.type}" reply, which cannot answer an embeddings request; use an "error" reply or faults.`,
        )
      }
      addUsage(embeddings.tokens, 0)
      return applyFaults(jsonTextResponse(embeddings.text, requestId), faults)
    }
    const request = normalized as NormalizedRequest
    // Content depends on the seed and what was asked (not on order), so JSON and stream answers agree.
    const contentKey = JSON.stringify([
      request.model,
      request.messages,
      request.tools.map((t) => t.name),
      request.format.type,
      request.format.type === 'json_schema' ? request.format.schema : null,
    ])
    const contentSeed = hashString(contentKey, foldSeed(seed) ^ foldSeed(request.seed ?? 0))
    const answer: Answer = planAnswer(request, reply, {
      contentSeed,
      callId: (i) => `call_${deterministicId(seed, `call:${n}:${i}`, 24)}`,
    })
    const chat = endpoint === 'chat.completions'
    const meta: RenderMeta = {
      id: chat
        ? `chatcmpl-${deterministicId(seed, `chat:${n}`, 29)}`
        : `resp_${deterministicId(seed, `resp:${n}`, 40)}`,
      created: Math.floor(now() / 1000),
      model: request.model,
    }
    addUsage(request.inputTokens, answer.outputTokens)
    if (!chat) remember(meta.id, request, answer, body)
    return applyFaults(renderAnswer(request, answer, meta, requestId), faults)
  }

  /** Keeps a Responses conversation for `previous_response_id` (instructions are not carried over). */
  const remember = (
    id: string,
    request: NormalizedRequest,
    answer: Answer,
    body: Record<string, unknown>,
  ) => {
    const hadInstructions = typeof body.instructions === 'string' && body.instructions !== ''
    const turn = {
      role: 'assistant',
      text: answer.text + answer.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(''),
    }
    if (conversations.size >= 1000) conversations.delete(conversations.keys().next().value as string)
    conversations.set(id, [...request.messages.slice(hadInstructions ? 1 : 0), turn])
  }

  const serveAdmin = (path: string, request: MockHttpRequest): MockHttpResponse => {
    switch (path) {
      case '/_mock/requests':
        return json(200, { object: 'list', data: requests })
      case '/_mock/usage':
        return json(200, { ...usage, budget: budget ?? null, pendingScript: queue.size })
      case '/_mock/reset':
        reset()
        return json(200, { ok: true })
      default: {
        let entries: MockScriptEntry[]
        try {
          entries = parseMockScript(request.body ?? '', 'script')
        } catch (error) {
          if (InvalidInputError.isInstance(error)) throw badRequest(error.message, 'script')
          throw error
        }
        queue.enqueue(entries)
        return json(200, { ok: true, pendingScript: queue.size })
      }
    }
  }

  const route = (request: MockHttpRequest, method: string, path: string): MockHttpResponse => {
    // Own keys only: a path such as `constructor` or `__proto__` must not find Object.prototype members.
    const admin = Object.hasOwn(ADMIN_ROUTES, path) ? ADMIN_ROUTES[path] : undefined
    if (admin) {
      if (method !== admin) return methodNotAllowed(method, path, admin)
      return serveAdmin(path, request)
    }
    const modelRoute = Object.hasOwn(MODEL_ROUTES, path) ? MODEL_ROUTES[path] : undefined
    const modelId = path.startsWith('/v1/models/')
      ? decodePathSegment(path.slice('/v1/models/'.length))
      : undefined
    const record: MutableRecord = {
      index: requests.length,
      method,
      path,
      headers: stringHeaders(request.headers),
      body: undefined,
      endpoint: modelRoute?.endpoint ?? (modelId !== undefined ? 'models' : undefined),
      status: 0,
      scriptEntry: undefined,
      faults: [],
    }
    requests.push(record)
    let response: MockHttpResponse
    try {
      const parsed = parseBody(request.body)
      if ('value' in parsed) record.body = parsed.value
      response = serveRoute(request, method, path, modelRoute, modelId, parsed, record)
    } catch (error) {
      response = errorToResponse(error)
    }
    record.status = response.status
    return response
  }

  const serveRoute = (
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
        {
          code: 'unknown_url',
        },
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
    return serveModel(endpoint, requireJsonObject(parsed), record)
  }

  return {
    seed,
    handle(given) {
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
        if (method === 'OPTIONS') {
          response = { status: 204, headers: {}, firstByteDelayMs: 0, body: { type: 'empty' } }
        } else {
          response = route(request, method, path)
        }
      } catch (error) {
        response = errorToResponse(error)
      }
      const origin = request.headers.origin
      if (origin) {
        response = {
          ...response,
          headers: {
            ...response.headers,
            'access-control-allow-origin': '*',
            'access-control-expose-headers': '*',
            ...(method === 'OPTIONS'
              ? {
                  'access-control-allow-methods': 'GET, POST, OPTIONS',
                  'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '*',
                  'access-control-max-age': '600',
                }
              : {}),
          },
        }
      }
      return response
    },
    script(...entries) {
      for (const [i, entry] of entries.entries()) assertScriptEntry(entry, `MockGPT script(...) entry ${i}`)
      queue.enqueue(entries)
    },
    get requests() {
      return requests
    },
    get usage() {
      return usage
    },
    get pendingScript() {
      return queue.size
    },
    reset,
  }
}
