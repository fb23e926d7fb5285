import {
  assertNotThenable,
  describeValue,
  type FieldReaderContext,
  InvalidOutputError,
  type RegistryPolicy,
  refuseField,
} from '@agent-core/core'
import {
  type CompiledSchema,
  defineModelTool,
  type ModelTool,
  type ModelToolSchemas,
  modelToolSchemas,
  TOOL_ID_PATTERN,
} from '@agent-core/core/tools'
import type { ToolTemplateProvider } from '../tool-call-outcome.js'
import {
  LIFECYCLE_HOOKS,
  type ToolApprovalWait,
  type ToolHostWait,
  type ToolLifecycle,
} from '../tool-lifecycle.js'
import type { ToolLifecycleRegistryPolicy } from '../tool-lifecycle-registry.js'

type AnyLifecycle = ToolLifecycle<unknown, unknown, unknown>
type Hook = (this: unknown, ...args: never[]) => unknown
type HookName = (typeof LIFECYCLE_HOOKS)[number]

/** A lifecycle as read once at registration: fields checked, hooks and receiver fixed. */
export interface Entry {
  readonly id: string
  readonly tool: ModelTool<unknown, unknown, unknown>
  readonly receiver: unknown
  readonly timeoutMs: number | undefined
  /** The tool's input schema (JSON Schema or Standard Schema), as core compiled it. */
  readonly validator: CompiledSchema
  /** The tool's output schema, for results the host supplies (`awaitHost`); the tool's own are core's. */
  readonly outputValidator: ModelToolSchemas['output']
  readonly hooks: Partial<Record<HookName, Hook>>
}

const compiled = new WeakMap<object, Entry>()

const MAX_TIMEOUT_MS = 2_147_483_647

export function timeoutProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_TIMEOUT_MS)
    return `must be a safe integer from 1 to ${MAX_TIMEOUT_MS} (ms), but got ${describeValue(value)}`
  return undefined
}

export function compileLifecycle(definition: AnyLifecycle): Entry {
  const hit = compiled.get(definition)
  if (hit) return hit
  const { id, tool, receiver, timeoutMs } = definition
  const context = { prefix: `Tool lifecycle "${id}": `, details: { id } }
  if (typeof tool !== 'object' || tool === null)
    refuseField('definition', 'tool', 'must be a core ModelTool (defineModelTool)', tool, context)
  defineModelTool(tool)
  if (tool.id !== id)
    refuseField(
      'definition',
      'id',
      `must equal its tool's id "${tool.id}" (a call selects its lifecycle by the tool id)`,
      id,
      context,
    )
  if (
    receiver !== undefined &&
    (typeof receiver !== 'object' || receiver === null) &&
    typeof receiver !== 'function'
  )
    refuseField(
      'definition',
      'receiver',
      'must be an object (the `this` of the hooks) or be left out',
      receiver,
      context,
    )
  const timeout = timeoutProblem(timeoutMs)
  if (timeout !== undefined) refuseField('definition', 'timeoutMs', timeout, timeoutMs, context)
  const hooks: Partial<Record<HookName, Hook>> = {}
  for (const name of LIFECYCLE_HOOKS) {
    const hook = (definition as unknown as Record<string, unknown>)[name]
    if (hook === undefined) continue
    if (typeof hook !== 'function')
      refuseField('definition', name, 'must be a function or be left out', hook, context)
    hooks[name] = hook as Hook
  }
  const entry: Entry = {
    id,
    tool: tool as ModelTool<unknown, unknown, unknown>,
    receiver: receiver ?? definition,
    timeoutMs,
    validator: modelToolSchemas(tool).input,
    outputValidator: hooks.awaitHost === undefined ? undefined : modelToolSchemas(tool).output,
    hooks,
  }
  compiled.set(definition, entry)
  return entry
}

/** Names a registry policy's fields `policy.<field>` in messages, bare in `details.field`. */
export const POLICY: FieldReaderContext = Object.freeze({ prefix: 'policy.' })

