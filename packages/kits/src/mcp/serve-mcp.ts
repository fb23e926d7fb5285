import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http'
import { createId, describeValue, FieldReader, refuseField } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import { defineToolLifecycle, type ToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { MAX_TIMER_MS } from './internal/options.js'
import { assertServable, createToolServer, type ServeSettings } from './internal/serve-handlers.js'
import { mcpResultTemplate } from './mcp-content.js'
import { McpConnectionError } from './mcp-errors.js'
import type { McpServeAuthRequest, McpServeHttp, McpServeStdio, ServeMcpOptions } from './serve-options.js'

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
type AnyLifecycle<App> = ToolLifecycle<any, any, App>
// biome-ignore lint/suspicious/noExplicitAny: as above
type AnyTool<App> = ModelTool<any, any, App>

/**
 * What {@link serveMcp} serves: a tools-kit registry (its lifecycles decide, call by call), or tools and
 * lifecycles from which a sealed registry is made.
 * @example
 * ```ts
 * import type { McpServableTools } from '@agent-core/kits/mcp'
 * import type { ToolLifecycle } from '@agent-core/kits/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const refundLifecycle: ToolLifecycle
 * declare const searchOrders: ModelTool
 * const tools: McpServableTools = [searchOrders, refundLifecycle]
 * ```
 */
export type McpServableTools<App = unknown> =
  | ToolLifecycleRegistry<App>
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  | readonly (ModelTool<any, any, App> | ToolLifecycle<any, any, App>)[]

/**
 * A running MCP server.
 * @example
 * ```ts
 * import type { McpServerHandle } from '@agent-core/kits/mcp'
 * const stopOnSignal = (handle: McpServerHandle) => process.once('SIGTERM', () => void handle.close())
 * ```
 */
export interface McpServerHandle {
  /**
   * Tells connected clients that the tool list changed (after registering tools in an unsealed registry).
   * Over streamable HTTP a client hears it on its event stream; a client whose stream is not open yet (it
   * opens it just after initializing, and again after a disconnect) is told as soon as it opens.
   */
  notifyToolsChanged(): Promise<void>
  /** Stops serving: closes every session (and the HTTP listener). */
  close(): Promise<void>
  /** Settles when the server stopped (over stdio, also when the client closed stdin). */
  readonly closed: Promise<void>
}

/**
 * A running MCP server on streamable HTTP.
 * @example
 * ```ts
 * import { serveMcp } from '@agent-core/kits/mcp'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const clock: ModelTool
 * const handle = await serveMcp([clock], { type: 'http', port: 0 })
 * console.log(`MCP endpoint: ${handle.url}`)
 * ```
 */
export interface McpHttpServerHandle extends McpServerHandle {
  /** The endpoint's URL; `undefined` with `listen: false`. */
  readonly url: string | undefined
  /** Open sessions. */
  readonly sessions: number
  /** Answers one HTTP request to the endpoint (mount it in your own Node server with `listen: false`). */
  handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void>
}

function isRegistry(value: unknown): value is ToolLifecycleRegistry<unknown> {
  if (value instanceof ToolLifecycleRegistry) return true
  const candidate = value as Partial<ToolLifecycleRegistry<unknown>> | null
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.run === 'function' &&
    typeof candidate.resume === 'function' &&
    typeof candidate.get === 'function' &&
    typeof candidate.values === 'function'
  )
}

function registryOf<App>(tools: unknown): ToolLifecycleRegistry<App> {
  if (isRegistry(tools)) return tools as ToolLifecycleRegistry<App>
  if (!Array.isArray(tools)) {
    refuseField(
      'input',
      'tools',
      `must be a ToolLifecycleRegistry or an array of tools and tool lifecycles, but got ${describeValue(tools)}`,
      tools,
      { prefix: 'serveMcp: ' },
    )
  }
  const lifecycles = tools.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) {
      refuseField(
        'input',
        `tools[${index}]`,
        `must be a core ModelTool or a tool lifecycle, but got ${describeValue(entry)}`,
        entry,
      )
    }
    const tool = (entry as { tool?: unknown }).tool
    return typeof tool === 'object' && tool !== null
      ? (entry as AnyLifecycle<App>)
      : defineToolLifecycle(entry as AnyTool<App>)
  })
  return ToolLifecycleRegistry.create<App>(lifecycles as never, { templates: [mcpResultTemplate] })
}

