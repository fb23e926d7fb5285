import {
  describeValue,
  FieldReader,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidStateError,
  refuseField,
  UnknownIdError,
} from '@agent-core/core'
import { type IntentPolicies, IntentRegistry } from './intent-registry.js'
import type { IntentTool } from './intent-tool.js'
import { type IdSource, isIdSource, quoteIds } from './internal/id-list.js'
import { type ScopeDefinition, ScopeRegistry, scopeLists } from './scope-registry.js'

/**
 * The current task: the goal pursued (an intent's id) and, optionally, the scope that governs it.
 * @example
 * ```ts
 * import type { AgentTask } from '@agent-core/kits/domains'
 * const task: AgentTask = { goalId: 'refund_order', scopeId: 'billing' }
 * ```
 */
export interface AgentTask {
  readonly goalId: string
  readonly scopeId?: string | undefined
}

/**
 * What the catalog projects for a task, with the same field names as the registrations: the goal, the
 * scope that governs it, the tools it may call (the goal first, then its delegates), the scopes whose data
 * it may reference (`queryScopeIds`, never the governing scope), the knowledge topics that apply, the
 * intent's constraints, and where the delegates came from.
 * @example
 * ```ts
 * import type { TaskProjection } from '@agent-core/kits/domains'
 * const offer = (projection: TaskProjection) => projection.toolIds
 * ```
 */
export interface TaskProjection<Constraints = unknown> {
  readonly goalId: string
  /** The scope that governs the task (its policy scope), or `undefined` for an unscoped task. */
  readonly scopeId: string | undefined
  /** The tools the task may call: the goal's own tool, then its delegates, in the tool registry's order. */
  readonly toolIds: readonly string[]
  /**
   * `declared` when the intent's `asIntent.delegates` gave them; `derived` when they come from the
   * governing scope's `toolIds` (or, for an unscoped task, from every scope that lists the goal).
   */
  readonly delegatesFrom: 'declared' | 'derived'
  /** The scopes whose data the task may reference, as its target policy allows (registration order). */
  readonly queryScopeIds: readonly string[]
  /** The knowledge topics of the governing scope, then of the referenced scopes (each once). */
  readonly knowledgeTopicIds: readonly string[]
  /** The intent's constraints, as declared (the same value, not a copy). */
  readonly constraints: Constraints | undefined
}

/**
 * The relationships of an agent's tools, intents and scopes, projected from the actual registrations.
 * @example
 * ```ts
 * import type { AgentCatalog } from '@agent-core/kits/domains'
 * const toolsFor = (catalog: AgentCatalog, goalId: string, scopeId?: string) => catalog.project({ goalId, scopeId }).toolIds
 * ```
 */
export interface AgentCatalog<Constraints = unknown> {
  readonly tools: IdSource
  readonly intents: IntentRegistry<Constraints>
  readonly scopes: ScopeRegistry
  /**
   * Checks a task against the registrations and projects it.
   * @throws `InvalidInputError` for a malformed task, a scope the goal's scope policy refuses, or a scope
   *   that does not list the goal; `UnknownIdError` for an unknown goal or scope (a business name is
   *   refused with the scope id it stands for)
   */
  project(task: AgentTask): TaskProjection<Constraints>
  /**
   * The intents a task may pursue in this scope (its `goalIds`, in order), or, without a scope, the
   * intents whose scope policy allows an unscoped task (registration order).
   */
  goals(scopeId?: string): readonly IntentTool<unknown, unknown, unknown, Constraints>[]
  /** The scopes that list this goal, in registration order. */
  scopesOf(goalId: string): readonly ScopeDefinition[]
}

/** Names defineAgentCatalog in its refusals. */
const CATALOG = Object.freeze({ prefix: 'defineAgentCatalog: ' })

/**
 * Builds the catalog of an agent from its registrations: the tool registry (anything with `has(id)` and
 * `ids()`, such as a `ToolLifecycleRegistry`), a sealed {@link IntentRegistry} and a sealed
 * {@link ScopeRegistry}. Every relationship is checked up front, each refusal naming the offending id:
 * intents and delegates are real tools, scope goals are intents and scope tools are real tools, a goal with
 * scope policy `required` is a goal of some scope, and one with `none` is a goal of none.
 * @throws `InvalidDefinitionError`, `UnknownIdError`, `InvalidStateError` (a registry is not sealed)
 * @example
 * ```ts
 * import { defineAgentCatalog } from '@agent-core/kits/domains'
 * import type { IntentRegistry } from '@agent-core/kits/domains'
 * import type { ScopeRegistry } from '@agent-core/kits/domains'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const intents: IntentRegistry
 * declare const scopes: ScopeRegistry
 * declare const tools: ToolLifecycleRegistry
 * const catalog = defineAgentCatalog({ tools, intents, scopes })
 * catalog.project({ goalId: 'refund_order', scopeId: 'billing' }).toolIds // ['lookup_order', 'refund_order']
 * ```
 */
