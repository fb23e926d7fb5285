import {
  describeValue,
  Registry,
  type RegistryPolicy,
  RegistryView,
  refuseField,
  UnknownIdError,
} from '@agent-core/core'
import { defineModelTool, TOOL_ID_PATTERN } from '@agent-core/core/tools'
import type { IntentTool, ScopePolicy, TargetPolicy } from './intent-tool.js'
import { type IdSource, isIdSource, POLICY, quoteIds, readIdList } from './internal/id-list.js'

/**
 * How an {@link IntentRegistry} checks its intents: core's registry policy (`kind`, default `"intent"`;
 * `idPattern`, default core's `TOOL_ID_PATTERN`; `assertDefinition`; `errors`) plus the tools delegates
 * must name.
 * @example
 * ```ts
 * import type { IntentRegistryPolicy } from '@agent-core/kits/domains'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const toolRegistry: ToolLifecycleRegistry
 * const policy: IntentRegistryPolicy = { tools: toolRegistry }
 * ```
 */
export interface IntentRegistryPolicy extends RegistryPolicy<IntentTool<unknown, unknown, unknown, unknown>> {
  /**
   * The registry of tools (any object with `has(id)` and `ids()`, such as a `ToolLifecycleRegistry`)
   * that `asIntent.delegates` must name. Without it, delegates are checked when the catalog is built.
   */
  readonly tools?: IdSource | undefined
}

/**
 * What a registered intent's `asIntent` block holds, as read and checked at registration
 * ({@link IntentRegistry.policiesOf}).
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineIntentTool, type IntentPolicies, IntentRegistry } from '@agent-core/kits/domains'
 *
 * const refund = defineIntentTool(
 *   defineModelTool({ id: 'refund_order', description: 'Refunds an order', inputSchema: { type: 'object' }, execute: () => 'refunded' }),
 *   { scopePolicy: 'required', targetPolicy: 'none', constraints: { maxTurns: 6 } },
 * )
 * const intents = IntentRegistry.create([refund])
 * const policies: IntentPolicies = intents.policiesOf('refund_order')
 * policies.scopePolicy // 'required'
 * policies.delegates // undefined: the catalog derives them from the scope's tools
 * ```
 */
export interface IntentPolicies<Constraints = unknown> {
  readonly scopePolicy: ScopePolicy
  readonly targetPolicy: TargetPolicy
  /** The declared delegates as a list, or `undefined` when the catalog derives them. */
  readonly delegates: readonly string[] | undefined
  readonly constraints: Constraints | undefined
}

const SCOPE_POLICIES: readonly ScopePolicy[] = ['required', 'optional', 'none']
const TARGET_POLICIES: readonly TargetPolicy[] = ['none', 'query-scopes', 'all-scopes']
const AS_INTENT_FIELDS = new Set(['scopePolicy', 'targetPolicy', 'delegates', 'constraints'])

const read = new WeakMap<object, IntentPolicies>()

/** Checks an intent's `asIntent` block and returns it as read (once per definition). */
export function intentPolicies(
  intent: IntentTool<unknown, unknown, unknown, unknown>,
  tools?: IdSource,
): IntentPolicies {
  const hit = read.get(intent)
  if (hit && !tools) return hit
  const id = intent.id
  const owner = `Intent "${id}"`
  const context = { prefix: `${owner}: `, details: { id } }
  defineModelTool(intent)
  const asIntent = intent.asIntent as unknown
  if (typeof asIntent !== 'object' || asIntent === null)
    refuseField(
      'definition',
      'asIntent',
      'must be an object { scopePolicy, targetPolicy, delegates?, constraints? }',
      asIntent,
      context,
    )
  for (const key of Object.keys(asIntent as object)) {
    if (!AS_INTENT_FIELDS.has(key))
      refuseField(
        'definition',
        `asIntent.${key}`,
        `is not a field of an intent (known: ${[...AS_INTENT_FIELDS].join(', ')})`,
        undefined,
        context,
      )
  }
  const { scopePolicy, targetPolicy, delegates, constraints } = asIntent as IntentTool['asIntent']
  if (!SCOPE_POLICIES.includes(scopePolicy))
    refuseField(
      'definition',
      'asIntent.scopePolicy',
      `must be one of ${SCOPE_POLICIES.map((p) => `"${p}"`).join(', ')}`,
      scopePolicy,
      context,
    )
  if (!TARGET_POLICIES.includes(targetPolicy))
    refuseField(
      'definition',
      'asIntent.targetPolicy',
      `must be one of ${TARGET_POLICIES.map((p) => `"${p}"`).join(', ')}`,
      targetPolicy,
      context,
    )
  let list: readonly string[] | undefined
  if (delegates !== undefined) {
    list = readIdList(delegates, owner, 'asIntent.delegates')
    if (list.includes(id))
      refuseField(
        'definition',
        'asIntent.delegates',
        `names the intent itself; a goal is always allowed its own tool`,
        id,
        context,
      )
    if (tools) {
      for (const delegate of list) {
        if (!tools.has(delegate)) {
          throw new UnknownIdError(
            `${owner}: asIntent.delegates names "${delegate}", but no tool has that id. Known tools: ${quoteIds(tools.ids())}.`,
            {
              details: {
                id: delegate,
                kind: 'tool',
                known: tools.ids(),
                intentId: id,
                field: 'asIntent.delegates',
              },
            },
          )
        }
      }
    }
  }
  const policies: IntentPolicies = Object.freeze({ scopePolicy, targetPolicy, delegates: list, constraints })
  read.set(intent, policies)
  return policies
}

