import { InvalidInputError } from '@agent-core/core'
import { json, queryOf } from '../internal/http.js'
import { badRequest, openAIErrorResponse } from '../internal/openai-error.js'
import { assertScriptEntry } from '../internal/validate-script.js'
import type { MockGPTScope } from '../mock-gpt.js'
import type { MockHttpRequest, MockHttpResponse } from '../mock-http.js'
import { MockScriptError, scriptErrorMessage } from '../mock-script-error.js'
import { parseMockScript } from '../parse-mock-script.js'
import type { MockScriptEntry } from '../script.js'
import type { EngineState, Scope } from './state.js'

/** The programmatic view of a scope (`mock`, `mock.scope(id)`): it reads the scope `get` returns on each use. */
export function scopeView(get: () => Scope): MockGPTScope {
  return {
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
  }
}

/** Stage 4 for the admin routes (`/_mock/*`): serves one, after {@link adminDenied} let it through. */
export function serveAdmin(
  state: EngineState,
  scope: Scope,
  path: string,
  request: MockHttpRequest,
): MockHttpResponse {
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
        budget: state.config.budget ?? null,
        pendingScript: scope.queue.size,
        scriptProblems: scope.problems.length,
        journal: {
          entries: scope.journal.length,
          bytes: scope.journal.bytes,
          dropped: scope.journal.dropped,
        },
      })
    case '/_mock/reset':
      if (scope === state.root) state.resetAll()
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

/** A refusal of an admin request from a web origin not allowed, or without the admin token. */
export function adminDenied(state: EngineState, request: MockHttpRequest): MockHttpResponse | undefined {
  const config = state.config
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
export function simpleCrossSiteBody(
  state: EngineState,
  request: MockHttpRequest,
  method: string,
): MockHttpResponse | undefined {
  const config = state.config
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
