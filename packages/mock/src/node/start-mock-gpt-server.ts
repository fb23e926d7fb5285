import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { assertSafeInteger, describeValue, refuseField } from '@agent-core/core'
import type { MockFixture, MockGPT, MockGPTOptions } from '@agent-core/mock'
import { assertRecordOptions, type MockGPTRecordOptions, RecordProxy } from './record-proxy.js'
import { createMockGPTRequestListener } from './request-listener.js'

/**
 * Options of {@link startMockGPTServer}: the engine options plus where to listen.
 * @example
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
  /**
   * Default `127.0.0.1` (loopback only). Binding anything else requires an admin token for `/_mock/*`: the
   * `adminToken` option, or one generated at start (`server.adminToken`; the CLI prints it).
   */
  readonly host?: string | undefined
  /** Serve this engine instead of creating one from the other options. */
  readonly mock?: MockGPT | undefined
  /** Bodies larger than this are answered 413 (before reading, when `Content-Length` says so). Default 16 MiB. */
  readonly maxBodyBytes?: number | undefined
  /**
   * Extra host names the `Host` header may carry. On loopback the server accepts only `localhost`,
   * `127.0.0.1`, `[::1]` and the bound host by default (DNS rebinding protection); elsewhere any host unless
   * this is set.
   */
  readonly allowedHosts?: readonly string[] | undefined
  /**
   * Record mode: forward model requests to a real endpoint and record the exchanges (see
   * {@link MockGPTRecordOptions}); admin routes still work. Replay the file later with the `replay` option.
   */
  readonly record?: MockGPTRecordOptions | undefined
  /**
   * Let the process exit while the server listens (`server.unref()`), for a server shared by test files
   * that nobody closes explicitly. Default false.
   */
  readonly unref?: boolean | undefined
}

/**
 * A running MockGPT server.
 * @example
 * ```ts
 * import { startMockGPTServer, type MockGPTServer } from '@agent-core/mock/node'
 * const server: MockGPTServer = await startMockGPTServer({ strict: true })
 * process.env.OPENAI_BASE_URL = server.baseURL
 * await server.close()
 * ```
 */
export interface MockGPTServer {
  /** `http://host:port`, no trailing slash. */
  readonly url: string
  /** `http://host:port/v1`: the `baseURL` for OpenAI (and, without `/v1`, Anthropic) clients. */
  readonly baseURL: string
  readonly port: number
  readonly host: string
  /** The engine: script it, read `requests` and `usage`, `reset()` it between tests. */
  readonly mock: MockGPT
  /** The token the admin routes require (`undefined` when none is required: loopback without one). */
  readonly adminToken: string | undefined
  /** Record mode: the exchanges recorded so far (credentials stripped). */
  readonly fixtures: readonly MockFixture[]
  /** Record mode: writes the fixtures to `record.file` now (`close()` does it too). */
  saveFixtures(): void
  /**
   * Stops listening and ends every open connection, slow and hung streams included; in record mode writes
   * the fixture file. Rejects with `MockScriptError` when the engine recorded a script problem (after
   * closing everything), so a suite whose script failed cannot end green. Idempotent.
   */
  close(): Promise<void>
}

const SERVER_KEYS = ['port', 'host', 'mock', 'maxBodyBytes', 'allowedHosts', 'record', 'unref']

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

function modelPath(url: string): { path: string; query: string } | undefined {
  const q = url.indexOf('?')
  let path = q < 0 ? url : url.slice(0, q)
  if (path.startsWith('/test/')) {
    const end = path.indexOf('/', '/test/'.length)
    path = end < 0 ? '/' : path.slice(end)
  }
  return path.startsWith('/v1/') ? { path, query: q < 0 ? '' : url.slice(q) } : undefined
}

/**
 * Starts MockGPT on `node:http` (loopback and a free port by default).
 * @throws InvalidInputError on a bad port, host or option (the message names the field)
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
  const {
    port = 0,
    host = '127.0.0.1',
    mock: given,
    maxBodyBytes,
    allowedHosts,
    record,
    unref = false,
    ...engineOptions
  } = options
  assertSafeInteger(port, 'port', { min: 0, max: 65535 })
  if (typeof host !== 'string' || host === '') {
    refuseField(
      'input',
      'host',
      `must be a non-empty string such as "127.0.0.1", but got ${describeValue(host)}`,
      host,
    )
  }
  if (
    allowedHosts !== undefined &&
    (!Array.isArray(allowedHosts) || allowedHosts.some((h) => typeof h !== 'string' || h === ''))
  ) {
    refuseField(
      'input',
      'allowedHosts',
      `must be an array of host names, but got ${describeValue(allowedHosts)}`,
      allowedHosts,
    )
  }
  if (record !== undefined) assertRecordOptions(record)
  const loopback = isLoopback(host)
  let mock: MockGPT
  let adminToken = engineOptions.adminToken
  if (given) {
    if (!loopback && adminToken === undefined) {
      refuseField(
        'input',
        'adminToken',
        `must be given: MockGPT listens on ${host}, beyond loopback, so its admin routes need a token. Create the engine with createMockGPT({ adminToken }) and pass adminToken here too, or bind to 127.0.0.1`,
        adminToken,
      )
    }
    mock = given
  } else {
    if (!loopback && adminToken === undefined)
      adminToken = process.getBuiltinModule('node:crypto').randomBytes(18).toString('base64url')
    // The engine is loaded here, on the first server that creates one (see ./engine.ts)
    const { createEngine, resolveOptions } = await import('./engine.js')
    mock = createEngine(resolveOptions({ ...engineOptions, adminToken }, SERVER_KEYS))
  }
  const lifetime = new AbortController()
  const hosts = loopback ? ['localhost', '127.0.0.1', '::1', host, ...(allowedHosts ?? [])] : allowedHosts
  const listener = createMockGPTRequestListener(mock, {
    maxBodyBytes,
    signal: lifetime.signal,
    allowedHosts: hosts,
  })
  const proxy = record ? new RecordProxy(record) : undefined
  const handler = proxy
    ? (req: IncomingMessage, res: ServerResponse) => {
        const target = modelPath(req.url ?? '/')
        const hostName = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '')
        if (!target || (hosts && !hosts.includes(hostName))) return listener(req, res)
        const chunks: Buffer[] = []
        req.on('data', (chunk: Buffer) => chunks.push(chunk))
        req.on('error', () => res.destroy())
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          proxy.forward(req, res, target.path, target.query, body, lifetime.signal).catch(() => res.destroy())
        })
      }
    : listener
  // node:http on the first server: loaded at import, it (and the node:net and node:stream it needs) would
  // add several ms to every cold import of this entry, which an app that only creates listeners never uses
  const server = process.getBuiltinModule('node:http').createServer(handler)
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    if (unref) socket.unref()
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
  if (unref) server.unref()
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
    adminToken,
    get fixtures() {
      return proxy ? [...proxy.interactions] : []
    },
    saveFixtures() {
      proxy?.save()
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        lifetime.abort()
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
      }).then(() => {
        proxy?.save()
        mock.assertNoScriptProblems()
      })
      return closing
    },
  }
}
