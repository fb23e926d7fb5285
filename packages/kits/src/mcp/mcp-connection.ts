import {
  createOperationContext,
  describeValue,
  InvalidInputError,
  isAbortSignal,
  type OperationContext,
  type OperationContextInit,
  refuseField,
  UnknownIdError,
} from '@agent-core/core'
import type { ArtifactReference, ArtifactResolver } from '@agent-core/kits/artifacts'
import {
  defineToolLifecycle,
  type JsonValue,
  type ToolLifecycle,
  type ToolLifecycleHooks,
} from '@agent-core/kits/tools'
import type { ParsedConnectionOptions } from './internal/options.js'
import type { ResourceIndex } from './internal/resources.js'
import type { Session } from './internal/session.js'
import { type ListedTool, listTools, type ToolListing } from './internal/tools.js'
import { type McpToolResult, mcpResultTemplate } from './mcp-content.js'
import type { McpResource, McpResourceInfo } from './mcp-resource.js'
import type { McpModelTool, McpSkippedTool, McpToolsRefresh } from './mcp-tool.js'

/**
 * The input every MCP tool takes: the JSON object its input schema describes.
 * @example
 * ```ts
 * import type { McpToolInput } from '@agent-core/kits/mcp'
 * const input: McpToolInput = { query: 'open issues', limit: 5 }
 * ```
 */
export type McpToolInput = { readonly [key: string]: JsonValue }

/**
 * Hooks of the tools kit for the lifecycles of a connection's tools: the same hooks for every tool, or a
 * function of the tool (return `undefined` for none). Without a `template` of their own, the lifecycles
 * render MCP results with {@link mcpResultTemplate}.
 * @example
 * ```ts
 * import type { McpLifecycleHooks } from '@agent-core/kits/mcp'
 * import { ApprovalRequiredError } from '@agent-core/kits/tools'
 * const writesNeedAPerson: McpLifecycleHooks = (tool) =>
 *   tool.mcp.annotations?.readOnlyHint
 *     ? undefined
 *     : { authorize: () => { throw new ApprovalRequiredError(`${tool.id} changes things; a person approves it.`) } }
 * ```
 */
export type McpLifecycleHooks<App = unknown> =
  | ToolLifecycleHooks<McpToolInput, McpToolResult, App>
  | ((tool: McpModelTool) => ToolLifecycleHooks<McpToolInput, McpToolResult, App> | undefined)

/**
 * Options of {@link McpConnection.refreshTools}.
 * @example
 * ```ts
 * import type { McpRefreshOptions } from '@agent-core/kits/mcp'
 * const options: McpRefreshOptions = { force: true, signal: AbortSignal.timeout(5_000) }
 * ```
 */
export interface McpRefreshOptions {
  /** List again even when the server announced no change. Default false. */
  readonly force?: boolean | undefined
  readonly signal?: AbortSignal | undefined
}

/**
 * A live connection to one MCP server (from `connectMcpServer`). Its tools are core `ModelTool`s; the set
 * is a snapshot that changes only when you call {@link McpConnection.refreshTools}, so a turn of an agent
 * never sees tools appear or vanish in its middle. Close it when done: a stdio server's process (group)
 * ends with it, and also when the host exits or is killed by SIGINT/SIGTERM.
 * @example
 * ```ts
 * import { connectMcpServer } from '@agent-core/kits/mcp'
 * const files = await connectMcpServer({ name: 'files', transport: { type: 'stdio', command: 'node', args: ['files-server.js'] } })
 * try {
 *   console.log(files.tools.map((tool) => tool.id))
 * } finally {
 *   await files.close()
 * }
 * ```
 */