export function readTemplates(value: unknown): readonly ToolTemplateProvider[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    refuseField(
      'definition',
      'templates',
      `must be an array of template providers, but got ${describeValue(value)}`,
      value,
      POLICY,
    )
  }
  value.forEach((provider: unknown, index) => {
    const ok =
      typeof provider === 'function' ||
      (typeof provider === 'object' &&
        provider !== null &&
        typeof (provider as { template?: unknown }).template === 'function')
    if (!ok) {
      refuseField(
        'definition',
        `templates[${index}]`,
        `must be a function or an object with a template method, but got ${describeValue(provider)}`,
        provider,
        POLICY,
      )
    }
  })
  return Object.freeze([...value])
}

export function composePolicy<App>(policy: ToolLifecycleRegistryPolicy<App>): RegistryPolicy<AnyLifecycle> {
  if (typeof policy !== 'object' || policy === null) {
    refuseField(
      'definition',
      'policy',
      `must be a tool lifecycle registry policy (an object), but got ${describeValue(policy)}`,
      policy,
    )
  }
  const own = policy.assertDefinition
  if (own !== undefined && typeof own !== 'function') {
    refuseField(
      'definition',
      'assertDefinition',
      `must be a function, but got ${describeValue(own)}`,
      own,
      POLICY,
    )
  }
  return {
    ...policy,
    kind: policy.kind ?? 'tool',
    idPattern: policy.idPattern ?? TOOL_ID_PATTERN,
    assertDefinition: (definition) => {
      compileLifecycle(definition)
      if (own) Reflect.apply(own, policy, [definition])
    },
  }
}

/** Calls a hook that must return nothing, on its receiver. */
export function callVoidHook(hook: Hook, receiver: unknown, args: readonly unknown[], name: string): void {
  const result = assertNotThenable(Reflect.apply(hook, receiver, args), name)
  if (result !== undefined) {
    throw new InvalidOutputError(
      `${name} must return nothing, but returned ${describeValue(result)}. Return nothing to let the call through and throw to stop it.`,
      { details: { hook: name, received: describeValue(result) } },
    )
  }
}

/** Calls `authorize`: nothing lets the call through, a {@link ToolApprovalWait} makes it wait. */
export function callAuthorize(
  hook: Hook,
  receiver: unknown,
  args: readonly unknown[],
  name: string,
): ToolApprovalWait | undefined {
  const result = assertNotThenable(Reflect.apply(hook, receiver, args), name)
  if (result === undefined) return undefined
  const { waitingFor, reason } = (typeof result === 'object' && result !== null ? result : {}) as {
    waitingFor?: unknown
    reason?: unknown
  }
  if (waitingFor !== 'approval' || typeof reason !== 'string' || reason.length === 0) {
    throw new InvalidOutputError(
      `${name} must return nothing or { waitingFor: 'approval', reason }, but returned ${describeValue(result)}. Return nothing to let the call through, the wait to ask for a decision, and throw to refuse.`,
      { details: { hook: name, received: describeValue(result) } },
    )
  }
  return { waitingFor, reason }
}

/** Calls `awaitHost`: what the call waits for instead of running the tool. */
export function callAwaitHost(
  hook: Hook,
  receiver: unknown,
  args: readonly unknown[],
  name: string,
): ToolHostWait {
  const result = assertNotThenable(Reflect.apply(hook, receiver, args), name)
  const { waitingFor, reason, question } = (typeof result === 'object' && result !== null ? result : {}) as {
    waitingFor?: unknown
    reason?: unknown
    question?: unknown
  }
  if (
    (waitingFor !== 'external' && waitingFor !== 'answer') ||
    typeof reason !== 'string' ||
    reason.length === 0 ||
    (question !== undefined && typeof question !== 'string')
  ) {
    throw new InvalidOutputError(
      `${name} must return { waitingFor: 'external' | 'answer', reason, question? }, but returned ${describeValue(result)}.`,
      { details: { hook: name, received: describeValue(result) } },
    )
  }
  return { waitingFor, reason, ...(question === undefined ? {} : { question: question as string }) }
}