export function defineAgentCatalog<Constraints = unknown>(registrations: {
  readonly tools: IdSource
  readonly intents: IntentRegistry<Constraints>
  readonly scopes: ScopeRegistry
}): AgentCatalog<Constraints> {
  if (typeof registrations !== 'object' || registrations === null) {
    refuseField(
      'definition',
      'registrations',
      `must be { tools, intents, scopes }, but got ${describeValue(registrations)}`,
      registrations,
      CATALOG,
    )
  }
  const { tools, intents, scopes } = registrations
  if (!isIdSource(tools)) {
    refuseField(
      'definition',
      'tools',
      `must be the tool registry (has(id) and ids()), but got ${describeValue(tools)}`,
      tools,
      CATALOG,
    )
  }
  if (!(intents instanceof IntentRegistry)) {
    refuseField(
      'definition',
      'intents',
      `must be an IntentRegistry, but got ${describeValue(intents)}`,
      intents,
      CATALOG,
    )
  }
  if (!(scopes instanceof ScopeRegistry)) {
    refuseField(
      'definition',
      'scopes',
      `must be a ScopeRegistry, but got ${describeValue(scopes)}`,
      scopes,
      CATALOG,
    )
  }
  for (const [name, registry] of [
    ['intents', intents],
    ['scopes', scopes],
  ] as const) {
    if (!registry.sealed) {
      throw new InvalidStateError(
        `defineAgentCatalog: the ${name} registry is not sealed. A catalog projects registrations that no longer change; call seal() (or build it with create()) first.`,
        { details: { field: name } },
      )
    }
  }
  return new Catalog<Constraints>(tools, intents, scopes)
}

function unknownId(
  message: string,
  id: string,
  kind: string,
  known: readonly string[],
  extra: object,
): never {
  throw new UnknownIdError(`${message} Known ${kind}s: ${quoteIds(known)}.`, {
    details: { id, kind, known, ...extra },
  })
}

class Catalog<Constraints> implements AgentCatalog<Constraints> {
  readonly #order: ReadonlyMap<string, number>

  constructor(
    readonly tools: IdSource,
    readonly intents: IntentRegistry<Constraints>,
    readonly scopes: ScopeRegistry,
  ) {
    const toolIds = tools.ids()
    this.#order = new Map(toolIds.map((id, index) => [id, index]))
    for (const intent of intents.values()) {
      const { delegates, scopePolicy } = intents.policiesOf(intent.id)
      if (!tools.has(intent.id)) {
        unknownId(
          `Intent "${intent.id}" is not a tool of the catalog's tool registry; register its tool there so a model can call it.`,
          intent.id,
          'tool',
          toolIds,
          { field: 'intents' },
        )
      }
      for (const delegate of delegates ?? []) {
        if (!tools.has(delegate)) {
          unknownId(
            `Intent "${intent.id}": asIntent.delegates names "${delegate}", but no tool has that id.`,
            delegate,
            'tool',
            toolIds,
            { intentId: intent.id, field: 'asIntent.delegates' },
          )
        }
      }
      const listing = scopes.scopesWithGoal(intent.id)
      if (scopePolicy === 'required' && listing.length === 0) {
        throw new InvalidDefinitionError(
          `Intent "${intent.id}" has scope policy "required", but no scope lists it in goalIds, so no task could pursue it. Add it to a scope's goalIds, or make its scope policy "optional".`,
          { details: { id: intent.id, field: 'asIntent.scopePolicy' } },
        )
      }
      if (scopePolicy === 'none' && listing.length > 0) {
        throw new InvalidDefinitionError(
          `Intent "${intent.id}" has scope policy "none", but scope "${listing[0]!.id}" lists it in goalIds. Remove it from that scope, or give it scope policy "optional" or "required".`,
          { details: { id: intent.id, scopeId: listing[0]!.id, field: 'asIntent.scopePolicy' } },
        )
      }
    }
    for (const scope of scopes.values()) {
      const read = scopeLists(scope)
      for (const goalId of read.goalIds) {
        if (!intents.has(goalId)) {
          unknownId(
            `Scope "${scope.id}": goalIds names "${goalId}", but no intent has that id; a goal is a tool declared as an intent (defineIntentTool).`,
            goalId,
            'intent',
            intents.ids(),
            { scopeId: scope.id, field: 'goalIds' },
          )
        }
      }
      for (const toolId of read.toolIds) {
        if (!tools.has(toolId)) {
          unknownId(
            `Scope "${scope.id}": toolIds names "${toolId}", but no tool has that id.`,
            toolId,
            'tool',
            toolIds,
            {
              scopeId: scope.id,
              field: 'toolIds',
            },
          )
        }
      }
    }
  }

