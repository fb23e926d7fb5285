import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'
import type { McpContent } from './mcp-content.js'

/**
 * Details every MCP error carries: which server (the name the App gave it) and, where it applies, which
 * of its tools and which protocol method.
 * @example
 * ```ts
 * import type { McpErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpErrorDetails = { server: 'github', method: 'tools/call', tool: 'search_issues' }
 * ```
 */
export interface McpErrorDetails extends ErrorDetails {
  /** The server's name, as given to `connectMcpServer` (or to `serveMcp`). */
  readonly server: string
  /** The protocol method involved, e.g. `initialize`, `tools/list`, `tools/call`. */
  readonly method?: string | undefined
  /** The server's own name of the tool involved. */
  readonly tool?: string | undefined
  /** Our id of that tool (namespaced by server). */
  readonly toolId?: string | undefined
}

/**
 * Details of {@link McpConnectionError}: what the transport saw.
 * @example
 * ```ts
 * import type { McpConnectionErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpConnectionErrorDetails = { server: 'files', transport: 'stdio', exitCode: 1, stderr: 'EACCES' }
 * ```
 */
export interface McpConnectionErrorDetails extends McpErrorDetails {
  readonly transport: 'stdio' | 'http' | 'sse' | 'custom'
  /** The HTTP status of the failed exchange, when there was one. */
  readonly status?: number | undefined
  /** The exit code of a stdio server that ended. */
  readonly exitCode?: number | null | undefined
  /** The signal that ended a stdio server. */
  readonly exitSignal?: string | null | undefined
  /** The last lines the stdio server wrote to stderr (at most a few KB). */
  readonly stderr?: string | undefined
}

/**
 * The connection to an MCP server failed or is gone: the command could not be started, the process ended,
 * the HTTP endpoint refused or could not be reached, or the App closed the connection. Nothing was
 * answered; connect again (`connectMcpServer`) once the cause is fixed.
 * @example
 * ```ts
 * import { McpConnectionError } from '@agent-core/kits/mcp'
 * declare const error: unknown // a caught error
 * if (McpConnectionError.isInstance(error)) console.log(error.details.server, error.details.exitCode, error.details.stderr)
 * ```
 */
export class McpConnectionError extends AgentCoreError<McpConnectionErrorDetails> {
  static override readonly code = 'mcp-connection'
  declare readonly code: 'mcp-connection'
  constructor(message: string, options?: AgentCoreErrorOptions<McpConnectionErrorDetails>) {
    super('mcp-connection', message, options)
  }
}

/**
 * Details of {@link McpProtocolError}.
 * @example
 * ```ts
 * import type { McpProtocolErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpProtocolErrorDetails = { server: 'github', method: 'tools/list', rpcCode: -32601 }
 * ```
 */
export interface McpProtocolErrorDetails extends McpErrorDetails {
  /** The JSON-RPC error code the server answered with, when it answered with an error. */
  readonly rpcCode?: number | undefined
  /** Problems found in what the server sent, when it sent something malformed. */
  readonly problems?: readonly string[] | undefined
}

/**
 * An MCP server broke the protocol or answered a request with a JSON-RPC error: a result of the wrong
 * shape, a message that is not JSON-RPC, an unsupported protocol version, an unknown method. The server
 * (or its version) is at fault, not the model's input.
 * @example
 * ```ts
 * import { McpProtocolError } from '@agent-core/kits/mcp'
 * declare const error: unknown // a caught error
 * if (McpProtocolError.isInstance(error)) console.log(error.details.server, error.details.method, error.details.rpcCode)
 * ```
 */
export class McpProtocolError extends AgentCoreError<McpProtocolErrorDetails> {
  static override readonly code = 'mcp-protocol'
  declare readonly code: 'mcp-protocol'
  constructor(message: string, options?: AgentCoreErrorOptions<McpProtocolErrorDetails>) {
    super('mcp-protocol', message, options)
  }
}

/**
 * Details of {@link McpToolError}.
 * @example
 * ```ts
 * import type { McpToolErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpToolErrorDetails = { server: 'github', tool: 'search', toolId: 'github__search', content: [{ type: 'text', text: 'rate limited' }] }
 * ```
 */
