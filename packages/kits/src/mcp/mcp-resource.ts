import type { McpResourceContents } from './mcp-content.js'

/**
 * A resource an MCP server lists, with the `artifactId` under which a model may cite it: a stable hash of
 * its URI, so a reference names a resource the server listed and never carries a URL of its own.
 * @example
 * ```ts
 * import type { McpResourceInfo } from '@agent-core/kits/mcp'
 * const catalogLine = (resource: McpResourceInfo) => `${resource.artifactId}: ${resource.title ?? resource.name}`
 * ```
 */
export interface McpResourceInfo {
  /** Cite it as `{ resolverId: <server name>, artifactId }`. */
  readonly artifactId: string
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  readonly size?: number | undefined
  /** The server's `lastModified` annotation, when it gives one: the revision a reference may pin. */
  readonly revision?: string | undefined
}

/**
 * A resource as read through the connection's artifact resolver: what was listed, and its contents.
 * @example
 * ```ts
 * import type { McpResource } from '@agent-core/kits/mcp'
 * const text = (resource: McpResource) => resource.contents.map((part) => ('text' in part ? part.text : '')).join('')
 * ```
 */
export interface McpResource extends McpResourceInfo {
  readonly contents: readonly McpResourceContents[]
}
