import type { JsonSchemaRegExpEngine } from '@agent-core/core/tools'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { RE2JS } from 're2js'
import type { FetchLike, ParsedClientLimits } from './options.js'

/**
 * The engine of server-supplied `pattern`s: RE2 (linear time in the input, no backtracking). A pattern RE2
 * cannot run (a backreference, a lookaround) throws, and the schema is refused rather than run on the
 * host's backtracking engine.
 */
export const safeRegExp: JsonSchemaRegExpEngine = (pattern, flags) => {
  const compiled = RE2JS.compile(pattern)
  // ajv caches compiled patterns by their `toString()`: each must name its own pattern.
  return { test: (input: string) => compiled.test(input), toString: () => `/${pattern}/${flags}` }
}

/** The JSON-RPC error code of a message this client refused for its size (implementation-defined range). */
export const LIMIT_RPC_CODE = -32_050

/** The `data` of a JSON-RPC error this client made up in place of a message it refused. */
export interface LimitErrorData {
  readonly agentCoreLimit: 'maxMessageBytes'
  readonly bound: number
  readonly received: string
}

/** The nesting depth of a JSON value (objects and arrays), counted without recursion; stops past `max`. */
export function depthOf(value: unknown, max: number): number {
  let deepest = 0
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth > deepest) deepest = depth
    if (deepest > max) return deepest
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return deepest
}

/** The size of a JSON value as UTF-8 JSON text, in bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8')
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return []
  try {
    const parsed: unknown = JSON.parse(body)
    const messages = Array.isArray(parsed) ? parsed : [parsed]
    return messages.flatMap((message) => {
      const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown }
      return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? [id] : []
    })
  } catch {
    return []
  }
}

function refusal(id: string | number, server: string, bound: number, received: string): string {
  const data: LimitErrorData = { agentCoreLimit: 'maxMessageBytes', bound, received }
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: LIMIT_RPC_CODE,
      message: `MCP server "${server}" sent a message of ${received}, more than this connection accepts (limits.maxMessageBytes ${bound}); it was dropped unread.`,
      data,
    },
  })
}

const LF = 10
const CR = 13

/**
 * An event stream that passes only whole events of at most `max` bytes. An event past the bound is
 * dropped as it arrives (never held whole); in its place come refusals for `ids` (the requests of the
 * POST this stream answers), so that no request waits for an answer that was dropped.
 */
function boundedEventStream(
  body: ReadableStream<Uint8Array>,
  max: number,
  ids: readonly (string | number)[],
  server: string,
  onDropped: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let held: Uint8Array[] = []
  let heldBytes = 0
  let dropping = false
  let droppedBytes = 0
  let last = -1
  let refused = false
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (dropping) {
      onDropped(droppedBytes)
      if (!refused && ids.length > 0) {
        refused = true
        const text = ids
          .map(
            (id) =>
              `event: message\ndata: ${refusal(id, server, max, `more than ${droppedBytes} bytes`)}\n\n`,
          )
          .join('')
        controller.enqueue(encoder.encode(text))
      }
    } else {
      for (const part of held) controller.enqueue(part)
    }
    held = []
    heldBytes = 0
    dropping = false
    droppedBytes = 0
  }
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0
        for (let index = 0; index < chunk.length; index += 1) {
          const byte = chunk[index] as number
          if (byte === CR) continue
          const boundary = byte === LF && last === LF
          last = byte
          if (!boundary) continue
          const piece = chunk.subarray(start, index + 1)
          start = index + 1
          if (dropping) droppedBytes += piece.length
          else if (heldBytes + piece.length > max) {
            dropping = true
            droppedBytes = heldBytes + piece.length
            held = []
          } else {
            held.push(piece)
            heldBytes += piece.length
          }
          endEvent(controller)
        }
        const rest = chunk.subarray(start)
        if (rest.length === 0) return
        if (dropping) droppedBytes += rest.length
        else if (heldBytes + rest.length > max) {
          dropping = true
          droppedBytes = heldBytes + rest.length
          held = []
          heldBytes = 0
        } else {
          held.push(rest.slice())
          heldBytes += rest.length
        }
      },
      flush(controller) {
        if (dropping) endEvent(controller)
        else for (const part of held) controller.enqueue(part)
      },
    }),
  )
}

async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | number> {
  const reader = body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > max) {
      await reader.cancel().catch(() => undefined)
      return size
    }
    parts.push(value)
  }
  return Buffer.concat(parts)
}

/**
 * A fetch whose answers are bounded: a JSON answer past `limits.maxMessageBytes` (declared or read) and an
 * event past it are replaced by JSON-RPC errors for the requests they answer, which the connection
 * turns into {@link McpLimitError}s.
 */
export function boundedFetch(
  server: string,
  send: FetchLike,
  limits: ParsedClientLimits,
  onDropped: (bytes: number) => void,
): FetchLike {
  const max = limits.maxMessageBytes
  return async (url, init) => {
    const response = await send(url, init)
    if (!response.body) return response
    const type = response.headers.get('content-type') ?? ''
    const ids = init?.method === 'POST' ? requestIds(init.body) : []
    if (type.includes('text/event-stream')) {
      return new Response(boundedEventStream(response.body, max, ids, server, onDropped), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      })
    }
    if (!type.includes('application/json')) return response
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    const body = declared > max ? declared : await readBounded(response.body, max)
    if (typeof body !== 'number') {
      return new Response(body as BodyInit, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      })
    }
    if (declared > max) await response.body.cancel().catch(() => undefined)
    onDropped(body)
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    const received = declared > max ? `${declared} bytes (declared)` : `more than ${body} bytes`
    const answers = ids.map((id) => refusal(id, server, max, received))
    return new Response(answers.length === 1 ? answers[0] : `[${answers.join(',')}]`, {
      status: response.status,
      statusText: response.statusText,
      headers,
    })
  }
}

/**
 * A transport that lets through at most `perSecond` notifications and server requests a second (the rest
 * are dropped, and `onDropped` hears of it at the first drop of each second); responses always pass.
 */
export class RateLimitedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Transport['onmessage']
  #windowStart = 0
  #inWindow = 0
  #dropped = 0

  constructor(
    readonly inner: Transport,
    readonly perSecond: number,
    readonly onDropped: (count: number) => void,
  ) {
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
    inner.onmessage = (message, extra) => {
      if ('method' in message && !this.#admit()) return
      this.onmessage?.(message, extra)
    }
  }

  #admit(): boolean {
    const now = Date.now()
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now
      this.#inWindow = 0
      this.#dropped = 0
    }
    this.#inWindow += 1
    if (this.#inWindow <= this.perSecond) return true
    this.#dropped += 1
    if (this.#dropped === 1) this.onDropped(this.perSecond)
    return false
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
