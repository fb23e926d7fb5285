import { describeValue, refuseField } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import { defineToolLifecycle, type ToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { isDeclarableName } from './schema-to-ts.js'

/** The tools of a sandbox, read once: the registry their calls go through and the names scripts use. */
export interface ToolSet {
  readonly registry: ToolLifecycleRegistry<unknown>
  readonly tools: readonly ModelTool<unknown, unknown, unknown>[]
  /** Ids that are also global function names in the sandbox. */
  readonly declarable: readonly string[]
}

const sets = new WeakMap<object, ToolSet>()

function isLifecycle(value: object): value is ToolLifecycle<unknown, unknown, unknown> {
  const tool = (value as { tool?: unknown }).tool
  return typeof tool === 'object' && tool !== null
}

/**
 * Reads the tools given to a sandbox: a `tools` kit registry as it is, or a list of core `ModelTool`s and
 * tool lifecycles, registered in a new registry (`hostCallTimeoutMs` as its time limit).
 */
export function readToolSet(tools: unknown, field: string, hostCallTimeoutMs: number | undefined): ToolSet {
  if (tools instanceof ToolLifecycleRegistry) {
    const cached = sets.get(tools)
    if (cached) return cached
    const set = toolSet(tools as ToolLifecycleRegistry<unknown>)
    if (tools.sealed) sets.set(tools, set)
    return set
  }
  if (!Array.isArray(tools)) {
    refuseField(
      'definition',
      field,
      `must be an array of tools (core ModelTools or tool lifecycles) or a ToolLifecycleRegistry, but got ${describeValue(tools)}`,
      tools,
    )
  }
  const lifecycles = tools.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) {
      refuseField(
        'definition',
        `${field}[${index}]`,
        `must be a core ModelTool or a tool lifecycle, but got ${describeValue(entry)}`,
        entry,
      )
    }
    return isLifecycle(entry)
      ? (entry as ToolLifecycle<unknown, unknown, unknown>)
      : defineToolLifecycle(entry as ModelTool<unknown, unknown, unknown>)
  })
  const registry = ToolLifecycleRegistry.create(
    lifecycles,
    hostCallTimeoutMs === undefined ? {} : { timeoutMs: hostCallTimeoutMs },
  )
  const set = toolSet(registry)
  sets.set(registry, set)
  return set
}

function toolSet(registry: ToolLifecycleRegistry<unknown>): ToolSet {
  const tools = registry.tools()
  return Object.freeze({
    registry,
    tools,
    declarable: Object.freeze(registry.ids().filter((id) => isDeclarableName(id) && id !== 'tools')),
  })
}
