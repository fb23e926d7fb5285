import { AgentCoreError, TimeoutError } from '@agent-core/core'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import {
  McpConnectionError,
  type McpConnectionErrorDetails,
  McpLimitError,
  McpProtocolError,
} from '../mcp-errors.js'
import { LIMIT_RPC_CODE, type LimitErrorData } from './limits.js'

/** Where a failure happened, for the message and the details of the typed error. */
export interface FailurePlace {
  readonly server: string
  readonly transport: McpConnectionErrorDetails['transport']
  readonly method: string
  readonly tool?: string | undefined
  readonly toolId?: string | undefined
  /** The time limit that applied to the request. */
  readonly timeoutMs?: number | undefined
  /** True when the connection is known to be closed (the process ended, the App closed it). */
  readonly closed: boolean
  /** What the transport knows about the end of the connection (exit code, stderr). */
  readonly exit: () => Partial<McpConnectionErrorDetails>
  /** A sentence about what the transport saw that may explain a silence (lines that were not JSON-RPC). */
  readonly hint: () => string
  /** Why the connection was given up, when the client gave it up (the transport stopped reconnecting). */
  readonly lost?: string | undefined
}

/** One line per problem of a schema validation error (zod's issues), at most five. */
export function issueLines(error: unknown): string[] | undefined {
  const issues = (error as { issues?: unknown } | null)?.issues
  if (!Array.isArray(issues)) return undefined
  return issues.slice(0, 5).map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join('.') : '(root)'
    return `${path}: ${typeof issue.message === 'string' ? issue.message : 'is invalid'}`
  })
}

function where(place: FailurePlace): string {
  return place.tool === undefined ? place.method : `${place.method} of tool "${place.tool}"`
}

function base(place: FailurePlace) {
  return {
    server: place.server,
    method: place.method,
    ...(place.tool === undefined ? {} : { tool: place.tool }),
    ...(place.toolId === undefined ? {} : { toolId: place.toolId }),
  }
}

/** A closed connection, as a typed error that says why when the transport knows. */
export function closedError(place: FailurePlace, cause?: unknown): McpConnectionError {
  const exit = place.exit()
  const how =
    exit.exitCode !== undefined || exit.exitSignal !== undefined
      ? ` (the process ended${exit.exitCode === null || exit.exitCode === undefined ? '' : ` with exit code ${exit.exitCode}`}${exit.exitSignal ? ` by ${exit.exitSignal}` : ''})`
      : ''
  const stderr = exit.stderr ? ` Its last stderr output: ${JSON.stringify(exit.stderr.slice(-500))}.` : ''
  const lost = place.lost === undefined ? '' : ` (${place.lost})`
  return new McpConnectionError(
    `The connection to MCP server "${place.server}" is closed${how}${lost}; ${where(place)} got no answer.${stderr} Connect again (connectMcpServer) to go on.`,
    { cause, details: { ...base(place), transport: place.transport, ...exit } },
  )
}

/**
 * Turns whatever the SDK or a transport threw into a typed error that names the server: a closed
 * connection or a failed transport is an {@link McpConnectionError}, a JSON-RPC error answer or a
 * malformed message an {@link McpProtocolError}, the SDK's own time limit core's `TimeoutError`.
 */
export function toMcpError(error: unknown, place: FailurePlace): Error {
  if (AgentCoreError.isInstance(error)) return error
  const { server } = place
  if (error instanceof McpError) {
    const data = error.data as Partial<LimitErrorData> | undefined
    if (error.code === LIMIT_RPC_CODE && data?.agentCoreLimit === 'maxMessageBytes') {
      return new McpLimitError(
        `MCP server "${server}" answered ${where(place)} with a message of ${data.received}, more than this connection accepts (limits.maxMessageBytes ${data.bound}); it was dropped unread. The server is at fault, or raise limits.maxMessageBytes.`,
        {
          cause: error,
          details: {
            ...base(place),
            limit: 'maxMessageBytes',
            bound: Number(data.bound),
            received: String(data.received),
          },
        },
      )
    }
    if (
      error.code === ErrorCode.ConnectionClosed &&
      (place.closed || error.message.endsWith('Connection closed'))
    ) {
      return closedError(place, error)
    }
    if (error.code === ErrorCode.RequestTimeout && place.timeoutMs !== undefined) {
      return new TimeoutError(
        `MCP server "${server}" did not answer ${where(place)} within ${place.timeoutMs} ms (the request was cancelled).${place.hint()} Check that the server is healthy, or raise the time limit.`,
        {
          cause: error,
          details: { timeoutMs: place.timeoutMs, what: `${where(place)} of MCP server "${server}"`, server },
        },
      )
    }
    const message = error.message.replace(/^MCP error -?\d+: /, '')
    return new McpProtocolError(
      `MCP server "${server}" answered ${where(place)} with JSON-RPC error ${error.code}: ${message}`,
      { cause: error, details: { ...base(place), rpcCode: error.code } },
    )
  }
  const problems = issueLines(error)
  if (problems) {
    return new McpProtocolError(
      `MCP server "${server}" answered ${where(place)} with a result the protocol does not allow: ${problems.join('; ')}. The server (or its MCP SDK) is at fault; update or fix it.`,
      { cause: error, details: { ...base(place), problems } },
    )
  }
  const text = error instanceof Error ? error.message : String(error)
  if (/protocol version is not supported/i.test(text)) {
    return new McpProtocolError(
      `MCP server "${server}" speaks a protocol version this client does not support (${text}). Update the server or @modelcontextprotocol/sdk.`,
      { cause: error, details: base(place) },
    )
  }
  if (text === 'Not connected') return closedError(place, error)
  const status = (error as { code?: unknown }).code
  const httpStatus = typeof status === 'number' && status >= 100 && status < 600 ? status : undefined
  let advice = 'Check that the server is running and reachable.'
  if (httpStatus === 401 || httpStatus === 403)
    advice = 'Check the credentials (bearerToken or headers) the connection sends.'
  else if (httpStatus === 404)
    advice = 'Check the URL (and, for streamable HTTP, whether the session expired).'
  else if (httpStatus === 405 && place.transport === 'http')
    advice = 'The endpoint may speak the older HTTP+SSE transport; connect with transport type "sse".'
  else if (/content type/i.test(text))
    advice = 'The endpoint does not answer as an MCP server; check the URL.'
  return new McpConnectionError(
    `${where(place)} to MCP server "${server}" failed${httpStatus === undefined ? '' : ` with HTTP ${httpStatus}`}: ${text}. ${advice}`,
    {
      cause: error,
      details: {
        ...base(place),
        transport: place.transport,
        ...(httpStatus === undefined ? {} : { status: httpStatus }),
      },
    },
  )
}
