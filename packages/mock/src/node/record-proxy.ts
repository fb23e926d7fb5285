import type { IncomingMessage, ServerResponse } from 'node:http'
import { FieldReader } from '@agent-core/core'
import type { MockFixture } from '@agent-core/mock'

/**
 * Record mode: MockGPT forwards model requests to a real OpenAI-compatible (or Anthropic) endpoint and
 * records each exchange as a fixture, credentials stripped, for later replay with no network.
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * const server = await startMockGPTServer({
 *   record: { upstream: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, file: 'fixtures/chat.json' },
 * })
 * // point the client at server.baseURL, run the code once, then:
 * await server.close() // writes fixtures/chat.json
 * ```
 */
export interface MockGPTRecordOptions {
  /** The upstream base URL, `/v1` included (e.g. `https://api.openai.com/v1`). */
  readonly upstream: string
  /**
   * The key sent upstream (as `Authorization: Bearer` and `x-api-key`). Default: the client's own
   * credential headers are forwarded. Either way, no credential is ever written to the fixture.
   */
  readonly apiKey?: string | undefined
  /** Where `close()` (and `saveFixtures()`) writes `{ version: 1, interactions }`. */
  readonly file?: string | undefined
}

/** Request headers forwarded upstream (credentials only when no apiKey replaces them). */
const FORWARDED = [
  'content-type',
  'accept',
  'openai-beta',
  'anthropic-version',
  'anthropic-beta',
  'user-agent',
]
const CREDENTIALS = ['authorization', 'x-api-key', 'api-key', 'openai-organization', 'openai-project']
/** Response headers kept in the fixture. */
const KEPT = ['content-type', 'retry-after', 'retry-after-ms', 'x-should-retry', 'x-request-id', 'request-id']

export function assertRecordOptions(value: unknown): asserts value is MockGPTRecordOptions {
  const fields = new FieldReader(value, 'record', 'an object { upstream, apiKey?, file? }')
  const upstream = fields.get('upstream')
  let url: URL | undefined
  try {
    url = typeof upstream === 'string' ? new URL(upstream) : undefined
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    fields.mustBe('upstream', 'an http(s) base URL such as "https://api.openai.com/v1"', upstream)
  for (const key of ['apiKey', 'file'] as const) {
    const given = fields.get(key)
    if (given !== undefined && (typeof given !== 'string' || given === ''))
      fields.mustBe(key, 'a non-empty string', given)
  }
}

/** SSE text split into its events (each ending with a blank line); a trailing partial event is kept. */
function frames(text: string): string[] {
  const out: string[] = []
  let start = 0
  for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n', start)) {
    out.push(text.slice(start, end + 2))
    start = end + 2
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

/** The recorder behind record mode: forwards, streams back, and keeps the exchanges. */
export class RecordProxy {
  readonly interactions: MockFixture[] = []
  private readonly upstream: string

  constructor(private readonly options: MockGPTRecordOptions) {
    this.upstream = options.upstream.replace(/\/+$/, '')
  }

  /** Removes every credential value (ours and the client's) from recorded text. */
  private scrub(text: string, secrets: readonly string[]): string {
    let out = text
    for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('<redacted>')
    return out
  }

  /** Forwards one request (its body already read) and records the exchange. */
  async forward(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    body: string,
    signal: AbortSignal,
  ): Promise<void> {
    const headers: Record<string, string> = {}
    const secrets: string[] = []
    for (const name of FORWARDED) {
      const value = req.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    for (const name of CREDENTIALS) {
      const value = req.headers[name]
      if (typeof value !== 'string') continue
      secrets.push(value, value.replace(/^Bearer\s+/i, ''))
      if (this.options.apiKey === undefined) headers[name] = value
    }
    if (this.options.apiKey !== undefined) {
      headers.authorization = `Bearer ${this.options.apiKey}`
      headers['x-api-key'] = this.options.apiKey
      secrets.push(this.options.apiKey)
    }
    const method = req.method ?? 'GET'
    let upstream: Response
    try {
      upstream = await fetch(`${this.upstream}${path.slice('/v1'.length)}${query}`, {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
        signal,
      })
    } catch (error) {
      const message = `MockGPT record mode could not reach the upstream ${this.upstream}: ${(error as Error).message}`
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: { message, type: 'server_error', param: null, code: 'upstream_unreachable' },
        }),
      )
      return
    }
    const kept: Record<string, string> = {}
    for (const name of KEPT) {
      const value = upstream.headers.get(name)
      if (value !== null) kept[name] = value
    }
    res.writeHead(upstream.status, kept)
    const stream = (upstream.headers.get('content-type') ?? '').includes('text/event-stream')
    const decoder = new TextDecoder()
    let text = ''
    if (upstream.body) {
      const reader = upstream.body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
        if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve))
      }
    }
    text += decoder.decode()
    res.end()
    let parsedBody: unknown = body
    try {
      parsedBody = body === '' ? undefined : JSON.parse(body)
    } catch {
      // a body that is not JSON is recorded as the text it was
    }
    const clean = this.scrub(text, secrets)
    this.interactions.push({
      request: { method, path, body: parsedBody },
      response: stream
        ? { status: upstream.status, headers: kept, chunks: frames(clean) }
        : { status: upstream.status, headers: kept, body: clean },
    })
  }

  /** Writes the fixture file (atomically: a temporary file renamed over it). */
  save(file = this.options.file): void {
    if (file === undefined) return
    const temporary = `${file}.${process.pid}.tmp`
    // node:fs on the first save, not at import (see startMockGPTServer's node:http)
    const { renameSync, writeFileSync } = process.getBuiltinModule('node:fs')
    writeFileSync(temporary, `${JSON.stringify({ version: 1, interactions: this.interactions }, null, 2)}\n`)
    renameSync(temporary, file)
  }
}
