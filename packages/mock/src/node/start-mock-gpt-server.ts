import { createServer } from 'node:http'
import type { Socket } from 'node:net'
import { assertSafeInteger, describeValue, InvalidInputError } from '@agent-core/core'
import type { MockGPT, MockGPTOptions } from '@agent-core/mock'
import { createMockGPT } from '../mock-gpt.js'
import { createMockGPTRequestListener } from './request-listener.js'

/** Options of {@link startMockGPTServer}: the engine options plus where to listen.  * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * const server = await startMockGPTServer({ port: 0, host: '127.0.0.1', mock: createMockGPT({ seed: 3 }) })
 * await server.close()
 * ```
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * const server = await startMockGPTServer()
 * console.log(server.baseURL) // e.g. http://127.0.0.1:40123/v1
 * server.mock.reset()
 * await server.close()
 * ```
 */
export interface MockGPTServerOptions extends MockGPTOptions {
  /** Default 0 (any free port). */
  readonly port?: number | undefined
  /** Default `127.0.0.1` (loopback only). */
  readonly host?: string | undefined
  /** Serve this engine instead of creating one from the other options. */
  readonly mock?: MockGPT | undefined
  /** Bodies larger than this are answered 413. Default 16 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/** A running MockGPT server. */
export interface MockGPTServer {
  /** `http://host:port`, no trailing slash. */
  readonly url: string
  /** `http://host:port/v1`: the `baseURL` for OpenAI clients. */
  readonly baseURL: string
  readonly port: number
  readonly host: string
  /** The engine: script it, read `requests` and `usage`, `reset()` it between tests. */
  readonly mock: MockGPT
  /** Stops listening and ends every open connection, slow and hung streams included. Idempotent. */
  close(): Promise<void>
}

/**
 * Starts MockGPT on `node:http` (loopback and a free port by default).
 * @throws InvalidInputError on a bad port or host, or a malformed engine option
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * const server = await startMockGPTServer({ port: 0, seed: 1 })
 * const response = await fetch(`${server.baseURL}/models`)
 * console.log(response.status) // 200
 * await server.close()
 * ```
 */
export async function startMockGPTServer(options: MockGPTServerOptions = {}): Promise<MockGPTServer> {
  const { port = 0, host = '127.0.0.1', mock: given, maxBodyBytes, ...engineOptions } = options
  assertSafeInteger(port, 'port', { min: 0, max: 65535 })
  if (typeof host !== 'string' || host === '') {
    throw new InvalidInputError(
      `host must be a non-empty string such as "127.0.0.1", but got ${describeValue(host)}.`,
      { details: { name: 'host' } },
    )
  }
  const mock = given ?? createMockGPT(engineOptions)
  const lifetime = new AbortController()
  const server = createServer(createMockGPTRequestListener(mock, { maxBodyBytes, signal: lifetime.signal }))
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  const shownHost = host.includes(':') ? `[${host}]` : host
  const url = `http://${shownHost}:${actualPort}`
  let closing: Promise<void> | undefined
  return {
    url,
    baseURL: `${url}/v1`,
    port: actualPort,
    host,
    mock,
    close() {
      closing ??= new Promise<void>((resolve) => {
        lifetime.abort()
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
      })
      return closing
    },
  }
}