function readSettings<App>(value: unknown): ServeSettings<App> {
  const reader = new FieldReader(
    value ?? {},
    'options',
    'serve options { name?, version?, approvals?, context?, ... }',
  ).only(['name', 'version', 'instructions', 'approvals', 'approvalTimeoutMs', 'context'])
  const approvals = reader.get('approvals') ?? 'refuse'
  if (approvals !== 'refuse' && approvals !== 'elicit' && typeof approvals !== 'function')
    reader.mustBe('approvals', '"refuse", "elicit" or a function of the pending call', approvals)
  const context = reader.get('context')
  if (
    context !== undefined &&
    typeof context !== 'function' &&
    (typeof context !== 'object' || context === null)
  )
    reader.mustBe(
      'context',
      'an operation context (an object) or a function of the request that returns one',
      context,
    )
  return {
    name: reader.string('name') ?? 'agent-core',
    version: reader.string('version') ?? '0.1.0',
    instructions: reader.string('instructions'),
    approvals: approvals as ServeSettings<App>['approvals'],
    approvalTimeoutMs: reader.integer('approvalTimeoutMs', 1, MAX_TIMER_MS, 'ms') ?? 600_000,
    context: context as ServeSettings<App>['context'],
  }
}

/**
 * Serves tools over MCP, so Claude Desktop, Cursor or another agent can call them: over stdio (the
 * process's stdin and stdout) or streamable HTTP (an endpoint on a port, or a handler to mount). Every
 * call runs through the tools kit lifecycle with the client's cancellation as its signal: schemas are
 * checked, `inspect` and `authorize` decide, time limits apply. A call that needs approval never runs
 * unless it is approved (see {@link ServeMcpOptions}); a failed or refused call is an error result
 * (`isError`) whose text is what the lifecycle renders for a model.
 * @throws `InvalidInputError` for malformed arguments; `InvalidDefinitionError` for a tool whose input is
 *   not an object
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { serveMcp } from '@agent-core/kits/mcp'
 * const clock = defineModelTool({ id: 'clock', description: 'The time', inputSchema: { type: 'object' }, execute: () => new Date().toISOString() })
 * await serveMcp([clock], { type: 'stdio' }) // e.g. started by Claude Desktop as `node clock-server.js`
 * ```
 */
export function serveMcp<App = unknown>(
  tools: McpServableTools<App>,
  transport: McpServeStdio,
  options?: ServeMcpOptions<App>,
): Promise<McpServerHandle>
export function serveMcp<App = unknown>(
  tools: McpServableTools<App>,
  transport: McpServeHttp,
  options?: ServeMcpOptions<App>,
): Promise<McpHttpServerHandle>
export async function serveMcp<App = unknown>(
  tools: McpServableTools<App>,
  transport: McpServeStdio | McpServeHttp,
  options: ServeMcpOptions<App> = {},
): Promise<McpServerHandle | McpHttpServerHandle> {
  const registry = registryOf<App>(tools)
  assertServable(registry.values() as readonly AnyLifecycle<unknown>[])
  const settings = readSettings<App>(options)
  const type =
    typeof transport === 'object' && transport !== null ? (transport as { type?: unknown }).type : undefined
  if (type === 'stdio') return serveStdio(registry, transport as McpServeStdio, settings)
  if (type === 'http') return serveHttp(registry, transport as McpServeHttp, settings)
  refuseField(
    'input',
    'transport',
    `must be { type: "stdio" } or { type: "http", port?, host?, path? }, but got ${describeValue(transport)}`,
    transport,
  )
}

