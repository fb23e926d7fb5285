import type { IncomingMessage, ServerResponse } from 'node:http'
import { assertSafeInteger } from '@agent-core/core'
import type { MockGPT } from '@agent-core/mock'
import type { MockHttpResponse, MockStreamStep } from '../mock-http.js'
import type { MockBodySink } from '../pump-mock-body.js'

/** What serving a waiting or streamed body needs: the pump, the frame writer's class, `sleep`. */
type BodyTools = typeof import('./engine.js')

let bodyTools: BodyTools | undefined
let loadingBodyTools: Promise<BodyTools> | undefined

/**
 * Imports the body pump (from `./engine.js`, see there why) on the first listener's creation; responses
 * that need it before it arrived wait for it (only the first ones of a process can).
 */
function loadBodyTools(): Promise<BodyTools> {
  loadingBodyTools ??= import('./engine.js').then(
    (tools) => {
      bodyTools = tools
      return tools
    },
    (error: unknown) => {
      // a failed import is tried again by the next response that needs it
      loadingBodyTools = undefined
      throw error
    },
  )
  return loadingBodyTools
}

/**
 * Options of {@link createMockGPTRequestListener}.
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { createMockGPT } from '@agent-core/mock'
 * import { createMockGPTRequestListener } from '@agent-core/mock/node'
 * const lifetime = new AbortController()
 * const server = createServer(createMockGPTRequestListener(createMockGPT(), { maxBodyBytes: 1_000_000, signal: lifetime.signal }))
 * ```
 */
export interface MockGPTRequestListenerOptions {
  /**
   * Bodies larger than this are answered 413 (a `Content-Length` above it before a byte of the body is
   * read). Default 16 MiB.
   */
  readonly maxBodyBytes?: number | undefined
  /** Aborting it ends every slow, hung or streaming response at once (the server's `close` uses it). */
  readonly signal?: AbortSignal | undefined
  /**
   * Host names (without port) the `Host` header may carry; anything else is a 403, which defeats DNS
   * rebinding. Default: any host (the server passes the loopback names when it binds to loopback).
   */
  readonly allowedHosts?: readonly string[] | undefined
}

function disconnect(response: ServerResponse): Promise<void> {
  const socket = response.socket
  if (!socket || socket.destroyed) return Promise.resolve()
  // end() flushes what was written, then sends FIN before the chunked body is complete: the client sees a
  // truncated stream (a network error), never the final frame.
  return new Promise((resolve) => {
    socket.once('close', () => resolve())
    socket.end(() => {
      socket.destroy()
    })
  })
}

function tooLarge(maxBodyBytes: number): MockHttpResponse {
  return {
    status: 413,
    headers: { 'content-type': 'application/json', connection: 'close' },
    firstByteDelayMs: 0,
    body: {
      type: 'text',
      text: JSON.stringify({
        error: {
          message: `The request body exceeds ${maxBodyBytes} bytes; send less or raise maxBodyBytes.`,
          type: 'invalid_request_error',
          param: null,
          code: 'request_too_large',
        },
      }),
    },
  }
}

/** The host name of a `Host` header, without the port; IPv6 brackets kept off. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') < 0 ? undefined : host.indexOf(']'))
  const colon = host.lastIndexOf(':')
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase()
}

function hostRefused(host: string | undefined): MockHttpResponse {
  return {
    status: 403,
    headers: { 'content-type': 'application/json', connection: 'close' },
    firstByteDelayMs: 0,
    body: {
      type: 'text',
      text: JSON.stringify({
        error: {
          message: `MockGPT refuses the Host ${JSON.stringify(host ?? '')}: it serves only the names it was bound to (protection against DNS rebinding). Use 127.0.0.1 or localhost, or add the name to allowedHosts.`,
          type: 'permission_error',
          param: null,
          code: 'host_not_allowed',
        },
      }),
    },
  }
}

const CLOSED = new Error('MockGPT: the connection closed or the server is closing.')

function needsFlush(
  steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep>,
  tools: BodyTools,
): boolean {
  if (steps instanceof tools.PackedFrames) return false
  if (!Array.isArray(steps)) return true
  const first = (steps as readonly MockStreamStep[])[0]
  return first === undefined || first.type !== 'data' || Boolean(first.delayMs)
}

async function writeTimed(
  response: MockHttpResponse,
  res: ServerResponse,
  signal: AbortSignal,
  tools: BodyTools,
): Promise<void> {
  const { pumpMockBody, sleep, untilAborted } = tools
  if (response.firstByteDelayMs > 0) await sleep(response.firstByteDelayMs, signal)
  if (signal.aborted) {
    res.destroy()
    return
  }
  const body = response.body
  switch (body.type) {
    case 'hang':
      await untilAborted(signal)
      res.destroy()
      return
    case 'empty':
    case 'text':
      writeNow(response, res)
      return
    case 'stream': {
      res.writeHead(response.status, response.headers)
      // Headers go out with the first chunk unless that chunk waits (a delay or a test-driven stream).
      if (needsFlush(body.steps, tools)) res.flushHeaders()
      const sink: MockBodySink = {
        write(chunk) {
          if (res.write(chunk)) return
          return new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done)
              res.off('close', done)
              resolve()
            }
            res.on('drain', done)
            res.on('close', done)
          })
        },
        disconnect: () => disconnect(res),
      }
      const ended = await pumpMockBody(body.steps, sink, signal)
      if (ended === 'end') res.end()
      else if (ended === 'aborted') res.destroy()
      return
    }
  }
}

/**
 * Writes a complete text or empty body at once. A text body gets its Content-Length in place of any the
 * response named. The headers go to node as a flat `[name, value, ...]` list (what it would build from an
 * object itself), and the text with one `end`, which node sends in the same write as the head.
 */
