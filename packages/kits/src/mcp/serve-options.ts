import type { MaybePromise, OperationContext, OperationContextInit } from '@agent-core/core'
import type { PendingToolCall } from '@agent-core/kits/tools'

/**
 * What the App's approval resolver answers for a call that needs approval: run it, or refuse it with the
 * reason the client's model reads (and, optionally, what to do instead). `by` defaults to `person`.
 * @example
 * ```ts
 * import type { McpApprovalAnswer } from '@agent-core/kits/mcp'
 * const no: McpApprovalAnswer = { type: 'reject', reason: 'Deployments are frozen today.', instruction: 'Ask again tomorrow.' }
 * ```
 */
export type McpApprovalAnswer =
  | { readonly type: 'approve'; readonly by?: 'person' | 'policy' | undefined }
  | {
      readonly type: 'reject'
      readonly reason: string
      readonly instruction?: string | undefined
      readonly by?: 'person' | 'policy' | undefined
    }

/**
 * What the App learns about the MCP request a tool call arrived in (to build the call's context: who is
 * calling, with which credentials).
 * @example
 * ```ts
 * import type { McpServeRequest } from '@agent-core/kits/mcp'
 * const caller = (request: McpServeRequest) => request.headers?.['x-user'] ?? 'anonymous'
 * ```
 */
export interface McpServeRequest {
  /** The session of a streamable HTTP client; `undefined` over stdio. */
  readonly sessionId: string | undefined
  /** The HTTP request's headers (streamable HTTP). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>> | undefined
  /** The MCP request id of the `tools/call`. */
  readonly requestId: string | number
}

/**
 * How {@link serveMcp} presents the tools and treats calls that need approval.
 *
 * A call whose lifecycle asks for approval (`ApprovalRequiredError` in `authorize`) never runs unless it
 * is approved. With `approvals: 'refuse'` (the default) the client receives an error result saying that
 * the call was not run because it needs approval; with `'elicit'` the server asks the client's user
 * through MCP elicitation (a yes/no form) and runs the call only on a yes (a client without elicitation
 * gets the refusal); with a function the App decides (a UI, a policy service).
 * @example
 * ```ts
 * import type { ServeMcpOptions } from '@agent-core/kits/mcp'
 * const options: ServeMcpOptions<{ user: string }> = {
 *   name: 'shop-tools',
 *   approvals: 'elicit',
 *   context: (request) => ({ app: { user: String(request.headers?.['x-user'] ?? 'anonymous') } }),
 * }
 * ```
 */
export interface ServeMcpOptions<App = unknown> {
  /** The server's name in the handshake. Default `agent-core`. */
  readonly name?: string | undefined
  /** The server's version in the handshake. Default `0.1.0`. */
  readonly version?: string | undefined
  /** Instructions for the client's model, sent in the handshake. */
  readonly instructions?: string | undefined
  /** What happens to a call that needs approval. Default `refuse`. */
  readonly approvals?:
    | 'refuse'
    | 'elicit'
    | ((call: PendingToolCall, context: OperationContext<App>) => MaybePromise<McpApprovalAnswer>)
    | undefined
  /** How long an elicited approval may take, in ms. Default 600000 (ten minutes). */
  readonly approvalTimeoutMs?: number | undefined
  /**
   * The operation context of each call (the App's state, diagnostics), or a function of the request that
   * builds it. The client's cancellation is joined to its signal.
   */
  readonly context?:
    | OperationContextInit<App>
    | ((request: McpServeRequest) => OperationContextInit<App>)
    | undefined
}

/**
 * Serve over stdio: read JSON-RPC from stdin, write it to stdout (how Claude Desktop and Cursor start
 * local servers). Default streams: the process's own.
 * @example
 * ```ts
 * import type { McpServeStdio } from '@agent-core/kits/mcp'
 * const transport: McpServeStdio = { type: 'stdio' }
 * ```
 */
export interface McpServeStdio {
  readonly type: 'stdio'
  readonly stdin?: NodeJS.ReadableStream | undefined
  readonly stdout?: NodeJS.WritableStream | undefined
}

/**
 * Serve over streamable HTTP: one endpoint (`path`), one MCP session per client. On a loopback host the
 * `Host` header is checked against it (DNS-rebinding protection) unless `allowedHosts` says otherwise.
 * With `listen: false` nothing listens: mount `handle.handleRequest` in your own Node HTTP server.
 * @example
 * ```ts
 * import type { McpServeHttp } from '@agent-core/kits/mcp'
 * const transport: McpServeHttp = { type: 'http', host: '127.0.0.1', port: 3333, path: '/mcp' }
 * ```
 */
export interface McpServeHttp {
  readonly type: 'http'
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 0: any free port (read it from `handle.url`). */
  readonly port?: number | undefined
  /** Default `/mcp`. */
  readonly path?: string | undefined
  /** Default true. */
  readonly listen?: boolean | undefined
  /** `Host` header values accepted (`host:port`); enables DNS-rebinding protection. */
  readonly allowedHosts?: readonly string[] | undefined
  /** `Origin` header values accepted. */
  readonly allowedOrigins?: readonly string[] | undefined
  /** A session without requests for this long is closed, in ms. Default 1800000 (30 minutes). */
  readonly sessionIdleMs?: number | undefined
  /** Largest request body accepted, in bytes. Default 4 MB. */
  readonly maxBodyBytes?: number | undefined
}
