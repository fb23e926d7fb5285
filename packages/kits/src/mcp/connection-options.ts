import type { MaybePromise } from '@agent-core/core'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

/**
 * Start a local MCP server as a child process and speak JSON-RPC over its stdin and stdout.
 * @example
 * ```ts
 * import type { McpStdioTransport } from '@agent-core/kits/mcp'
 * const everything: McpStdioTransport = { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }
 * ```
 */
export interface McpStdioTransport {
  readonly type: 'stdio'
  /** The executable (a path, or a name found on PATH). No shell is involved. */
  readonly command: string
  readonly args?: readonly string[] | undefined
  /**
   * Environment variables for the server. By default the server inherits only a safe few of the host's
   * (HOME, LOGNAME, PATH, SHELL, TERM, USER, and their Windows counterparts), so secrets in the host's
   * environment do not leak into a third-party server; these are added on top.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Inherit the host's whole environment (under `env`). Default false. */
  readonly inheritEnv?: boolean | undefined
  /** The server's working directory. Default: the host's. */
  readonly cwd?: string | undefined
  /**
   * The server's stderr: `pipe` (default) keeps its last lines for error messages and reports each line as
   * a `mcp-server-stderr` diagnostic event; `inherit` passes it to the host's stderr; `ignore` drops it.
   */
  readonly stderr?: 'pipe' | 'inherit' | 'ignore' | undefined
}

/**
 * Connect to a remote MCP server over streamable HTTP (the current HTTP transport).
 * @example
 * ```ts
 * import type { McpHttpTransport } from '@agent-core/kits/mcp'
 * const remote: McpHttpTransport = { type: 'http', url: 'https://mcp.example.com/mcp', bearerToken: () => process.env.MCP_TOKEN ?? '' }
 * ```
 */
export interface McpHttpTransport {
  readonly type: 'http'
  readonly url: string | URL
  /** Headers sent with every request (they never replace the protocol's own headers). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Sent as `Authorization: Bearer <token>`; a function is asked before every request (token rotation). */
  readonly bearerToken?: string | (() => MaybePromise<string>) | undefined
  /** The fetch to use (a proxy agent, a test double, an instrumented client). Default: the global fetch. */
  readonly fetch?: ((url: string | URL, init?: RequestInit) => Promise<Response>) | undefined
}

/**
 * Connect to a remote MCP server over the legacy HTTP+SSE transport (protocol version 2024-11-05): an
 * event stream from a GET, messages posted to the endpoint the server names.
 * @example
 * ```ts
 * import type { McpSseTransport } from '@agent-core/kits/mcp'
 * const legacy: McpSseTransport = { type: 'sse', url: 'http://127.0.0.1:3001/sse', headers: { 'x-team': 'support' } }
 * ```
 */
export interface McpSseTransport extends Omit<McpHttpTransport, 'type'> {
  readonly type: 'sse'
}

/**
 * Use an SDK transport you built (`@modelcontextprotocol/sdk`'s `Transport`: WebSocket, in-memory, your
 * own). The connection starts and closes it.
 * @example
 * ```ts
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
 * import type { McpCustomTransport } from '@agent-core/kits/mcp'
 * const [clientSide] = InMemoryTransport.createLinkedPair()
 * const custom: McpCustomTransport = { type: 'custom', transport: clientSide }
 * ```
 */
export interface McpCustomTransport {
  readonly type: 'custom'
  readonly transport: Transport
}

/**
 * How to reach an MCP server.
 * @example
 * ```ts
 * import type { McpTransportOptions } from '@agent-core/kits/mcp'
 * const transport: McpTransportOptions = { type: 'stdio', command: 'node', args: ['server.js'], cwd: '/srv/tools' }
 * ```
 */
export type McpTransportOptions = McpStdioTransport | McpHttpTransport | McpSseTransport | McpCustomTransport

/**
 * A tool as the server describes it, before it becomes a model tool (what `filter` sees).
 * @example
 * ```ts
 * import type { McpToolDescriptor } from '@agent-core/kits/mcp'
 * const readOnly = (tool: McpToolDescriptor) => tool.annotations?.readOnlyHint === true
 * ```
 */
export interface McpToolDescriptor {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly annotations?: McpToolAnnotations | undefined
}

/**
 * Hints a server gives about a tool (untrusted: a server may say anything about itself).
 * @example
 * ```ts
 * import type { McpToolAnnotations } from '@agent-core/kits/mcp'
 * const needsPerson = (hints: McpToolAnnotations | undefined) => hints?.readOnlyHint !== true
 * ```
 */
export interface McpToolAnnotations {
  readonly title?: string | undefined
  readonly readOnlyHint?: boolean | undefined
  readonly destructiveHint?: boolean | undefined
  readonly idempotentHint?: boolean | undefined
  readonly openWorldHint?: boolean | undefined
}

