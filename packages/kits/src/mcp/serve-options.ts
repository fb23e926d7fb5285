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
 * What an authentication hook of `McpServeHttp` learns about a request (before any MCP method runs).
 * @example
 * ```ts
 * import type { McpServeAuthRequest } from '@agent-core/kits/mcp'
 * const hasToken = (request: McpServeAuthRequest) => request.headers.authorization === 'Bearer s3cret'
 * ```
 */
export interface McpServeAuthRequest {
  /** The HTTP method (`POST`, `GET`, `DELETE`). */
  readonly method: string
  /** The HTTP request's headers. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The session the request belongs to; `undefined` for the request that opens one (`initialize`). */
  readonly sessionId: string | undefined
}

/**
 * Serve over streamable HTTP: one endpoint (`path`), one MCP session per client. Every request, before
 * any MCP method runs (`initialize` and `tools/list` included), passes the checks of the MCP
 * specification's security guidance, in this order: its `Host` is allowed (403 otherwise; by default
 * only `127.0.0.1`, `localhost` and `[::1]`, at the bound port), a browser's `Origin` is listed in
 * `allowedOrigins` (403 otherwise; none by default, so no web page can call the tools), `authenticate`
 * answers `true` (401 otherwise), the body is at most `maxBodyBytes` (413 at once on a larger declared
 * `Content-Length`, before reading it). At most `maxSessions` sessions are open (503 with `Retry-After`
 * past it); one without requests for `sessionIdleMs` and without an open event stream is closed.
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
  /**
   * `Host` header values accepted: `host:port`, or `host` for any port. Default: the loopback names
   * (`127.0.0.1`, `localhost`, `[::1]`) at the bound port (any port with `listen: false`). A server on
   * another address must list the names clients reach it by.
   */
  readonly allowedHosts?: readonly string[] | undefined
  /**
   * Origins (`https://app.example.com`) whose pages may call the endpoint. A request without `Origin` (a
   * program, not a browser) is not affected. Default: none.
   */
  readonly allowedOrigins?: readonly string[] | undefined
  /**
   * Decides whether a request may in, before any MCP method runs (every request of every session: a
   * session id alone is no credential). Answer `true` to admit it; anything else, or a throw, is a 401.
   * Default: everyone who passes the host and origin checks.
   */
  readonly authenticate?: ((request: McpServeAuthRequest) => MaybePromise<boolean>) | undefined
  /**
   * A session without requests for this long (and without an open event stream) is closed, in ms.
   * Default 300000 (five minutes).
   */
  readonly sessionIdleMs?: number | undefined
  /** Most sessions open at once; an `initialize` past it gets a 503. Default 64. */
  readonly maxSessions?: number | undefined
  /** Largest request body accepted (every POST, in a session or not), in bytes. Default 4194304 (4 MiB). */
  readonly maxBodyBytes?: number | undefined
}