  project(task: AgentTask): TaskProjection<Constraints> {
    const fields = new FieldReader(task, 'task', 'an object { goalId, scopeId? }', 'input')
    const goalId = fields.requiredString('goalId')
    const scopeId = fields.string('scopeId')
    if (!this.intents.has(goalId)) {
      unknownId(`Goal "${goalId}" is not an intent of this catalog.`, goalId, 'intent', this.intents.ids(), {
        field: 'task.goalId',
      })
    }
    const policies: IntentPolicies<Constraints> = this.intents.policiesOf(goalId)
    const scope = scopeId === undefined ? undefined : this.scopes.require(scopeId)
    if (scope === undefined && policies.scopePolicy === 'required') {
      const candidates = this.scopes.scopesWithGoal(goalId).map((s) => s.id)
      throw new InvalidInputError(
        `Goal "${goalId}" needs a scope (its scope policy is "required"); name one of ${quoteIds(candidates)} as task.scopeId.`,
        { details: { field: 'task.scopeId', goalId, candidates } },
      )
    }
    if (scope !== undefined && policies.scopePolicy === 'none') {
      throw new InvalidInputError(
        `Goal "${goalId}" is pursued without a scope (its scope policy is "none"), but the task names scope "${scope.id}". Leave task.scopeId out.`,
        { details: { field: 'task.scopeId', goalId, scopeId: scope.id } },
      )
    }
    const read = scope === undefined ? undefined : scopeLists(scope)
    if (scope !== undefined && !read!.goalIds.includes(goalId)) {
      const candidates = this.scopes.scopesWithGoal(goalId).map((s) => s.id)
      throw new InvalidInputError(
        `Scope "${scope.id}" does not list goal "${goalId}" in its goalIds, so it cannot govern this task. Scopes that list it: ${quoteIds(candidates)}.`,
        { details: { field: 'task.scopeId', goalId, scopeId: scope.id, candidates } },
      )
    }

    const declared = policies.delegates
    const delegates = new Set<string>(
      declared ??
        (read ? read.toolIds : this.scopes.scopesWithGoal(goalId).flatMap((s) => scopeLists(s).toolIds)),
    )
    delegates.delete(goalId)
    const toolIds = [goalId, ...this.#inToolOrder(delegates)]

    let queryScopeIds: readonly string[]
    switch (policies.targetPolicy) {
      case 'none':
        queryScopeIds = []
        break
      case 'query-scopes':
        queryScopeIds = read ? read.queryScopeIds : []
        break
      case 'all-scopes':
        queryScopeIds = this.scopes.ids().filter((id) => id !== scope?.id)
        break
    }
    const topics = new Set<string>(read ? read.knowledgeTopicIds : [])
    for (const id of queryScopeIds)
      for (const topic of this.scopes.listsOf(id).knowledgeTopicIds) topics.add(topic)

    return Object.freeze({
      goalId,
      scopeId: scope?.id,
      toolIds: Object.freeze(toolIds),
      delegatesFrom: declared ? 'declared' : 'derived',
      queryScopeIds: Object.freeze([...queryScopeIds]),
      knowledgeTopicIds: Object.freeze([...topics]),
      constraints: policies.constraints,
    })
  }

  goals(scopeId?: string): readonly IntentTool<unknown, unknown, unknown, Constraints>[] {
    if (scopeId === undefined) {
      return this.intents
        .values()
        .filter((intent) => this.intents.policiesOf(intent.id).scopePolicy !== 'required')
    }
    return scopeLists(this.scopes.require(scopeId)).goalIds.map((id) => this.intents.require(id))
  }

  scopesOf(goalId: string): readonly ScopeDefinition[] {
    this.intents.require(goalId)
    return this.scopes.scopesWithGoal(goalId)
  }

  #inToolOrder(ids: ReadonlySet<string>): string[] {
    return [...ids].sort((a, b) => (this.#order.get(a) ?? 0) - (this.#order.get(b) ?? 0))
  }
}
