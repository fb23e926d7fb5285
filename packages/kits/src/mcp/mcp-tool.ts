import type { JsonSchema } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import type { JsonValue } from '@agent-core/kits/tools'
import type { McpToolAnnotations } from './connection-options.js'
import type { McpToolResult } from './mcp-content.js'
import type { McpLimitError, McpSchemaError } from './mcp-errors.js'

/**
 * Where an MCP tool comes from and how its server describes it.
 * @example
 * ```ts
 * import type { McpToolInfo } from '@agent-core/kits/mcp'
 * const origin = (info: McpToolInfo) => `tool "${info.name}" of MCP server "${info.server}"`
 * ```
 */
export interface McpToolInfo {
  /** The server's name, as the App gave it. */
  readonly server: string
  /** The server's own name of the tool (what `tools/call` sends). */
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly annotations?: McpToolAnnotations | undefined
  /** The server's input schema (also the model tool's `inputSchema`). */
  readonly inputSchema: JsonSchema
  /** The server's output schema: what `structuredContent` must match. */
  readonly outputSchema?: JsonSchema | undefined
}

/**
 * A tool of an MCP server as a core `ModelTool`: its id is namespaced by server, its `inputSchema` is the
 * server's (checked before every call), and it answers an {@link McpToolResult} (typed content parts, and
 * the `structuredContent` checked against the server's output schema when it declares one). `mcp` says
 * where it comes from. Calling it sends `tools/call`; the run's signal (and the tools lifecycle's time
 * limit) cancels it with MCP's cancellation notification.
 * @example
 * ```ts
 * import type { McpModelTool } from '@agent-core/kits/mcp'
 * const readOnly = (tools: readonly McpModelTool[]) => tools.filter((tool) => tool.mcp.annotations?.readOnlyHint)
 * ```
 */
export interface McpModelTool<
  Input = { readonly [key: string]: JsonValue },
  Structured = { readonly [key: string]: JsonValue },
> extends ModelTool<Input, McpToolResult<Structured>> {
  readonly mcp: McpToolInfo
}

/**
 * A tool the connection did not offer, and why: it needs task-based execution (not supported), or its
 * description was unusable and the connection was made with `invalidTools: 'skip'`.
 * @example
 * ```ts
 * import type { McpSkippedTool } from '@agent-core/kits/mcp'
 * const report = (skipped: readonly McpSkippedTool[]) => skipped.map((tool) => `${tool.name}: ${tool.reason}`)
 * ```
 */
export interface McpSkippedTool {
  readonly name: string
  readonly reason: string
  /** The error the tool would have raised with `invalidTools: 'throw'`. */
  readonly error?: McpSchemaError | McpLimitError | undefined
}

/**
 * What {@link McpConnection.refreshTools} did: the ids added, removed and changed, and the new set.
 * @example
 * ```ts
 * import type { McpToolsRefresh } from '@agent-core/kits/mcp'
 * const summary = (refresh: McpToolsRefresh) => `+${refresh.added.length} -${refresh.removed.length} ~${refresh.updated.length}`
 * ```
 */
export interface McpToolsRefresh {
  /** False when nothing differs (or no change was announced and `force` was not set). */
  readonly changed: boolean
  readonly added: readonly string[]
  readonly removed: readonly string[]
  /** Ids whose description, schemas or annotations changed (a new tool object replaces the old one). */
  readonly updated: readonly string[]
  readonly tools: readonly McpModelTool[]
}

/** Marks tools built by this kit (a `Symbol.for` key, so two loaded copies of the kit agree). */
export const MCP_TOOL_MARKER: unique symbol = Symbol.for('@agent-core/kits/mcp tool') as never

/**
 * True for a tool this kit made from an MCP server's tool.
 * @example
 * ```ts
 * import { isMcpModelTool } from '@agent-core/kits/mcp'
 * const servers = (tools: readonly object[]) => tools.flatMap((tool) => (isMcpModelTool(tool) ? [tool.mcp.server] : []))
 * ```
 */
export function isMcpModelTool(value: unknown): value is McpModelTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[MCP_TOOL_MARKER] === true
  )
}