export interface McpToolErrorDetails extends McpErrorDetails {
  readonly tool: string
  readonly toolId: string
  /** What the tool answered, as typed parts. */
  readonly content: readonly McpContent[]
}

/**
 * An MCP tool ran and reported a failure (`isError: true`). Through the tools lifecycle it is a failed call
 * whose message, the tool's own text, is what the model reads, so the model can correct itself.
 * @example
 * ```ts
 * import { McpToolError } from '@agent-core/kits/mcp'
 * declare const error: unknown // a caught error
 * if (McpToolError.isInstance(error)) console.log(error.details.toolId, error.details.content)
 * ```
 */
export class McpToolError extends AgentCoreError<McpToolErrorDetails> {
  static override readonly code = 'mcp-tool-error'
  declare readonly code: 'mcp-tool-error'
  constructor(message: string, options?: AgentCoreErrorOptions<McpToolErrorDetails>) {
    super('mcp-tool-error', message, options)
  }
}

/**
 * Details of {@link McpSchemaError}.
 * @example
 * ```ts
 * import type { McpSchemaErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpSchemaErrorDetails = { server: 'legacy', tool: 'lookup', field: 'inputSchema', received: 'the string "any"' }
 * ```
 */
export interface McpSchemaErrorDetails extends McpErrorDetails {
  /** The server's name of the tool whose description is unusable (a description of it when it has none). */
  readonly tool: string
  /** The field of the tool description that is wrong: `name`, `inputSchema`, `outputSchema`, ... */
  readonly field: string
  /** A description of the value that was refused. */
  readonly received?: string | undefined
  readonly problems?: readonly string[] | undefined
}

/**
 * A tool an MCP server lists cannot be offered to a model: its input schema (or output schema) is not a
 * JSON Schema of an object, or its description is malformed. Fix the server, or leave the tool out with
 * the connection's `filter` option (or `invalidTools: 'skip'`).
 * @example
 * ```ts
 * import { McpSchemaError } from '@agent-core/kits/mcp'
 * declare const error: unknown // a caught error
 * if (McpSchemaError.isInstance(error)) console.log(`${error.details.server}: tool ${error.details.tool}, ${error.details.field}`)
 * ```
 */
export class McpSchemaError extends AgentCoreError<McpSchemaErrorDetails> {
  static override readonly code = 'mcp-schema'
  declare readonly code: 'mcp-schema'
  constructor(message: string, options?: AgentCoreErrorOptions<McpSchemaErrorDetails>) {
    super('mcp-schema', message, options)
  }
}

/**
 * Details of {@link McpLimitError}: which bound of the connection was passed, and by how much.
 * @example
 * ```ts
 * import type { McpLimitErrorDetails } from '@agent-core/kits/mcp'
 * const details: McpLimitErrorDetails = { server: 'files', method: 'tools/call', limit: 'maxResultBytes', bound: 4_194_304, received: 'about 400000000 bytes' }
 * ```
 */
export interface McpLimitErrorDetails extends McpErrorDetails {
  /** The option of `limits` that was passed (`maxMessageBytes`, `maxSchemaBytes`, `maxSchemaDepth`, `maxResultBytes`). */
  readonly limit: 'maxMessageBytes' | 'maxSchemaBytes' | 'maxSchemaDepth' | 'maxResultBytes'
  /** The bound in force. */
  readonly bound: number
  /** What the server sent, described (a size or a depth, never the content). */
  readonly received?: string | undefined
}

/**
 * An MCP server sent more than the connection accepts (`limits` of the connection options): a message,
 * a tool schema or a tool result too large, a schema too deep. Nothing of it was kept; a tool call that
 * failed this way is an error result the model reads. The server is at fault (or the limit is too tight
 * for it: raise it in `limits`).
 * @example
 * ```ts
 * import { McpLimitError } from '@agent-core/kits/mcp'
 * declare const error: unknown // a caught error
 * if (McpLimitError.isInstance(error)) console.log(error.details.limit, error.details.bound)
 * ```
 */
export class McpLimitError extends AgentCoreError<McpLimitErrorDetails> {
  static override readonly code = 'mcp-limit'
  declare readonly code: 'mcp-limit'
  constructor(message: string, options?: AgentCoreErrorOptions<McpLimitErrorDetails>) {
    super('mcp-limit', message, options)
  }
}
