/**
 * MCP (Model Context Protocol) for agent-core, on the official `@modelcontextprotocol/sdk` (an optional
 * peer dependency that only this subpath loads).
 *
 * As a client, {@link connectMcpServer} reaches a server over stdio, streamable HTTP or legacy HTTP+SSE
 * and offers its tools as core `ModelTool`s (ids namespaced by server, the server's input schema checked
 * before each call, results as typed content parts with `structuredContent` checked against the declared
 * output schema). They run through the tools kit lifecycle like local tools (`connection.lifecycles()`),
 * so approvals, time limits and the run's signal apply, and a cancelled call sends MCP's cancellation.
 * The tool set changes only at a turn boundary ({@link McpConnection.refreshTools}); a
 * {@link createMcpToolset} joins several servers and local tools and refuses colliding ids, naming both
 * origins. A server's resources are read through an artifact resolver (`connection.resources`).
 *
 * As a server, {@link serveMcp} exposes a tools-kit registry over stdio or streamable HTTP, with the
 * lifecycle's authorization: a call that needs approval never runs unless it is approved.
 *
 * @example
 * ```ts
 * import { connectMcpServer } from '@agent-core/kits/mcp'
 * import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 *
 * const everything = await connectMcpServer({
 *   name: 'everything',
 *   transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 * })
 * const tools = ToolLifecycleRegistry.create(everything.lifecycles())
 * const outcome = await tools.run({ toolCallId: 'call_1', toolId: 'everything__echo', input: { message: 'hi' } }, {})
 * // outcome.status === 'completed'; outcome.message.content === 'Echo: hi'
 * await everything.close()
 * ```
 *
 * @module
 */
export { connectMcpServer } from './connect-mcp-server.js'
export type {
  McpClientLimits,
  McpConnectionOptions,
  McpCustomTransport,
  McpHttpTransport,
  McpSseTransport,
  McpStdioTransport,
  McpToolAnnotations,
  McpToolDescriptor,
  McpTransportOptions,
} from './connection-options.js'
export type {
  McpConnection,
  McpLifecycleHooks,
  McpRefreshOptions,
  McpToolInput,
} from './mcp-connection.js'
export {
  type McpAnnotations,
  type McpContent,
  type McpResourceContents,
  type McpToolResult,
  mcpResultTemplate,
  renderMcpResult,
} from './mcp-content.js'
export {
  McpConnectionError,
  type McpConnectionErrorDetails,
  type McpErrorDetails,
  McpLimitError,
  type McpLimitErrorDetails,
  McpProtocolError,
  type McpProtocolErrorDetails,
  McpSchemaError,
  type McpSchemaErrorDetails,
  McpToolError,
  type McpToolErrorDetails,
} from './mcp-errors.js'
export type { McpResource, McpResourceInfo } from './mcp-resource.js'
export {
  isMcpModelTool,
  type McpModelTool,
  type McpSkippedTool,
  type McpToolInfo,
  type McpToolsRefresh,
} from './mcp-tool.js'
export {
  createMcpToolset,
  type McpToolset,
  type McpToolsetOptions,
  type McpToolsetRefresh,
} from './mcp-toolset.js'
export {
  type McpHttpServerHandle,
  type McpServableTools,
  type McpServerHandle,
  serveMcp,
} from './serve-mcp.js'
export type {
  McpApprovalAnswer,
  McpServeAuthRequest,
  McpServeHttp,
  McpServeRequest,
  McpServeStdio,
  ServeMcpOptions,
} from './serve-options.js'
export { DEFAULT_TOOL_ID_SEPARATOR, mcpToolId } from './tool-id.js'
