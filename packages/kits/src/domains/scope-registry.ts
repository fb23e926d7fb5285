import {
  DuplicateIdError,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  Registry,
  type RegistryPolicy,
  RegistryView,
  refuseField,
  UnknownIdError,
} from '@agent-core/core'
import { type IdSource, isIdSource, POLICY, quoteIds, readIdList } from './internal/id-list.js'

/**
 * One scope: a business area of the App (billing, travel, support) that says which goals can be pursued
 * in it, which tools may be used there, whose data it may query, which knowledge topics apply, and the
 * business names people use for it.
 * @example
 * ```ts
 * import type { ScopeDefinition } from '@agent-core/kits/domains'
 * const billing: ScopeDefinition = {
 *   id: 'billing',
 *   goalIds: ['refund_order'],
 *   toolIds: ['lookup_order', 'refund_order'],
 *   queryScopeIds: ['orders'],
 *   knowledgeTopicIds: ['refund-policy'],
 *   aliases: ['invoices', 'payments'],
 * }
 * ```
 */
export interface ScopeDefinition {
  readonly id: string
  /** Goals that can be pursued in this scope: ids of real tools (intents, for the catalog). */
  readonly goalIds: readonly string[] | ReadonlySet<string>
  /** Tools that may be used in this scope: ids of real tools. */
  readonly toolIds: readonly string[] | ReadonlySet<string>
  /** Other scopes whose data a task governed by this scope may reference; never this scope itself. */
  readonly queryScopeIds?: readonly string[] | ReadonlySet<string> | undefined
  /** Knowledge topics that apply in this scope. */
  readonly knowledgeTopicIds?: readonly string[] | ReadonlySet<string> | undefined
  /** Business names of this scope, resolved to its id by {@link ScopeRegistry.normalize}. */
  readonly aliases?: readonly string[] | ReadonlySet<string> | undefined
}

/**
 * A scope's lists as read and checked at registration (arrays, in the order given).
 * @example
 * ```ts
 * import type { ScopeLists } from '@agent-core/kits/domains'
 * const count = (lists: ScopeLists) => lists.goalIds.length
 * ```
 */
export interface ScopeLists {
  readonly goalIds: readonly string[]
  readonly toolIds: readonly string[]
  readonly queryScopeIds: readonly string[]
  readonly knowledgeTopicIds: readonly string[]
  readonly aliases: readonly string[]
}

/**
 * How a {@link ScopeRegistry} checks its scopes: core's registry policy (`kind`, default `"scope"`;
 * `idPattern`; `assertDefinition`; `errors`) plus the registries the scopes' ids must be found in.
 * @example
 * ```ts
 * import type { ScopeRegistryPolicy } from '@agent-core/kits/domains'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const toolRegistry: ToolLifecycleRegistry
 * const policy: ScopeRegistryPolicy = { tools: toolRegistry, idPattern: /^[a-z][a-z0-9-]*$/ }
 * ```
 */
export interface ScopeRegistryPolicy extends RegistryPolicy<ScopeDefinition> {
  /** The tool registry that `goalIds` and `toolIds` must name (required). */
  readonly tools: IdSource
  /** When given, `knowledgeTopicIds` must name topics it holds. */
  readonly knowledgeTopics?: IdSource | undefined
}

const FIELDS = new Set(['id', 'goalIds', 'toolIds', 'queryScopeIds', 'knowledgeTopicIds', 'aliases'])
const lists = new WeakMap<object, ScopeLists>()

/** The business-name form aliases are compared in: Unicode-normalized, trimmed, single spaces, lower case. */
function aliasKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase()
}