export interface McpConnection<Name extends string = string> {
  /** The server's name, as given (the prefix of its tool ids and the artifact resolver's id). */
  readonly name: Name
  /** How the server introduced itself in the handshake. */
  readonly serverInfo: {
    readonly name: string
    readonly version: string
    readonly title?: string | undefined
  }
  /** The server's instructions for the model, if it gave any. */
  readonly instructions: string | undefined
  /** The current tool set (a frozen snapshot; see {@link McpConnection.refreshTools}). */
  readonly tools: readonly McpModelTool[]
  /** Tools the server lists that are not offered, and why. */
  readonly skippedTools: readonly McpSkippedTool[]
  /** True when the server announced a change of its tools since the snapshot was taken. */
  readonly toolsChanged: boolean
  /** True once the connection is closed (by `close`, or because the server went away). */
  readonly closed: boolean
  /**
   * The connection's resources as an artifact resolver (its `id` is the server's name): register it in
   * an artifact catalog, and `{ resolverId, artifactId }` references read the resource the server listed
   * under that id (see {@link McpConnection.listResources}).
   */
  readonly resources: ArtifactResolver<McpResource, unknown, Name>
  /**
   * The tool with this id.
   * @throws `UnknownIdError` listing the known ids
   */
  tool(id: string): McpModelTool
  /**
   * One tools-kit lifecycle per tool, with `hooks` (approvals, checks) and a template that renders MCP
   * results for the model. Register them in a `ToolLifecycleRegistry` or hand them to an agent.
   */
  lifecycles<App = unknown>(
    hooks?: McpLifecycleHooks<App>,
  ): readonly ToolLifecycle<McpToolInput, McpToolResult, App>[]
  /**
   * Calls `listener` when the server announces that its tools changed. Nothing changes until
   * {@link McpConnection.refreshTools} is called. Returns a function that removes the listener.
   */
  onToolsChanged(listener: (connection: McpConnection) => void): () => void
  /**
   * The turn boundary: when the server announced a change (or with `force`), lists its tools again and
   * replaces the snapshot at once. Call it between turns, never while tools of the current turn run;
   * calls already made finish against the tools they started with. Tools whose description did not change
   * keep their objects. Concurrent calls share one listing. On failure the snapshot stays as it was.
   */
  refreshTools(options?: McpRefreshOptions): Promise<McpToolsRefresh>
  /** Lists the server's resources (all pages), each with the artifact id a model may cite. */
  listResources(context?: OperationContextInit): Promise<readonly McpResourceInfo[]>
  /** Closes the connection: ends a streamable HTTP session, and stops a stdio server (stdin, SIGTERM, SIGKILL). */
  close(): Promise<void>
}

/** The implementation behind {@link McpConnection}; built by `connectMcpServer`. */
export class Connection<Name extends string = string> implements McpConnection<Name> {
  readonly #session: Session
  readonly #options: ParsedConnectionOptions
  readonly #resources: ResourceIndex
  readonly #terminate: (() => Promise<void>) | undefined
  readonly #listeners = new Set<(connection: McpConnection) => void>()
  #listing: ToolListing
  #tools: readonly McpModelTool[]
  #announced = 0
  #listed = 0
  #refreshing: Promise<McpToolsRefresh> | undefined
  readonly resources: ArtifactResolver<McpResource, unknown, Name>

  constructor(
    session: Session,
    options: ParsedConnectionOptions,
    listing: ToolListing,
    resources: ResourceIndex,
    terminate: (() => Promise<void>) | undefined,
  ) {
    this.#session = session
    this.#options = options
    this.#listing = listing
    this.#tools = toolsOf(listing)
    this.#resources = resources
    this.#terminate = terminate
    this.resources = Object.freeze({
      id: options.name as Name,
      resolve: async (reference: ArtifactReference, context: OperationContext) => {
        const artifactId =
          typeof reference === 'object' && reference !== null
            ? (reference as { artifactId?: unknown }).artifactId
            : undefined
        if (typeof artifactId !== 'string' || artifactId === '') {
          refuseField(
            'input',
            'reference.artifactId',
            `must be a non-empty string (an artifact reference is { resolverId, artifactId, revision? }), but the reference is ${describeValue(reference)}`,
            artifactId,
          )
        }
        return resources.resolve(reference, createOperationContext(context as OperationContextInit))
      },
    })
  }

  get name(): Name {
    return this.#session.server as Name
  }

  get serverInfo(): McpConnection['serverInfo'] {
    const info = this.#session.client.getServerVersion()
    return Object.freeze({
      name: info?.name ?? '',
      version: info?.version ?? '',
      ...(info?.title === undefined ? {} : { title: info.title }),
    })
  }

  get instructions(): string | undefined {
    return this.#session.client.getInstructions()
  }

  get tools(): readonly McpModelTool[] {
    return this.#tools
  }

  get skippedTools(): readonly McpSkippedTool[] {
    return this.#listing.skipped
  }

  get toolsChanged(): boolean {
    return this.#announced !== this.#listed
  }

  get closed(): boolean {
    return this.#session.closed
  }

