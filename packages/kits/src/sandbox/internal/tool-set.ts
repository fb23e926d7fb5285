import { describeValue, InvalidDefinitionError, type OperationContext } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import {
  ApprovalRequiredError,
  defineToolLifecycle,
  type ToolCallView,
  type ToolLifecycle,
  ToolLifecycleRegistry,
} from '@agent-core/kits/tools'
import { isDeclarableName } from './schema-to-ts.js'

/** The tools of a sandbox, read once: the registry their calls go through and the names scripts use. */
export interface ToolSet {
  readonly registry: ToolLifecycleRegistry<unknown>
  readonly tools: readonly ModelTool<unknown, unknown, unknown>[]
  /** Ids that are also global function names in the sandbox. */
  readonly declarable: readonly string[]
  /** False for a registry given ready-made: its calls cannot be saved before they run. */
  readonly writeAhead: boolean
}

const sets = new WeakMap<object, ToolSet>()

/** The host-call signals of executions that save each call before it runs. */
export const writeAheadSignals = new WeakSet<AbortSignal>()
/** Invocation ids the write-ahead stage stopped (so the execution saves them, then runs them). */
export const savedBeforeRun = new Set<string>()

const WRITE_AHEAD_REASON =
  'Saved before it runs, so that a restart runs it again with the same invocation id.'

/**
 * The lifecycle with one more stage after its own `authorize`: in an execution that saves progress, a call
 * that is allowed to run stops as pending first, so the execution can save it with its invocation id.
 */
function withWriteAhead(
  lifecycle: ToolLifecycle<unknown, unknown, unknown>,
): ToolLifecycle<unknown, unknown, unknown> {
  const receiver = lifecycle.receiver ?? lifecycle
  const own = lifecycle.authorize
  const block: Record<string, unknown> = { id: lifecycle.id, tool: lifecycle.tool, receiver }
  if (lifecycle.timeoutMs !== undefined) block.timeoutMs = lifecycle.timeoutMs
  // Hooks are read as properties, so the methods of a class instance are kept.
  for (const hook of ['inspect', 'resume', 'complete', 'finalize', 'template'] as const) {
    if (lifecycle[hook] !== undefined) block[hook] = lifecycle[hook]
  }
  block.authorize = (call: ToolCallView, context: OperationContext<unknown>): unknown => {
    if (own !== undefined) {
      const returned = Reflect.apply(own, receiver, [call, context])
      if (returned !== undefined) return returned
    }
    if (writeAheadSignals.has(context.signal)) {
      savedBeforeRun.add(call.invocationId)
      throw new ApprovalRequiredError(WRITE_AHEAD_REASON)
    }
    return undefined
  }
  return Object.freeze(block) as unknown as ToolLifecycle<unknown, unknown, unknown>
}

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
    const set = toolSet(tools as ToolLifecycleRegistry<unknown>, false)
    if (tools.sealed) sets.set(tools, set)
    return set
  }
  if (!Array.isArray(tools)) {
    throw new InvalidDefinitionError(
      `${field} must be an array of tools (core ModelTools or tool lifecycles) or a ToolLifecycleRegistry, but got ${describeValue(tools)}.`,
      { details: { field, received: describeValue(tools) } },
    )
  }
  const lifecycles = tools.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) {
      throw new InvalidDefinitionError(
        `${field}[${index}] must be a core ModelTool or a tool lifecycle, but got ${describeValue(entry)}.`,
        { details: { field: `${field}[${index}]`, received: describeValue(entry) } },
      )
    }
    return withWriteAhead(
      isLifecycle(entry)
        ? (entry as ToolLifecycle<unknown, unknown, unknown>)
        : defineToolLifecycle(entry as ModelTool<unknown, unknown, unknown>),
    )
  })
  const registry = ToolLifecycleRegistry.create(
    lifecycles,
    hostCallTimeoutMs === undefined ? {} : { timeoutMs: hostCallTimeoutMs },
  )
  const set = toolSet(registry, true)
  sets.set(registry, set)
  return set
}

function toolSet(registry: ToolLifecycleRegistry<unknown>, writeAhead: boolean): ToolSet {
  const tools = registry.tools()
  return Object.freeze({
    registry,
    tools,
    declarable: Object.freeze(registry.ids().filter((id) => isDeclarableName(id) && id !== 'tools')),
    writeAhead,
  })
}