/**
 * The registry of intents: core tools that are goals a task can pursue, each with its scope policy, target
 * policy, optional delegates and task constraints. The intent's id is its tool's id; there is no other
 * intent entity. It follows the core registry contract: `IntentRegistry.create(definitions, policy)`
 * builds and seals at once, `new IntentRegistry(policy).registerAll(definitions).seal()` in stages; both
 * run core's checks (sealed, shape, id pattern, duplicate), then the intent's.
 *
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineIntentTool, IntentRegistry } from '@agent-core/kits/domains'
 * const refundTool = defineModelTool<{ orderId: string }, string>({
 *   id: 'refund_order', description: 'Refunds an order',
 *   inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
 *   execute: ({ orderId }) => `refunded ${orderId}`,
 * })
 * const intents = IntentRegistry.create([
 *   defineIntentTool(refundTool, { scopePolicy: 'required', targetPolicy: 'none' }),
 * ])
 * intents.ids() // ['refund_order']
 * ```
 */
export class IntentRegistry<Constraints = unknown> extends RegistryView<
  IntentTool<unknown, unknown, unknown, Constraints>
> {
  readonly #registry: Registry<IntentTool<unknown, unknown, unknown, Constraints>>

  readonly #tools: IdSource | undefined

  /**
   * An empty, unsealed registry.
   * @throws `InvalidDefinitionError` for a malformed policy
   */
  constructor(policy: IntentRegistryPolicy = {}) {
    if (typeof policy !== 'object' || policy === null) {
      refuseField(
        'definition',
        'policy',
        `must be an intent registry policy (an object), but got ${describeValue(policy)}`,
        policy,
      )
    }
    const { tools, assertDefinition } = policy
    if (tools !== undefined && !isIdSource(tools)) {
      refuseField(
        'definition',
        'tools',
        `must be a registry with has(id) and ids() (a ToolLifecycleRegistry, a core Registry of tools), but got ${describeValue(tools)}`,
        tools,
        POLICY,
      )
    }
    if (assertDefinition !== undefined && typeof assertDefinition !== 'function') {
      refuseField(
        'definition',
        'assertDefinition',
        `must be a function, but got ${describeValue(assertDefinition)}`,
        assertDefinition,
        POLICY,
      )
    }
    const registry = new Registry<IntentTool<unknown, unknown, unknown, Constraints>>({
      ...policy,
      kind: policy.kind ?? 'intent',
      idPattern: policy.idPattern ?? TOOL_ID_PATTERN,
      assertDefinition: (definition) => {
        intentPolicies(definition, tools)
        if (assertDefinition) Reflect.apply(assertDefinition, policy, [definition])
      },
    })
    super(registry)
    this.#registry = registry
    this.#tools = tools
  }

  /**
   * Builds, fills and seals an intent registry in one step.
   * @example
   * ```ts
   * import { IntentRegistry } from '@agent-core/kits/domains'
   * import type { IntentTool } from '@agent-core/kits/domains'
   * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
   * declare const refundIntent: IntentTool
   * declare const tools: ToolLifecycleRegistry
   * declare const trackIntent: IntentTool
   * const intents = IntentRegistry.create([refundIntent, trackIntent], { tools })
   * ```
   */
  static create<Constraints = unknown>(
    definitions: Iterable<IntentTool<unknown, unknown, unknown, Constraints>>,
    policy: IntentRegistryPolicy = {},
  ): IntentRegistry<Constraints> {
    return new IntentRegistry<Constraints>(policy).registerAll(definitions).seal()
  }

  /** True after `seal()`. */
  get sealed(): boolean {
    return this.#registry.sealed
  }

  /** Registers one intent (see `registerAll`). */
  register(definition: IntentTool<unknown, unknown, unknown, Constraints>): this {
    return this.registerAll([definition])
  }

  /** Registers definitions atomically, in order. */
  registerAll(definitions: Iterable<IntentTool<unknown, unknown, unknown, Constraints>>): this {
    this.#registry.registerAll(definitions)
    return this
  }

  /** Forbids further registration. Idempotent. */
  seal(): this {
    this.#registry.seal()
    return this
  }

  /** The tool registry delegates were checked against, when the policy gave one. */
  get tools(): IdSource | undefined {
    return this.#tools
  }

  /**
   * The policies of a registered intent, as read at registration: `scopePolicy`, `targetPolicy`, the
   * declared `delegates` as a list (or `undefined`) and the `constraints` as given.
   * @throws `UnknownIdError` when no intent has this id
   */
  policiesOf(intentId: string): IntentPolicies<Constraints> {
    return intentPolicies(
      this.require(intentId) as IntentTool<unknown, unknown, unknown, unknown>,
    ) as IntentPolicies<Constraints>
  }
}