async function serveStdio<App>(
  registry: ToolLifecycleRegistry<App>,
  transport: McpServeStdio,
  settings: ServeSettings<App>,
): Promise<McpServerHandle> {
  const reader = new FieldReader(
    transport,
    'transport',
    'a transport { type: "stdio", stdin?, stdout? }',
  ).only(['type', 'stdin', 'stdout'])
  const stdin = (reader.get('stdin') ?? process.stdin) as NodeJS.ReadableStream
  const stdout = (reader.get('stdout') ?? process.stdout) as NodeJS.WritableStream
  if (typeof stdin.on !== 'function') reader.mustBe('stdin', 'a readable stream', stdin)
  if (typeof stdout.write !== 'function') reader.mustBe('stdout', 'a writable stream', stdout)
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  const server = createToolServer(registry, settings)
  const sdkTransport = new StdioServerTransport(stdin as never, stdout as never)
  let markClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve
  })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= server.close().finally(() => {
      stdin.off('end', close)
      markClosed()
    })
    return closing
  }
  server.onclose = () => {
    void close()
  }
  stdin.on('end', close)
  await server.connect(sdkTransport)
  return Object.freeze({
    notifyToolsChanged: () => server.sendToolListChanged().catch(() => undefined),
    close,
    closed,
  })
}

async function readBody(
  request: IncomingMessage,
  limit: number,
): Promise<{ ok: true; body: unknown } | { ok: false; status: number; message: string }> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN)
  if (declared > limit) {
    return {
      ok: false,
      status: 413,
      message: `The request body (${declared} bytes declared) is larger than ${limit} bytes.`,
    }
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > limit)
      return { ok: false, status: 413, message: `The request body is larger than ${limit} bytes.` }
    chunks.push(chunk as Buffer)
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return { ok: false, status: 400, message: 'The request body is not JSON.' }
  }
}

function reply(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.end()
    return
  }
  // A refused body is never read: the connection closes after the answer instead of draining it.
  const close = status === 413 ? { connection: 'close' } : {}
  response.writeHead(status, { 'content-type': 'application/json', ...close, ...headers })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/** Settles `true` once the response started an event stream, `false` if it answered otherwise or closed. */
async function eventStreamOpened(response: ServerResponse): Promise<boolean> {
  while (!response.headersSent) {
    if (response.destroyed || response.writableEnded) return false
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  // the SDK answers a GET with 200 only when it opened the session's event stream (an error otherwise)
  return response.statusCode === 200
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

/** `host` and `port` of a `Host` header or an allowed-hosts entry (lower case; `[::1]` keeps brackets). */
function splitHost(value: string): { host: string; port: string | undefined } {
  const text = value.trim().toLowerCase()
  const bracket = /^(\[[^\]]*\])(?::(\d+))?$/.exec(text)
  if (bracket) return { host: bracket[1] as string, port: bracket[2] }
  const colon = text.lastIndexOf(':')
  if (colon > 0 && text.indexOf(':') === colon && /^\d+$/.test(text.slice(colon + 1)))
    return { host: text.slice(0, colon), port: text.slice(colon + 1) }
  return { host: text, port: undefined }
}

/** Whether a `Host` header is one of `allowed` (an entry without a port allows every port). */
function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (header === undefined || header === '') return false
  const { host, port } = splitHost(header)
  return allowed.some((entry) => {
    const wanted = splitHost(entry)
    return wanted.host === host && (wanted.port === undefined || wanted.port === port)
  })
}

/** An origin as `scheme://host[:port]`, lower case, or `undefined` when it is not one. */
function normalOrigin(value: string): string | undefined {
  if (value === 'null') return 'null'
  try {
    const url = new URL(value)
    return url.origin === 'null' ? undefined : url.origin.toLowerCase()
  } catch {
    return undefined
  }
}