  tool(id: string): McpModelTool {
    const found = typeof id === 'string' ? this.#listing.tools.get(id) : undefined
    if (found === undefined) {
      const known = [...this.#listing.tools.keys()]
      throw new UnknownIdError(
        `MCP server "${this.name}" offers no tool with id ${describeValue(id)}. Known tools: ${known.length ? known.join(', ') : '(none)'}.`,
        { details: { id: typeof id === 'string' ? id : describeValue(id), kind: 'tool', known } },
      )
    }
    return found.tool
  }

  lifecycles<App = unknown>(
    hooks?: McpLifecycleHooks<App>,
  ): readonly ToolLifecycle<McpToolInput, McpToolResult, App>[] {
    if (hooks !== undefined && typeof hooks !== 'function' && (typeof hooks !== 'object' || hooks === null)) {
      refuseField(
        'input',
        'hooks',
        `must be lifecycle hooks (an object) or a function of the tool that returns them, but got ${describeValue(hooks)}`,
        hooks,
      )
    }
    return Object.freeze(
      this.#tools.map((tool) => {
        const own = typeof hooks === 'function' ? hooks(tool) : hooks
        const block = defineToolLifecycle(
          tool as McpModelTool<McpToolInput> as never,
          (own ?? {}) as ToolLifecycleHooks<McpToolInput, McpToolResult, App>,
        ) as ToolLifecycle<McpToolInput, McpToolResult, App>
        return block.template === undefined ? Object.freeze({ ...block, template: mcpResultTemplate }) : block
      }),
    )
  }

  onToolsChanged(listener: (connection: McpConnection) => void): () => void {
    if (typeof listener !== 'function') {
      refuseField('input', 'listener', `must be a function, but got ${describeValue(listener)}`, listener)
    }
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** The server sent `notifications/tools/list_changed`. */
  announceToolsChanged(): void {
    this.#announced += 1
    this.#session.diagnostics.emit('mcp-tools-changed', { server: this.name })
    for (const listener of this.#listeners) {
      try {
        listener(this)
      } catch (error) {
        this.#session.diagnostics.emit(
          'mcp-listener-fail',
          { server: this.name, error: error instanceof Error ? error.message : String(error) },
          'error',
        )
      }
    }
  }

  refreshTools(options: McpRefreshOptions = {}): Promise<McpToolsRefresh> {
    if (typeof options !== 'object' || options === null) {
      return Promise.reject(
        new InvalidInputError(
          `options must be an object { force?, signal? }, but got ${describeValue(options)}.`,
          {
            details: { field: 'options', received: describeValue(options) },
          },
        ),
      )
    }
    const { force, signal } = options
    if (
      (force !== undefined && typeof force !== 'boolean') ||
      (signal !== undefined && !isAbortSignal(signal))
    ) {
      const field = force !== undefined && typeof force !== 'boolean' ? 'force' : 'signal'
      const value = field === 'force' ? force : signal
      return Promise.reject(
        new InvalidInputError(
          `options.${field} must be ${field === 'force' ? 'a boolean' : 'an AbortSignal'}, but got ${describeValue(value)}.`,
          {
            details: { field: `options.${field}`, received: describeValue(value) },
          },
        ),
      )
    }
    if (this.#refreshing) return this.#refreshing
    if (!force && !this.toolsChanged) {
      return Promise.resolve(
        Object.freeze({ changed: false, added: [], removed: [], updated: [], tools: this.#tools }),
      )
    }
    const announced = this.#announced
    this.#refreshing = this.#refresh(announced, signal).finally(() => {
      this.#refreshing = undefined
    })
    return this.#refreshing
  }

  async #refresh(announced: number, signal: AbortSignal | undefined): Promise<McpToolsRefresh> {
    const before = this.#listing.tools
    const listing = await listTools(this.#session, this.#options, before, signal)
    const added: string[] = []
    const updated: string[] = []
    for (const [id, listed] of listing.tools) {
      const old: ListedTool | undefined = before.get(id)
      if (old === undefined) added.push(id)
      else if (old !== listed) updated.push(id)
    }
    const removed = [...before.keys()].filter((id) => !listing.tools.has(id))
    this.#listing = listing
    this.#tools = toolsOf(listing)
    this.#listed = announced
    const changed = added.length + removed.length + updated.length > 0
    this.#session.diagnostics.emit('mcp-tools-refreshed', { server: this.name, added, removed, updated })
    return Object.freeze({
      changed,
      added: Object.freeze(added),
      removed: Object.freeze(removed),
      updated: Object.freeze(updated),
      tools: this.#tools,
    })
  }

  listResources(context: OperationContextInit = {}): Promise<readonly McpResourceInfo[]> {
    try {
      return this.#resources.list(createOperationContext(context).signal)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  close(): Promise<void> {
    const session = this.#session
    session.closing ??= (async () => {
      try {
        if (this.#terminate && !session.closed) {
          // Ends the server-side session; a server that is gone or slow does not hold up closing.
          await Promise.race([
            this.#terminate().catch(() => undefined),
            new Promise((resolve) => setTimeout(resolve, this.#options.closeGraceMs).unref?.()),
          ])
        }
      } finally {
        session.closed = true
        await session.client.close().catch(() => undefined)
      }
    })()
    return session.closing
  }
}

function toolsOf(listing: ToolListing): readonly McpModelTool[] {
  return Object.freeze([...listing.tools.values()].map((listed) => listed.tool))
}
