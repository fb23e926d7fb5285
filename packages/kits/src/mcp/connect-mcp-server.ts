import {
  abortedError,
  createOperationContext,
  deadlineSignal,
  type OperationContextInit,
  raceSignal,
  TimeoutError,
  throwIfAborted,
} from '@agent-core/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpConnectionOptions } from './connection-options.js'
import { toMcpError } from './internal/errors.js'
import { RateLimitedTransport } from './internal/limits.js'
import { readConnectionOptions } from './internal/options.js'
import { ResourceIndex } from './internal/resources.js'
import { Session } from './internal/session.js'
import { listTools, type ToolListing } from './internal/tools.js'
import { buildTransport } from './internal/transports.js'
import { Connection, type McpConnection } from './mcp-connection.js'

/**
 * Connects to an MCP server (stdio, streamable HTTP, legacy HTTP+SSE or an SDK transport of your own),
 * completes the handshake within `connectTimeoutMs`, and lists its tools (every page) as core
 * `ModelTool`s named `<server>__<tool>`. Every failure is typed and names the server: the command could
 * not start or the endpoint refused (`McpConnectionError`), the server broke the protocol
 * (`McpProtocolError`), a tool's schema is not JSON Schema (`McpSchemaError`), no answer in time (core's
 * `TimeoutError`). A failed connect leaves no process behind.
 *
 * `context` supplies the signal that may cancel the connect and the diagnostics that receive the
 * connection's events (`mcp-connect` span, `mcp-tools-changed`, `mcp-server-stderr`, `mcp-disconnect`, ...).
 * @throws `InvalidInputError` for malformed options
 * @example
 * ```ts
 * import { connectMcpServer } from '@agent-core/kits/mcp'
 * const everything = await connectMcpServer({
 *   name: 'everything',
 *   transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 * })
 * console.log(everything.tools.map((tool) => tool.id)) // ['everything__echo', ...]
 * await everything.close()
 * ```
 */
export async function connectMcpServer<Name extends string>(
  options: McpConnectionOptions & { readonly name: Name },
  context: OperationContextInit = {},
): Promise<McpConnection<Name>> {
  const parsed = readConnectionOptions(options)
  const operation = createOperationContext(context)
  const { name } = parsed
  throwIfAborted(operation.signal, `before connecting to MCP server "${name}"`)
  const diagnostics = operation.diagnostics
  const span = diagnostics.span('mcp-connect', { server: name, transport: parsed.transport.type })
  let session: Session | undefined
  let connection: Connection<Name> | undefined
  try {
    const built = await buildTransport(
      parsed,
      (line) => diagnostics.emit('mcp-server-stderr', { server: name, line }, 'debug'),
      (bytes) =>
        diagnostics.emit(
          'mcp-message-dropped',
          { server: name, bytes, limit: 'maxMessageBytes', bound: parsed.limits.maxMessageBytes },
          'warn',
        ),
    )
    const guarded = new RateLimitedTransport(
      built.transport,
      parsed.limits.maxNotificationsPerSecond,
      (perSecond) => diagnostics.emit('mcp-notification-dropped', { server: name, perSecond }, 'warn'),
    )
    const client = new Client(parsed.clientInfo, { capabilities: {} })
    const live = new Session(
      name,
      client,
      parsed.transport.type,
      built.stdio,
      diagnostics,
      parsed.requestTimeoutMs,
      parsed.callTimeoutMs,
      parsed.limits,
    )
    session = live
    const resources = new ResourceIndex(live)
    client.onerror = (error) => {
      diagnostics.emit('mcp-transport-error', { server: name, error: error.message }, 'warn')
      if (parsed.transport.type === 'http') watchHttpStream(live, error.message)
    }
    client.onclose = () => {
      const unexpected = !live.closed && live.closing === undefined
      live.closed = true
      diagnostics.emit(
        'mcp-disconnect',
        { server: name, unexpected, ...live.exitDetails() },
        unexpected ? 'warn' : 'info',
      )
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      connection?.announceToolsChanged()
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      resources.invalidate()
      diagnostics.emit('mcp-resources-changed', { server: name })
    })

    await handshake(live, guarded, parsed.connectTimeoutMs, operation.signal)
    const offersTools = client.getServerCapabilities()?.tools !== undefined
    const listing: ToolListing = offersTools
      ? await listTools(live, parsed, new Map(), operation.signal)
      : { tools: new Map(), skipped: Object.freeze([]) }
    connection = new Connection<Name>(live, parsed, listing, resources, built.terminate)
    const info = client.getServerVersion()
    span.end('ok', {
      server: name,
      tools: connection.tools.length,
      serverName: info?.name,
      serverVersion: info?.version,
    })
    return connection
  } catch (error) {
    span.fail(error, { server: name })
    if (session) {
      session.closed = true
      session.closing ??= session.client.close().catch(() => undefined)
      await session.closing
    }
    throw error
  }
}

/** The streamable HTTP transport's words for giving up on an event stream. */
const GAVE_UP = /^Maximum reconnection attempts/
const DROPPED = /^(SSE stream disconnected|Failed to reconnect|Failed to open SSE stream)/

/**
 * The streamable HTTP transport reports through `onerror` only: when it stops reconnecting, the
 * connection is given up (pending requests fail with `McpConnectionError`, `closed` becomes true); when an
 * event stream drops while requests wait, the server is asked for a `ping`, and a server that does not
 * answer is given up too (a POST's stream that ended without its answer is never resumed).
 */
function watchHttpStream(session: Session, message: string): void {
  if (session.closed || session.closing !== undefined) return
  if (GAVE_UP.test(message)) {
    void session.giveUp(`the streamable HTTP transport stopped reconnecting: ${message}`)
    return
  }
  if (!DROPPED.test(message) || session.pending === 0) return
  const timeout = Math.min(session.requestTimeoutMs, 5_000)
  session.client.ping({ timeout }).then(
    () => undefined,
    (error: unknown) => {
      void session.giveUp(
        `its event stream dropped and it did not answer a ping: ${error instanceof Error ? error.message : String(error)}`,
      )
    },
  )
}

/**
 * The SDK's `connect` (transport start, `initialize`, `initialized`) within one deadline: some transports
 * wait in `start` (an SSE endpoint that never sends its first event), before the SDK's own request timer.
 */
async function handshake(
  session: Session,
  transport: Parameters<Client['connect']>[0],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const deadline = deadlineSignal(signal, timeoutMs, `the handshake with MCP server "${session.server}"`)
  try {
    await raceSignal(
      session.client.connect(transport, { signal: deadline.signal, timeout: timeoutMs }),
      deadline.signal,
      `connecting to MCP server "${session.server}"`,
    )
  } catch (error) {
    if (signal.aborted) throw abortedError(signal, `connecting to MCP server "${session.server}"`)
    if (deadline.signal.aborted) {
      const stderr = session.stdio?.stderrTail
      throw new TimeoutError(
        `MCP server "${session.server}" did not complete the handshake (initialize) within ${timeoutMs} ms.${session.hint()}${stderr ? ` Its stderr: ${JSON.stringify(stderr.slice(-500))}.` : ''} Check that the command or URL starts an MCP server, or raise connectTimeoutMs.`,
        {
          cause: error,
          details: {
            timeoutMs,
            what: `initialize of MCP server "${session.server}"`,
            server: session.server,
          },
        },
      )
    }
    throw toMcpError(error, session.place('initialize'))
  } finally {
    deadline.dispose()
  }
}
