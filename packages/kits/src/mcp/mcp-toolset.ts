import {
  DuplicateIdError,
  describeValue,
  FieldReader,
  InvalidInputError,
  isAbortSignal,
} from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import {
  defineToolLifecycle,
  type ToolLifecycle,
  ToolLifecycleRegistry,
  type ToolLifecycleRegistryPolicy,
} from '@agent-core/kits/tools'
import type { McpConnection, McpLifecycleHooks } from './mcp-connection.js'
import { isMcpModelTool } from './mcp-tool.js'

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
type AnyLifecycle<App> = ToolLifecycle<any, any, App>
// biome-ignore lint/suspicious/noExplicitAny: as above
type AnyTool<App> = ModelTool<any, any, App>

/**
 * What {@link createMcpToolset} joins: MCP connections, local tools (core `ModelTool`s or tools-kit
 * lifecycles), and the hooks every MCP tool's lifecycle gets (approvals, checks).
 * @example
 * ```ts
 * import type { McpToolsetOptions } from '@agent-core/kits/mcp'
 * import type { ModelTool } from '@agent-core/core/tools'
 * import type { McpConnection } from '@agent-core/kits/mcp'
 * declare const clock: ModelTool
 * declare const files: McpConnection
 * declare const github: McpConnection
 * const options: McpToolsetOptions = { servers: [github, files], tools: [clock] }
 * ```
 */
export interface McpToolsetOptions<App = unknown> {
  readonly servers: readonly McpConnection[]
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  readonly tools?: readonly (ModelTool<any, any, App> | ToolLifecycle<any, any, App>)[] | undefined
  readonly hooks?: McpLifecycleHooks<App> | undefined
}

/**
 * What {@link McpToolset.refresh} did, per server: the ids added, removed and changed.
 * @example
 * ```ts
 * import type { McpToolsetRefresh } from '@agent-core/kits/mcp'
 * const changedServers = (refresh: McpToolsetRefresh) => refresh.servers.filter((server) => server.changed).map((server) => server.name)
 * ```
 */
export interface McpToolsetRefresh {
  readonly changed: boolean
  readonly servers: readonly {
    readonly name: string
    readonly changed: boolean
    readonly added: readonly string[]
    readonly removed: readonly string[]
    readonly updated: readonly string[]
  }[]
}

/**
 * The tools of several MCP servers and the App's own, as one set whose ids are distinct (a collision is
 * refused naming both origins). The set is a snapshot: it changes only in {@link McpToolset.refresh},
 * which an agent loop calls at a turn boundary.
 * @example
 * ```ts
 * import { createMcpToolset } from '@agent-core/kits/mcp'
 * import type { ModelTool } from '@agent-core/core/tools'
 * import type { McpConnection } from '@agent-core/kits/mcp'
 * declare const clock: ModelTool
 * declare const github: McpConnection
 * const toolset = createMcpToolset({ servers: [github], tools: [clock] })
 * const registry = toolset.registry({ timeoutMs: 30_000 })
 * // between turns:
 * if (toolset.toolsChanged) await toolset.refresh()
 * ```
 */
export interface McpToolset<App = unknown> {
  /** Every lifecycle of the set: local tools first, in the order given, then each server's tools. */
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  readonly lifecycles: readonly ToolLifecycle<any, any, App>[]
  /** The core tools of {@link McpToolset.lifecycles}, in the same order (what to offer a model). */
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  readonly tools: readonly ModelTool<any, any, App>[]
  /** True when one of the servers announced a change of its tools since the last refresh. */
  readonly toolsChanged: boolean
  /**
   * The turn boundary for every server: refreshes those that announced a change (all of them with
   * `force`), then replaces the set at once. If a refresh fails or the new tools collide, the set stays as
   * it was and the error is thrown (a collision is a `DuplicateIdError` naming both origins).
   */
  refresh(options?: {
    readonly force?: boolean | undefined
    readonly signal?: AbortSignal | undefined
  }): Promise<McpToolsetRefresh>
  /** A sealed tools-kit registry of the current set, with `policy` (time limits, templates, decision keys). */
  registry(policy?: ToolLifecycleRegistryPolicy<App>): ToolLifecycleRegistry<App>
}

function isLifecycle(value: unknown): value is AnyLifecycle<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'tool' in value &&
    typeof (value as { tool?: unknown }).tool === 'object'
  )
}

function originOf(tool: AnyTool<unknown>): string {
  return isMcpModelTool(tool)
    ? `tool "${tool.mcp.name}" of MCP server "${tool.mcp.server}"`
    : `the local tool "${tool.id}"`
}

