import { checkApiKey } from '../internal/access.js'
import { toAnthropicError } from '../internal/anthropic-error.js'
import {
  errorToResponse,
  json,
  methodNotAllowed,
  type ParsedBody,
  parseBody,
  requireJsonObject,
} from '../internal/http.js'
import type { MutableRecord } from '../internal/journal.js'
import { openAIErrorResponse } from '../internal/openai-error.js'
import type { MockHttpRequest, MockHttpResponse } from '../mock-http.js'
import type { MockEndpoint } from '../script.js'
import { adminDenied, serveAdmin, simpleCrossSiteBody } from './admin.js'
import { serveModel } from './serve-model.js'
import type { EngineState, Scope } from './state.js'

/** The model routes, by path. */
export const MODEL_ROUTES: Readonly<Record<string, { method: string; endpoint: MockEndpoint }>> = {
  '/v1/chat/completions': { method: 'POST', endpoint: 'chat.completions' },
  '/v1/responses': { method: 'POST', endpoint: 'responses' },
  '/v1/messages': { method: 'POST', endpoint: 'messages' },
  '/v1/embeddings': { method: 'POST', endpoint: 'embeddings' },
  '/v1/models': { method: 'GET', endpoint: 'models' },
}
/** The admin routes and their methods, by path. */
const ADMIN_ROUTES: Readonly<Record<string, string>> = {
  '/_mock/requests': 'GET',
  '/_mock/usage': 'GET',
  '/_mock/reset': 'POST',
  '/_mock/script': 'POST',
}
/** Headers recorded as `<redacted>` unless `recordCredentials` is set. */
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

/** A percent-decoded path segment; a malformed escape is kept as written (it then names no model). */
export function decodePathSegment(segment: string): string {
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

/**
 * Stage 2 of the engine: routing. Finds the route of a request (admin or model), records it in its scope's
 * journal, serves it, and converts what a stage throws to the error response, once, for every route (the
 * error carries the journal record's request id, in the Anthropic shape on `/v1/messages`).
 */
export function route(
  state: EngineState,
  request: MockHttpRequest,
  method: string,
  path: string,
  testId: string | undefined,
): MockHttpResponse {
  const config = state.config
  // Own keys only: a path such as `constructor` or `__proto__` must not find Object.prototype members.
  const admin = Object.hasOwn(ADMIN_ROUTES, path) ? ADMIN_ROUTES[path] : undefined
  if (admin) {
    if (method !== admin) return methodNotAllowed(method, path, admin)
    const denied = adminDenied(state, request)
    if (denied) return denied
    return serveAdmin(state, state.scopeOf(testId), path, request)
  }
  const simple = simpleCrossSiteBody(state, request, method)
  if (simple !== undefined) return simple
  const scope = state.scopeOf(testId)
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
    response = serveRoute(state, scope, request, method, path, modelRoute, modelId, parsed, record)
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

function serveRoute(
  state: EngineState,
  scope: Scope,
  request: MockHttpRequest,
  method: string,
  path: string,
  modelRoute: (typeof MODEL_ROUTES)[string] | undefined,
  modelId: string | undefined,
  parsed: ParsedBody,
  record: MutableRecord,
): MockHttpResponse {
  if (!modelRoute && modelId === undefined) {
    return openAIErrorResponse(
      404,
      `Invalid URL (${method} ${path}). MockGPT serves ${Object.keys(MODEL_ROUTES).join(', ')} and /v1/models/{id}.`,
      { code: 'unknown_url' },
    )
  }
  const expected = modelRoute?.method ?? 'GET'
  if (method !== expected) return methodNotAllowed(method, path, expected)
  const denied = checkApiKey(state.config.keys, request.headers)
  if (denied) return denied
  if (modelId !== undefined) {
    if (!state.config.models.includes(modelId)) {
      return openAIErrorResponse(
        404,
        `The model '${modelId}' does not exist. MockGPT lists: ${state.config.models.join(', ')}.`,
        { code: 'model_not_found', param: 'model' },
      )
    }
    return json(200, { id: modelId, object: 'model', created: 1_700_000_000, owned_by: 'mockgpt' })
  }
  const endpoint = (modelRoute as (typeof MODEL_ROUTES)[string]).endpoint
  if (endpoint === 'models') {
    return json(200, {
      object: 'list',
      data: state.config.models.map((id) => ({
        id,
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'mockgpt',
      })),
    })
  }
  return serveModel(state, scope, endpoint, requireJsonObject(parsed), request.body ?? '', record)
}
