import { canonicalJson, isRecord, refuseField } from '@agent-core/core'
import type { MockHttpResponse, MockStreamStep } from '../mock-http.js'
import { SSE_HEADERS } from './sse.js'
import { assertKnownKeys } from './validate-script.js'

/**
 * One recorded exchange with an upstream model server: the request as sent and the response as received
 * (a JSON body as text, a stream as its chunks). Fixture files hold `{ version: 1, interactions: [...] }`.
 * Credentials are never recorded.
 * @example
 * ```ts
 * import { createMockGPT, type MockFixture } from '@agent-core/mock'
 * const fixture: MockFixture = {
 *   request: { method: 'POST', path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'hi' } },
 *   response: { status: 429, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"slow down"}}' },
 * }
 * const mock = createMockGPT({ replay: [fixture] })
 * ```
 */
export interface MockFixture {
  readonly request: {
    readonly method: string
    /** The path from `/v1` on, e.g. `/v1/chat/completions`. */
    readonly path: string
    /** The parsed JSON body. */
    readonly body: unknown
  }
  readonly response: {
    readonly status: number
    /** Response headers worth replaying (content type, retry headers, request id). */
    readonly headers: Readonly<Record<string, string>>
    /** The body of a JSON (or other non-streamed) response. */
    readonly body?: string | undefined
    /** The chunks of a streamed response, in order, as they arrived. */
    readonly chunks?: readonly string[] | undefined
  }
}

/** Checks fixtures (from a file or in code); unknown keys are refused like in scripts. */
export function assertFixtures(value: unknown, where: string): asserts value is readonly MockFixture[] {
  if (!Array.isArray(value)) refuseField('input', where, 'must be an array of recorded interactions', value)
  value.forEach((item: unknown, i: number) => {
    const at = `${where}[${i}]`
    if (!isRecord(item)) refuseField('input', at, 'must be an object { request, response }', item)
    assertKnownKeys(item, ['request', 'response'], at)
    const { request, response } = item
    if (!isRecord(request))
      refuseField('input', `${at}.request`, 'must be an object { method, path, body }', request)
    assertKnownKeys(request, ['method', 'path', 'body'], `${at}.request`)
    if (typeof request.method !== 'string')
      refuseField('input', `${at}.request.method`, 'must be a string', request.method)
    if (typeof request.path !== 'string' || !request.path.startsWith('/'))
      refuseField(
        'input',
        `${at}.request.path`,
        'must be a path such as "/v1/chat/completions"',
        request.path,
      )
    if (!isRecord(response))
      refuseField('input', `${at}.response`, 'must be an object { status, headers, body | chunks }', response)
    assertKnownKeys(response, ['status', 'headers', 'body', 'chunks'], `${at}.response`)
    if (
      typeof response.status !== 'number' ||
      !Number.isSafeInteger(response.status) ||
      response.status < 100 ||
      response.status > 599
    )
      refuseField('input', `${at}.response.status`, 'must be an HTTP status from 100 to 599', response.status)
    if (!isRecord(response.headers) || Object.values(response.headers).some((v) => typeof v !== 'string'))
      refuseField(
        'input',
        `${at}.response.headers`,
        'must be an object of string header values',
        response.headers,
      )
    const hasBody = response.body !== undefined
    const hasChunks = response.chunks !== undefined
    if (hasBody === hasChunks)
      refuseField(
        'input',
        `${at}.response`,
        'must have exactly one of body (text) or chunks (a stream)',
        response,
      )
    if (hasBody && typeof response.body !== 'string')
      refuseField('input', `${at}.response.body`, 'must be a string', response.body)
    if (hasChunks && (!Array.isArray(response.chunks) || response.chunks.some((c) => typeof c !== 'string')))
      refuseField('input', `${at}.response.chunks`, 'must be an array of strings', response.chunks)
  })
}

/**
 * Parses a fixture file's text or value (`{ version: 1, interactions }` or a bare array).
 * @throws InvalidInputError naming the first bad field
 */
export function parseFixtures(source: unknown, where = 'fixtures'): MockFixture[] {
  let value = source
  if (typeof source === 'string') {
    try {
      value = JSON.parse(source)
    } catch (error) {
      refuseField('input', where, `is not valid JSON: ${(error as Error).message}`, source, { cause: error })
    }
  }
  if (isRecord(value)) {
    assertKnownKeys(value, ['version', 'interactions'], where)
    if (value.version !== 1) refuseField('input', `${where}.version`, 'must be 1', value.version)
    value = value.interactions
  }
  assertFixtures(value, `${where}.interactions`)
  return [...value]
}

function keyOf(method: string, path: string, body: unknown): string {
  return `${method} ${path} ${canonicalJson(body)}`
}

/**
 * The fixtures of a replay, by request: identical requests get the recorded answers in order, and the
 * last one again once they run out (a client retrying gets what the upstream answered last).
 */
export class ReplayBook {
  private readonly byKey = new Map<string, MockFixture[]>()
  private used = new Map<string, number>()

  constructor(fixtures: readonly MockFixture[]) {
    for (const fixture of fixtures) {
      const key = keyOf(fixture.request.method, fixture.request.path, fixture.request.body)
      const list = this.byKey.get(key) ?? []
      list.push(fixture)
      this.byKey.set(key, list)
    }
  }

  get size(): number {
    return this.byKey.size
  }

  reset(): void {
    this.used = new Map()
  }

  /** The recorded response for this request, or `undefined` when none was recorded. */
  take(method: string, path: string, body: unknown): MockHttpResponse | undefined {
    if (this.byKey.size === 0) return undefined
    const key = keyOf(method, path, body)
    const list = this.byKey.get(key)
    if (!list) return undefined
    const n = this.used.get(key) ?? 0
    this.used.set(key, n + 1)
    const { response } = list[Math.min(n, list.length - 1)] as MockFixture
    if (response.chunks) {
      const steps: MockStreamStep[] = response.chunks.map((chunk) => ({ type: 'data', chunk }))
      return {
        status: response.status,
        headers: { ...SSE_HEADERS, ...response.headers },
        firstByteDelayMs: 0,
        body: { type: 'stream', steps },
      }
    }
    return {
      status: response.status,
      headers: { ...response.headers },
      firstByteDelayMs: 0,
      body: { type: 'text', text: response.body ?? '' },
    }
  }
}