function writeNow(response: MockHttpResponse, res: ServerResponse): void {
  const body = response.body
  const given = response.headers
  const headers: string[] = []
  for (const name in given) {
    if (Object.hasOwn(given, name) && !(body.type === 'text' && name === 'content-length'))
      headers.push(name, given[name] as string)
  }
  if (body.type === 'text') {
    headers.push('content-length', String(Buffer.byteLength(body.text)))
    res.writeHead(response.status, headers)
    res.end(body.text)
  } else {
    res.writeHead(response.status, headers)
    res.end()
  }
}

function respond(
  response: MockHttpResponse,
  res: ServerResponse,
  serverSignal: AbortSignal | undefined,
): void {
  const body = response.body
  if (response.firstByteDelayMs === 0 && (body.type === 'text' || body.type === 'empty')) {
    writeNow(response, res)
    return
  }
  const tools = bodyTools
  if (tools === undefined) {
    waitForBodyTools(response, res, serverSignal)
    return
  }
  if (response.firstByteDelayMs === 0) {
    if (body.type === 'stream' && body.steps instanceof tools.PackedFrames) {
      // A fully rendered stream without faults: one chunked write and the terminator, as a server that
      // has the whole body would do. Nothing waits, so no signal is needed.
      const frames = body.steps
      res.writeHead(response.status, response.headers)
      // Once every byte is flushed to the socket the renderer may reuse the buffer.
      res.end(frames.whole(), () => frames.release())
      return
    }
  }
  // Only responses that wait (delays, hangs, streams) need a signal that the server's close or the
  // client's disconnect can abort.
  const controller = new AbortController()
  const abort = () => controller.abort(CLOSED)
  if (serverSignal?.aborted) abort()
  serverSignal?.addEventListener('abort', abort, { once: true })
  res.once('close', abort)
  writeTimed(response, res, controller.signal, tools)
    .catch(() => res.destroy())
    .finally(() => serverSignal?.removeEventListener('abort', abort))
}

/**
 * A response that waits or streams, before the body pump has arrived: answered once it has, unless the
 * client went away meanwhile (then nothing would abort a hang or a slow stream: the `close` it listens for
 * has passed).
 */
function waitForBodyTools(
  response: MockHttpResponse,
  res: ServerResponse,
  serverSignal: AbortSignal | undefined,
): void {
  let closed = false
  const onClose = () => {
    closed = true
  }
  res.once('close', onClose)
  loadBodyTools().then(
    () => {
      res.off('close', onClose)
      if (closed || res.destroyed) return
      respond(response, res, serverSignal)
    },
    () => res.destroy(),
  )
}

/**
 * A `node:http` request listener serving a MockGPT engine; use it to mount MockGPT in a server of your own.
 * Streams use chunked transfer (no Content-Length); faults become real network behaviour (a delayed status
 * line, a dropped socket, a hang).
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { createMockGPT } from '@agent-core/mock'
 * import { createMockGPTRequestListener } from '@agent-core/mock/node'
 * const server = createServer(createMockGPTRequestListener(createMockGPT({ seed: 1 })))
 * ```
 */
export function createMockGPTRequestListener(
  mock: MockGPT,
  options: MockGPTRequestListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024
  assertSafeInteger(maxBodyBytes, 'maxBodyBytes', { min: 1 })
  const serverSignal = options.signal
  const allowedHosts = options.allowedHosts?.map((h) => hostName(h))
  // Loaded now, while the app is still setting up, so that the first stream rarely waits for it.
  loadBodyTools().catch(() => undefined)
  return (req, res) => {
    if (allowedHosts) {
      const host = req.headers.host
      if (host === undefined || !allowedHosts.includes(hostName(host))) {
        writeNow(hostRefused(host), res)
        return
      }
    }
    const declared = Number(req.headers['content-length'])
    if (declared > maxBodyBytes) {
      // Refused before reading a byte of it: the connection closes after the answer.
      writeNow(tooLarge(maxBodyBytes), res)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let overflow = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) overflow = true
      else chunks.push(chunk)
    })
    req.on('error', () => res.destroy())
    req.on('end', () => {
      const response: MockHttpResponse = overflow
        ? tooLarge(maxBodyBytes)
        : mock.handle({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            // The engine copies the string values itself (node joins repeated request headers).
            headers: req.headers as Record<string, string | undefined>,
            body:
              chunks.length === 0
                ? undefined
                : (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'),
          })
      respond(response, res, serverSignal)
    })
  }
}