/**
 * Everything `connectMcpServer` needs: the server's name (it prefixes its tool ids and names it in every
 * error), how to reach it, and how its tools are named, filtered and timed.
 * @example
 * ```ts
 * import type { McpConnectionOptions } from '@agent-core/kits/mcp'
 * const github: McpConnectionOptions = {
 *   name: 'github',
 *   transport: { type: 'http', url: 'https://api.example.com/mcp', bearerToken: 'ghp_example' },
 *   filter: (tool) => tool.annotations?.readOnlyHint === true,
 * }
 * ```
 */
export interface McpConnectionOptions {
  /** 1 to 32 letters, digits, `_` or `-`; the prefix of the server's tool ids (`github__search_issues`). */
  readonly name: string
  readonly transport: McpTransportOptions
  /** Between the server's name and the tool's name in tool ids. Default `__`. */
  readonly toolIdSeparator?: string | undefined
  /** Names the tools yourself (the answer must match core's `TOOL_ID_PATTERN`). Default {@link mcpToolId}. */
  readonly toolId?: ((tool: { readonly server: string; readonly name: string }) => string) | undefined
  /** Which of the server's tools to offer (synchronous). Tools left out are never validated. Default: all. */
  readonly filter?: ((tool: McpToolDescriptor) => boolean) | undefined
  /**
   * A tool whose description is unusable (its input schema is not JSON Schema, ...): `throw` (default)
   * refuses the listing with an `McpSchemaError` naming server and tool; `skip` leaves the tool out and
   * lists it in `connection.skippedTools`.
   */
  readonly invalidTools?: 'throw' | 'skip' | undefined
  /** Time limit of the handshake (`initialize`), in ms. Default 10000. */
  readonly connectTimeoutMs?: number | undefined
  /** Time limit of listing and reading requests, in ms. Default 30000. */
  readonly requestTimeoutMs?: number | undefined
  /**
   * Time limit of each tool call, in ms. Default 300000 (five minutes); the tools lifecycle's time limit
   * and the run's signal may end a call sooner (and send MCP's cancellation).
   */
  readonly callTimeoutMs?: number | undefined
  /** What the connection accepts from the server (a hostile server cannot exhaust the host). */
  readonly limits?: McpClientLimits | undefined
  /** How long closing waits for a stdio server to exit after closing its stdin, and again after SIGTERM. Default 2000. */
  readonly closeGraceMs?: number | undefined
  /** How this client introduces itself. Default `{ name: 'agent-core', version: '0.1.0' }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
}

/**
 * Bounds on what one connection accepts from its MCP server. Past a bound the server's message is not
 * kept: a tool listing fails with `McpLimitError` (or skips the tool with `invalidTools: "skip"`), a tool
 * call fails with `McpLimitError` (the model reads it as the call's error), a notification past the rate
 * is dropped (a `mcp-notification-dropped` diagnostic tells it, once a second). Server `pattern`s are
 * compiled with RE2 (linear time, no backtracking); a pattern RE2 cannot run (backreferences,
 * lookaround) makes the schema unusable.
 * @example
 * ```ts
 * import type { McpClientLimits } from '@agent-core/kits/mcp'
 * const tight: McpClientLimits = { maxResultBytes: 256 * 1024, maxSchemaBytes: 32 * 1024 }
 * ```
 */
export interface McpClientLimits {
  /**
   * Largest JSON-RPC message read from a streamable HTTP or SSE server (a response body, one event), in
   * bytes. Default 8388608 (8 MiB). Over stdio each line is bounded the same way.
   */
  readonly maxMessageBytes?: number | undefined
  /** Largest input or output schema of one tool (its JSON), in bytes. Default 262144 (256 KiB). */
  readonly maxSchemaBytes?: number | undefined
  /** Deepest nesting of objects and arrays in one tool schema. Default 32. */
  readonly maxSchemaDepth?: number | undefined
  /** Largest tool result (text, data and structured content), in bytes. Default 4194304 (4 MiB). */
  readonly maxResultBytes?: number | undefined
  /** Notifications and server requests accepted per second; the rest are dropped. Default 50. */
  readonly maxNotificationsPerSecond?: number | undefined
}

/** The fields of {@link McpConnectionOptions}, for checks that refuse unknown ones. */
export const CONNECTION_OPTION_KEYS: readonly string[] = [
  'name',
  'transport',
  'toolIdSeparator',
  'toolId',
  'filter',
  'invalidTools',
  'connectTimeoutMs',
  'requestTimeoutMs',
  'callTimeoutMs',
  'closeGraceMs',
  'clientInfo',
  'limits',
]