async function serveHttp<App>(
  registry: ToolLifecycleRegistry<App>,
  transport: McpServeHttp,
  settings: ServeSettings<App>,
): Promise<McpHttpServerHandle> {
  const reader = new FieldReader(
    transport,
    'transport',
    'a transport { type: "http", host?, port?, path?, ... }',
  ).only([
    'type',
    'host',
    'port',
    'path',
    'listen',
    'allowedHosts',
    'allowedOrigins',
    'sessionIdleMs',
    'maxBodyBytes',
    'maxSessions',
    'authenticate',
  ])
  const host = reader.string('host') ?? '127.0.0.1'
  const port = reader.integer('port', 0, 65_535, 'a TCP port') ?? 0
  const path = reader.string('path') ?? '/mcp'
  if (!path.startsWith('/')) reader.mustBe('path', 'a path that starts with "/"', path)
  const listen = reader.boolean('listen') ?? true
  const givenHosts = reader.strings('allowedHosts')
  const allowedOrigins = reader.strings('allowedOrigins')
  const sessionIdleMs = reader.integer('sessionIdleMs', 1, MAX_TIMER_MS, 'ms') ?? 300_000
  const maxBodyBytes = reader.integer('maxBodyBytes', 1, 1024 * 1024 * 1024, 'bytes') ?? 4 * 1024 * 1024
  const maxSessions = reader.integer('maxSessions', 1, 1_000_000, 'sessions') ?? 64
  const authenticate = reader.get('authenticate')
  if (authenticate !== undefined && typeof authenticate !== 'function')
    reader.mustBe('authenticate', 'a function of the request that answers true to let it in', authenticate)
  const origins = new Set<string>()
  for (const [index, origin] of (allowedOrigins ?? []).entries()) {
    const normal = normalOrigin(origin)
    if (normal === undefined)
      return reader.mustBe(`allowedOrigins[${index}]`, 'an origin such as "https://app.example.com"', origin)
    origins.add(normal)
  }

  const [{ createServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('node:http'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ])
  interface Session {
    readonly server: Server
    readonly transport: StreamableHTTPServerTransport
    lastSeen: number
    /** The client's event stream (its GET request) is open: notifications reach it. */
    streamOpen: boolean
    /** A tools change was announced while no event stream was open: tell the client when one opens. */
    missedToolsChange: boolean
  }
  const sessions = new Map<string, Session>()
  /** Sessions being initialized (counted against maxSessions before they have an id). */
  let opening = 0
  let allowedHosts = givenHosts
  let url: string | undefined
  let stopped = false

  const handleRequest = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname
      if (pathname !== path) {
        response
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`Not found. The MCP endpoint is ${path}.`)
        return
      }
      if (stopped) return reply(response, 503, -32000, 'The server is shutting down.')
      // The MCP specification's guidance for streamable HTTP: the Host is one we serve (DNS rebinding),
      // a browser's Origin is one the App listed, the caller is authenticated, before any method runs.
      const hosts = allowedHosts ?? LOOPBACK_NAMES
      if (!hostAllowed(request.headers.host, hosts)) {
        return reply(
          response,
          403,
          -32000,
          `Forbidden: the Host ${JSON.stringify(request.headers.host ?? '')} is not served here (allowed: ${hosts.join(', ')}). List it in allowedHosts if it is yours.`,
        )
      }
      const origin = request.headers.origin
      if (origin !== undefined && !origins.has(normalOrigin(origin) ?? '')) {
        return reply(
          response,
          403,
          -32000,
          `Forbidden: requests from the origin ${JSON.stringify(origin)} are not accepted. List it in allowedOrigins if that page may call these tools.`,
        )
      }
      const header = request.headers['mcp-session-id']
      const sessionId = Array.isArray(header) ? header[0] : header
      if (authenticate !== undefined) {
        let admitted: unknown
        try {
          admitted = await (authenticate as (request: McpServeAuthRequest) => unknown)(
            Object.freeze({ method: request.method ?? 'GET', headers: request.headers, sessionId }),
          )
        } catch {
          admitted = false
        }
        if (admitted !== true) {
          return reply(response, 401, -32000, 'Unauthorized: this MCP endpoint needs credentials.', {
            'www-authenticate': 'Bearer',
          })
        }
      }
      if (sessionId !== undefined) {
        const session = sessions.get(sessionId)
        if (!session) return reply(response, 404, -32001, 'Session not found; initialize a new session.')
        session.lastSeen = Date.now()
        if (request.method === 'GET') return await serveEventStream(session, request, response)
        if (request.method === 'POST') {
          const read = await readBody(request, maxBodyBytes)
          if (!read.ok) return reply(response, read.status, -32700, read.message)
          await session.transport.handleRequest(request, response, read.body)
          return
        }
        await session.transport.handleRequest(request, response)
        return
      }
      if (request.method !== 'POST')
        return reply(response, 400, -32000, 'Bad request: no session; start one with an initialize POST.')
      const read = await readBody(request, maxBodyBytes)
      if (!read.ok) return reply(response, read.status, -32700, read.message)
      if (!isInitializeRequest(read.body)) {
        return reply(
          response,
          400,
          -32000,
          'Bad request: no session id; the first request of a session is initialize.',
        )
      }
      sweepIdle()
      if (sessions.size + opening >= maxSessions) {
        return reply(
          response,
          503,
          -32000,
          `The server holds its limit of ${maxSessions} sessions; try again once one ends (sessions idle for ${sessionIdleMs} ms are closed).`,
          { 'retry-after': String(Math.max(1, Math.ceil(Math.min(sessionIdleMs, 60_000) / 1000))) },
        )
      }
      opening += 1
      let counted = true
      const opened = () => {
        if (counted) opening -= 1
        counted = false
      }
      const sdkTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => createId('mcp-session'),
        onsessioninitialized: (id) => {
          opened()
          sessions.set(id, {
            server,
            transport: sdkTransport,
            lastSeen: Date.now(),
            streamOpen: false,
            missedToolsChange: false,
          })
        },
      })
      const server = createToolServer(registry, settings)
      sdkTransport.onclose = () => {
        if (sdkTransport.sessionId !== undefined) sessions.delete(sdkTransport.sessionId)
      }
      try {
        await server.connect(sdkTransport)
        await sdkTransport.handleRequest(request, response, read.body)
      } finally {
        opened()
      }
    } catch (error) {
      reply(
        response,
        500,
        -32603,
        `Internal error: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  // A notification is lost while a session has no event stream (a client opens it after initialization,
  // and again after a disconnect). A tools change announced meanwhile is told as soon as the stream opens.
  const serveEventStream = async (session: Session, request: IncomingMessage, response: ServerResponse) => {
    const served = session.transport.handleRequest(request, response)
    if (await eventStreamOpened(response)) {
      session.streamOpen = true
      response.once('close', () => {
        session.streamOpen = false
        session.lastSeen = Date.now()
      })
      if (session.missedToolsChange) {
        session.missedToolsChange = false
        await session.server.sendToolListChanged().catch(() => undefined)
      }
    }
    await served
  }

  const closeSession = async (id: string, session: Session) => {
    sessions.delete(id)
    await session.server.close().catch(() => undefined)
  }
  // A session is idle when no request came for sessionIdleMs and no event stream of it is open.
  const sweepIdle = () => {
    const now = Date.now()
    for (const [id, session] of sessions)
      if (!session.streamOpen && now - session.lastSeen > sessionIdleMs) void closeSession(id, session)
  }
  const sweep = setInterval(sweepIdle, Math.max(1, Math.min(sessionIdleMs, 60_000)))
  sweep.unref()

  let httpServer: HttpServer | undefined
  if (listen) {
    const server = createServer((request, response) => {
      void handleRequest(request, response)
    })
    httpServer = server
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        clearInterval(sweep)
        reject(
          new McpConnectionError(
            `MCP server "${settings.name}" could not listen on ${host}:${port}: ${error.message}. Choose another host or port (port 0 picks a free one).`,
            { cause: error, details: { server: settings.name, transport: 'http' } },
          ),
        )
      }
      server.once('error', fail)
      server.listen(port, host, () => {
        server.off('error', fail)
        resolve()
      })
    })
    const address = server.address()
    const bound = typeof address === 'object' && address !== null ? address.port : port
    const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
    url = `http://${shown}:${bound}${path}`
    if (allowedHosts === undefined && LOOPBACK.has(host)) {
      allowedHosts = LOOPBACK_NAMES.map((name) => `${name}:${bound}`)
    }
  }

  let markClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve
  })
  let closing: Promise<void> | undefined
  return Object.freeze({
    get url() {
      return url
    },
    get sessions() {
      return sessions.size
    },
    handleRequest,
    async notifyToolsChanged() {
      const open = [...sessions.values()].filter((session) => {
        if (!session.streamOpen) session.missedToolsChange = true
        return session.streamOpen
      })
      await Promise.all(open.map((session) => session.server.sendToolListChanged().catch(() => undefined)))
    },
    close() {
      closing ??= (async () => {
        stopped = true
        clearInterval(sweep)
        await Promise.all([...sessions].map(([id, session]) => closeSession(id, session)))
        if (httpServer) {
          const server = httpServer
          await new Promise<void>((resolve) => {
            server.close(() => resolve())
            server.closeAllConnections()
          })
        }
        markClosed()
      })()
      return closing
    },
    closed,
  })
}