/** Refuses two lifecycles with one id, naming where each comes from. */
function assertDistinct(lifecycles: readonly AnyLifecycle<unknown>[]): void {
  const seen = new Map<string, AnyTool<unknown>>()
  for (const lifecycle of lifecycles) {
    const earlier = seen.get(lifecycle.id)
    if (earlier !== undefined) {
      const first = originOf(earlier)
      const second = originOf(lifecycle.tool)
      throw new DuplicateIdError(
        `Two tools would have the id "${lifecycle.id}": ${first} and ${second}. Rename one: give the connection a toolId function or another toolIdSeparator, or rename the local tool.`,
        { details: { id: lifecycle.id, kind: 'tool', origins: [first, second] } },
      )
    }
    seen.set(lifecycle.id, lifecycle.tool)
  }
}

/**
 * Joins MCP connections and local tools into one {@link McpToolset}, refusing colliding ids with both
 * origins named (`tool "search" of MCP server "github"` and `the local tool "github__search"`).
 * @throws `InvalidInputError` for malformed options; `DuplicateIdError` for a collision
 * @example
 * ```ts
 * import { createMcpToolset } from '@agent-core/kits/mcp'
 * import { ApprovalRequiredError } from '@agent-core/kits/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * import type { McpConnection } from '@agent-core/kits/mcp'
 * declare const clock: ModelTool
 * declare const files: McpConnection
 * declare const github: McpConnection
 * const toolset = createMcpToolset({
 *   servers: [github, files],
 *   tools: [clock],
 *   hooks: (tool) => (tool.mcp.annotations?.readOnlyHint ? undefined : { authorize: () => { throw new ApprovalRequiredError('A person approves changes.') } }),
 * })
 * ```
 */
export function createMcpToolset<App = unknown>(options: McpToolsetOptions<App>): McpToolset<App> {
  const fields = new FieldReader(options, 'options', 'an object { servers, tools?, hooks? }')
  const servers = fields.get('servers') as McpToolsetOptions<App>['servers']
  if (!Array.isArray(servers)) fields.mustBe('servers', 'an array of MCP connections', servers)
  servers.forEach((server: unknown, index) => {
    const connection = server as Partial<McpConnection> | null
    if (
      typeof connection !== 'object' ||
      connection === null ||
      typeof connection.refreshTools !== 'function' ||
      typeof connection.lifecycles !== 'function'
    )
      fields.mustBe(`servers[${index}]`, 'a connection from connectMcpServer', server)
  })
  const given = fields.get('tools')
  const tools = (given === undefined ? [] : given) as NonNullable<McpToolsetOptions<App>['tools']>
  if (!Array.isArray(tools)) fields.mustBe('tools', 'an array of tools or tool lifecycles', tools)
  const hooks = fields.get('hooks') as McpToolsetOptions<App>['hooks']
  const local: AnyLifecycle<App>[] = tools.map((entry: unknown, index) => {
    if (isLifecycle(entry)) return entry as AnyLifecycle<App>
    if (typeof entry !== 'object' || entry === null)
      fields.mustBe(`tools[${index}]`, 'a core ModelTool or a tool lifecycle', entry)
    return defineToolLifecycle(entry as AnyTool<App>) as AnyLifecycle<App>
  })
  const build = () => {
    const all = [
      ...local,
      ...servers.flatMap((server) => server.lifecycles(hooks) as readonly AnyLifecycle<App>[]),
    ]
    assertDistinct(all)
    return Object.freeze(all)
  }
  let lifecycles = build()
  let refreshing: Promise<McpToolsetRefresh> | undefined
  return Object.freeze({
    get lifecycles() {
      return lifecycles
    },
    get tools() {
      return Object.freeze(lifecycles.map((lifecycle) => lifecycle.tool))
    },
    get toolsChanged() {
      return servers.some((server) => server.toolsChanged)
    },
    refresh(
      refreshOptions: {
        readonly force?: boolean | undefined
        readonly signal?: AbortSignal | undefined
      } = {},
    ) {
      const force = refreshOptions?.force
      const signal = refreshOptions?.signal
      if (
        typeof refreshOptions !== 'object' ||
        refreshOptions === null ||
        (force !== undefined && typeof force !== 'boolean') ||
        (signal !== undefined && !isAbortSignal(signal))
      ) {
        return Promise.reject(
          new InvalidInputError(
            `options must be { force?: boolean, signal?: AbortSignal }, but got ${describeValue(refreshOptions)}.`,
            {
              details: { field: 'options', received: describeValue(refreshOptions) },
            },
          ),
        )
      }
      refreshing ??= (async () => {
        const results = await Promise.all(servers.map((server) => server.refreshTools({ force, signal })))
        const next = build()
        lifecycles = next
        return Object.freeze({
          changed: results.some((result) => result.changed),
          servers: Object.freeze(
            results.map((result, index) =>
              Object.freeze({
                name: servers[index]!.name,
                changed: result.changed,
                added: result.added,
                removed: result.removed,
                updated: result.updated,
              }),
            ),
          ),
        })
      })().finally(() => {
        refreshing = undefined
      })
      return refreshing
    },
    registry(policy: ToolLifecycleRegistryPolicy<App> = {}) {
      return ToolLifecycleRegistry.create<App>(lifecycles as readonly AnyLifecycle<App>[] as never, policy)
    },
  })
}