function readScope(scope: ScopeDefinition, tools: IdSource, topics: IdSource | undefined): ScopeLists {
  const id = scope.id
  const owner = `Scope "${id}"`
  for (const key of Object.keys(scope)) {
    if (!FIELDS.has(key))
      refuseField(
        'definition',
        key,
        `is not a field of a scope (known: ${[...FIELDS].join(', ')})`,
        (scope as unknown as Record<string, unknown>)[key],
        { prefix: `${owner}: `, details: { id } },
      )
  }
  const optional = (value: unknown, field: string) =>
    value === undefined ? [] : readIdList(value, owner, field)
  const read: ScopeLists = Object.freeze({
    goalIds: Object.freeze(readIdList(scope.goalIds, owner, 'goalIds')),
    toolIds: Object.freeze(readIdList(scope.toolIds, owner, 'toolIds')),
    queryScopeIds: Object.freeze(optional(scope.queryScopeIds, 'queryScopeIds')),
    knowledgeTopicIds: Object.freeze(optional(scope.knowledgeTopicIds, 'knowledgeTopicIds')),
    aliases: Object.freeze(optional(scope.aliases, 'aliases')),
  })
  const unknown = (field: string, missing: string, kind: string, source: IdSource): never => {
    throw new UnknownIdError(
      `${owner}: ${field} names ${kind} "${missing}", but no ${kind} has that id. Known ${kind}s: ${quoteIds(source.ids())}.`,
      { details: { id: missing, kind, known: source.ids(), scopeId: id, field } },
    )
  }
  for (const goalId of read.goalIds) if (!tools.has(goalId)) unknown('goalIds', goalId, 'tool', tools)
  for (const toolId of read.toolIds) if (!tools.has(toolId)) unknown('toolIds', toolId, 'tool', tools)
  if (topics) {
    for (const topicId of read.knowledgeTopicIds)
      if (!topics.has(topicId)) unknown('knowledgeTopicIds', topicId, 'knowledge topic', topics)
  }
  if (read.queryScopeIds.includes(id)) {
    throw new InvalidDefinitionError(
      `${owner}: queryScopeIds names the scope itself. A scope governs its own tasks; it is never also one of their references. Remove "${id}" from queryScopeIds.`,
      { details: { id, field: 'queryScopeIds' } },
    )
  }
  for (const alias of read.aliases) {
    if (aliasKey(alias) === '')
      refuseField('definition', 'aliases', 'has a blank name; give a business name or leave it out', alias, {
        prefix: `${owner}: `,
        details: { id },
      })
  }
  return read
}

/** The checked lists of a scope that was accepted by a registry. */
export function scopeLists(scope: ScopeDefinition): ScopeLists {
  const hit = lists.get(scope)
  if (!hit) throw new InvalidInputError('This scope was not registered in a ScopeRegistry.')
  return hit
}

/**
 * Claims a scope's aliases for the batch being registered; refuses one that already names another scope,
 * registered (`registered`) or earlier in this batch (`batch`).
 */
function claimAliases(
  scope: ScopeDefinition,
  aliases: readonly string[],
  registered: ReadonlyMap<string, string>,
  batch: Map<string, string>,
): void {
  for (const alias of aliases) {
    const key = aliasKey(alias)
    const other = registered.get(key) ?? batch.get(key)
    if (other !== undefined && other !== scope.id) {
      throw new DuplicateIdError(
        `Scope "${scope.id}": alias "${alias}" already names scope "${other}". A business name must resolve to one scope; rename one of them.`,
        { details: { id: alias, kind: 'scope alias', scopeId: scope.id, otherScopeId: other } },
      )
    }
    batch.set(key, scope.id)
  }
}

/**
 * The registry of scopes. Every scope's `goalIds` and `toolIds` must name tools of the tool registry it is
 * given (an unknown id is refused by name), its `queryScopeIds` must name other registered scopes
 * (checked when the registry is sealed, so scopes may refer to scopes registered later), and its aliases
 * must not collide with another scope's id or alias. Query methods take a scope id; resolve a business
 * name with {@link ScopeRegistry.normalize} first.
 *
 * It follows the core registry contract: `ScopeRegistry.create(definitions, policy)` builds and seals at
 * once, `new ScopeRegistry(policy).registerAll(definitions).seal()` in stages.
 *
 * @example
 * ```ts
 * import { ScopeRegistry } from '@agent-core/kits/domains'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const tools: ToolLifecycleRegistry
 * const scopes = ScopeRegistry.create(
 *   [{ id: 'billing', goalIds: ['refund_order'], toolIds: ['refund_order'], aliases: ['Invoices'] }],
 *   { tools },
 * )
 * scopes.normalize('invoices') // 'billing'
 * ```
 */
export class ScopeRegistry extends RegistryView<ScopeDefinition> {
  readonly #registry: Registry<ScopeDefinition>

  readonly #tools: IdSource
  readonly #topics: IdSource | undefined
  /** Each alias comparison key, with the id of the scope it names. */
  readonly #aliases: Map<string, string>
  /** Aliases claimed by the batch being registered; kept only when the whole batch is accepted. */
  readonly #batchAliases: Map<string, string>

  /**
   * An empty, unsealed registry.
   * @throws `InvalidDefinitionError` when the policy has no tool registry or is malformed
   */
  constructor(policy: ScopeRegistryPolicy) {
    if (typeof policy !== 'object' || policy === null) {
      refuseField(
        'definition',
        'policy',
        `must be a scope registry policy (an object { tools, ... }), but got ${describeValue(policy)}`,
        policy,
      )
    }
    const { tools, knowledgeTopics, assertDefinition } = policy
    if (!isIdSource(tools)) {
      throw new InvalidDefinitionError(
        `A scope registry needs policy.tools, the tool registry its goalIds and toolIds are checked against (any registry with has(id) and ids()), but got ${describeValue(tools)}.`,
        { details: { field: 'tools', received: describeValue(tools) } },
      )
    }
    if (knowledgeTopics !== undefined && !isIdSource(knowledgeTopics)) {
      refuseField(
        'definition',
        'knowledgeTopics',
        `must be a registry with has(id) and ids(), but got ${describeValue(knowledgeTopics)}`,
        knowledgeTopics,
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
    const aliases = new Map<string, string>()
    const batchAliases = new Map<string, string>()
    const registry = new Registry<ScopeDefinition>({
      ...policy,
      kind: policy.kind ?? 'scope',
      assertDefinition: (definition) => {
        const read = readScope(definition, tools, knowledgeTopics)
        claimAliases(definition, read.aliases, aliases, batchAliases)
        lists.set(definition, read)
        if (assertDefinition) Reflect.apply(assertDefinition, policy, [definition])
      },
    })
    super(registry)
    this.#registry = registry
    this.#aliases = aliases
    this.#batchAliases = batchAliases
    this.#tools = tools
    this.#topics = knowledgeTopics
  }

  /**
   * Builds, fills and seals a scope registry in one step.
   * @example
   * ```ts
   * import { ScopeRegistry } from '@agent-core/kits/domains'
   * import type { ScopeDefinition } from '@agent-core/kits/domains'
   * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
   * declare const billing: ScopeDefinition
   * declare const orders: ScopeDefinition
   * declare const tools: ToolLifecycleRegistry
   * const scopes = ScopeRegistry.create([billing, orders], { tools })
   * ```
   */
  static create(definitions: Iterable<ScopeDefinition>, policy: ScopeRegistryPolicy): ScopeRegistry {
    return new ScopeRegistry(policy).registerAll(definitions).seal()
  }

  /** True after `seal()`. */
  get sealed(): boolean {
    return this.#registry.sealed
  }

  /** Registers one scope (see `registerAll`). */
  register(definition: ScopeDefinition): this {
    return this.registerAll([definition])
  }

  /** The tool registry goal and tool ids are checked against. */
  get tools(): IdSource {
    return this.#tools
  }

  /** The knowledge topics registry, when the policy gave one. */
  get knowledgeTopics(): IdSource | undefined {
    return this.#topics
  }

  /**
   * Registers scopes atomically: core's checks, each scope's own (its ids found in the tool registry, its
   * lists well formed), and its aliases against the aliases of every scope registered so far and earlier in
   * this batch.
   * @throws `InvalidDefinitionError`, `UnknownIdError`, `DuplicateIdError`, `InvalidIdError`, `RegistrySealedError`
   */
  registerAll(definitions: Iterable<ScopeDefinition>): this {
    this.#batchAliases.clear()
    this.#registry.registerAll(definitions)
    for (const [key, scopeId] of this.#batchAliases) this.#aliases.set(key, scopeId)
    this.#batchAliases.clear()
    return this
  }

  /**
   * Seals the registry after the checks that need every scope: each `queryScopeIds` entry names a
   * registered scope, and no alias is another scope's id.
   * @throws `UnknownIdError` naming the scope and the missing id; `DuplicateIdError` naming both scopes
   */
  seal(): this {
    const ids = new Map(this.ids().map((id) => [aliasKey(id), id]))
    for (const scope of this.values()) {
      const read = scopeLists(scope)
      for (const queryScopeId of read.queryScopeIds) {
        if (!this.has(queryScopeId)) {
          throw new UnknownIdError(
            `Scope "${scope.id}": queryScopeIds names scope "${queryScopeId}", but no scope has that id. Known scopes: ${quoteIds(this.ids())}.`,
            {
              details: {
                id: queryScopeId,
                kind: 'scope',
                known: this.ids(),
                scopeId: scope.id,
                field: 'queryScopeIds',
              },
            },
          )
        }
      }
      for (const alias of read.aliases) {
        const other = ids.get(aliasKey(alias))
        if (other !== undefined && other !== scope.id) {
          throw new DuplicateIdError(
            `Scope "${scope.id}": alias "${alias}" is the id of scope "${other}". A business name must resolve to one scope; rename the alias.`,
            { details: { id: alias, kind: 'scope alias', scopeId: scope.id, otherScopeId: other } },
          )
        }
      }
    }
    this.#registry.seal()
    return this
  }

  /** Checks a scope's aliases against registered scopes and the batch so far (called from assertDefinition). */
  /**
   * The scope id a name refers to: a scope id as it is, or a business name (an alias, compared without
   * regard to case, surrounding or repeated spaces, or Unicode form).
   * @throws `InvalidInputError` for a non-string; `UnknownIdError` when nothing has this name
   * @example
   * ```ts
   * import type { ScopeRegistry } from '@agent-core/kits/domains'
   * declare const scopes: ScopeRegistry
   * scopes.normalize('  INVOICES ') // 'billing'
   * ```
   */
  normalize(name: string): string {
    if (typeof name !== 'string' || name.length === 0) {
      refuseField(
        'input',
        'name',
        `must be a non-empty string (a scope name), but got ${describeValue(name)}`,
        name,
      )
    }
    if (this.has(name)) return name
    const scopeId = this.#aliases.get(aliasKey(name))
    if (scopeId !== undefined) return scopeId
    throw new UnknownIdError(
      `No scope is named "${name}", as an id or an alias. Known scopes: ${quoteIds(this.ids())}.`,
      { details: { id: name, kind: 'scope', known: this.ids() } },
    )
  }

  /**
   * The scope with this id. A business name is refused with the id it stands for: query methods take
   * scope ids, so callers normalize once, where the name comes in.
   * @throws `UnknownIdError` (naming the scope an alias stands for, when it is one)
   */
  override require(scopeId: string): ScopeDefinition {
    if (typeof scopeId === 'string' && !this.has(scopeId)) {
      const aliased = this.#aliases.get(aliasKey(scopeId))
      if (aliased !== undefined) {
        throw new UnknownIdError(
          `"${scopeId}" is a business name of scope "${aliased}", not a scope id. Query methods take scope ids: call normalize("${scopeId}") first.`,
          { details: { id: scopeId, kind: 'scope', known: this.ids(), aliasOf: aliased } },
        )
      }
    }
    return this.#registry.require(scopeId)
  }

  /** The checked lists of a registered scope (`goalIds`, `toolIds`, `queryScopeIds`, `knowledgeTopicIds`, `aliases`). */
  listsOf(scopeId: string): ScopeLists {
    return scopeLists(this.require(scopeId))
  }

  /** The scopes a scope may query (its `queryScopeIds`), as registered. */
  queryScopesOf(scopeId: string): readonly ScopeDefinition[] {
    return this.listsOf(scopeId).queryScopeIds.map((id) => this.require(id))
  }

  /** The scopes that list this goal in `goalIds`, in registration order. */
  scopesWithGoal(goalId: string): readonly ScopeDefinition[] {
    return this.values().filter((scope) => scopeLists(scope).goalIds.includes(goalId))
  }

  /** The scopes that list this tool in `toolIds`, in registration order. */
  scopesWithTool(toolId: string): readonly ScopeDefinition[] {
    return this.values().filter((scope) => scopeLists(scope).toolIds.includes(toolId))
  }
}
