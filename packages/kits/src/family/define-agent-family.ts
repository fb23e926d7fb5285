import {
  AgentCoreError,
  childContext,
  createOperationContext,
  describeValue,
  FieldReader,
  type OperationContext,
  type OperationContextInit,
  Registry,
  refuseField,
} from '@agent-core/core'
import { type AgentToolEntry, defineAgent } from '@agent-core/kits/loop'
import type { FamilyGrant, FamilyMember, FamilyResult, FamilyRunRequest } from './family-types.js'
import {
  Branch,
  type CompiledFamily,
  type CompiledMember,
  readSpawn,
  TokenLedger,
} from './internal/branch.js'
import { isRecord } from './internal/fields.js'

/**
 * Default number of one spawn's children that run at once.
 * @example
 * ```ts
 * import { DEFAULT_FAMILY_CONCURRENCY } from '@agent-core/kits/family'
 * const concurrency = Math.min(DEFAULT_FAMILY_CONCURRENCY, 2)
 * ```
 */
export const DEFAULT_FAMILY_CONCURRENCY = 4

/**
 * A family: what its parent holds (tools and scope ids), the members children are run by, and how they
 * run. Static: nothing here belongs to one run.
 * @example
 * ```ts
 * import type { AgentFamilyDefinition } from '@agent-core/kits/family'
 * import type { ChatModel } from '@agent-core/core'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const model: ChatModel
 * declare const readPage: ModelTool
 * declare const search: ModelTool
 * const definition: AgentFamilyDefinition = {
 *   tools: [search, readPage],
 *   scopes: ['web', 'wiki'],
 *   members: [{ id: 'researcher', agent: { model, system: 'Research one question.' } }],
 *   concurrency: 2,
 * }
 * ```
 */
export interface AgentFamilyDefinition<App = unknown> {
  /** Every tool the family's parent holds: children are granted subsets of them, by id. */
  readonly tools?: readonly AgentToolEntry<App>[] | undefined
  /** Every scope id the family's parent holds (plain ids, such as a ScopeRegistry's). */
  readonly scopes?: readonly string[] | undefined
  /** The kinds of child; at least one. */
  readonly members: readonly FamilyMember<App>[]
  /** Children of one spawn running at once: a safe integer from 1 to 1000. Default 4. */
  readonly concurrency?: number | undefined
  /**
   * What a child's run sees as `context.app`, from its grant and its parent's app (synchronous). Default:
   * the parent's app. Use it to hand the child's scopes to the tools that check them.
   */
  readonly childApp?: ((grant: FamilyGrant, app: App) => App) | undefined
}

/**
 * A family built by {@link defineAgentFamily}.
 * @example
 * ```ts
 * import type { AttemptBudget } from '@agent-core/core'
 * import type { AgentFamily, FamilyResult } from '@agent-core/kits/family'
 * async function research(family: AgentFamily, attemptBudget: AttemptBudget): Promise<FamilyResult> {
 *   return family.run({ children: [{ member: 'researcher', prompt: 'Who wrote RFC 2119?', tools: ['search'], attempts: 3 }] }, { attemptBudget })
 * }
 * ```
 */
export interface AgentFamily<App = unknown> {
  /** The tool ids the parent holds, in the order given. */
  readonly tools: readonly string[]
  /** The scope ids the parent holds. */
  readonly scopes: readonly string[]
  /** The member ids. */
  readonly members: readonly string[]
  /**
   * Runs one spawn from the family's parent: checks every child (member, tools and scopes it may have,
   * shares), takes all attempt shares from `context.attemptBudget` at once and grants the token shares out
   * of `maxTokens`, runs the children concurrently up to the limit, and resolves to their reports in
   * declaration order. Rejects only for a malformed request, a refused grant or shares that do not fit
   * (then nothing was spawned or taken); a cancelled signal resolves with every child `stopped`.
   */
  run(
    request: FamilyRunRequest<App>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<FamilyResult>
}

function readStrings(fields: FieldReader, key: 'tools' | 'scopes'): readonly string[] {
  const value = fields.get(key)
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    fields.fail(key, `must be an array or be left out, but got ${describeValue(value)}`, value)
  }
  const ids: string[] = []
  for (let index = 0; index < value.length; index++) {
    const entry: unknown = value[index]
    const field = `definition.${key}[${index}]`
    const id = key === 'tools' ? (isRecord(entry) ? entry.id : undefined) : entry
    if (typeof id !== 'string' || id === '') {
      refuseField(
        'definition',
        field,
        key === 'tools'
          ? `must be a tool (an agent tool, a core ModelTool or a tool lifecycle, with a string id), but got ${describeValue(entry)}`
          : `must be a non-empty scope id, but got ${describeValue(entry)}`,
        entry,
      )
    }
    if (ids.includes(id)) {
      refuseField(
        'definition',
        field,
        `repeats the ${key === 'tools' ? 'tool' : 'scope'} id "${id}"; ids must be unique`,
        entry,
      )
    }
    ids.push(id)
  }
  return ids
}

function compileMember(
  value: unknown,
  index: number,
  tools: readonly AgentToolEntry<unknown>[],
): CompiledMember {
  const field = `definition.members[${index}]`
  const fields: FieldReader = new FieldReader(
    value,
    field,
    'a member { id, agent } or { id, run }',
    'definition',
  )
  const id = fields.string('id')
  if (id === undefined) fields.fail('id', 'is required: name the member', undefined)
  const agent = fields.get('agent')
  const run = fields.get('run')
  fields.done()
  if ((agent === undefined) === (run === undefined)) {
    fields.fail(
      agent === undefined ? 'run' : 'agent',
      'must be given, and only one of agent and run',
      agent ?? run,
    )
  }
  if (run !== undefined) {
    if (typeof run !== 'function')
      fields.fail('run', `must be a function (branch, context), but got ${describeValue(run)}`, run)
    return {
      kind: 'run',
      id,
      member: value as object,
      run: run as Extract<CompiledMember, { kind: 'run' }>['run'],
    }
  }
  if (!isRecord(agent)) {
    fields.fail(
      'agent',
      `must be an agent definition { model, system?, ... }, but got ${describeValue(agent)}`,
      agent,
    )
  }
  if (Object.hasOwn(agent, 'tools')) {
    fields.fail(
      'agent.tools',
      "is not set here: each child gets the tools of its grant, out of the family's tools",
      agent.tools,
    )
  }
  try {
    // Checked once, with every tool the family holds: a child's agent is the same definition with fewer tools.
    defineAgent({ ...(agent as object), tools } as Parameters<typeof defineAgent>[0])
  } catch (error) {
    if (!AgentCoreError.isInstance(error)) throw error
    refuseField(
      'definition',
      `${field}.agent`,
      `is not a valid agent: ${error.message.replace(/\.$/, '')}`,
      agent,
      {
        prefix: `Family member "${id}": `,
        details: { id },
        cause: error,
      },
    )
  }
  const maxTokens = agent.maxTokens
  return {
    kind: 'agent',
    id,
    definition: agent as Extract<CompiledMember, { kind: 'agent' }>['definition'],
    maxTokens: typeof maxTokens === 'number' ? maxTokens : undefined,
  }
}

function compile(definition: unknown): CompiledFamily {
  const fields: FieldReader = new FieldReader(
    definition,
    'definition',
    'a family definition { tools?, scopes?, members, ... }',
    'definition',
  )
  const toolIds = readStrings(fields, 'tools')
  const entries = (fields.get('tools') ?? []) as readonly AgentToolEntry<unknown>[]
  const scopes = readStrings(fields, 'scopes')
  const membersValue = fields.get('members')
  if (!Array.isArray(membersValue) || membersValue.length === 0) {
    fields.fail(
      'members',
      `must be a non-empty array of members, but got ${describeValue(membersValue)}`,
      membersValue,
    )
  }
  const concurrency = fields.integer('concurrency', 1) ?? DEFAULT_FAMILY_CONCURRENCY
  if (concurrency > 1000)
    fields.fail('concurrency', `must be at most 1000, but got ${describeValue(concurrency)}`, concurrency)
  const childApp = fields.func<CompiledFamily['childApp']>('childApp')
  fields.done()
  const members = membersValue.map((member, index) => compileMember(member, index, entries))
  // The shared registration contract: unique, non-empty ids, with its typed errors.
  const registry = Registry.create<CompiledMember>(members, { kind: 'family member' })
  return {
    tools: new Map(toolIds.map((id, index) => [id, entries[index] as AgentToolEntry<unknown>])),
    scopes: Object.freeze([...scopes]),
    members: new Map(registry.entries()),
    concurrency,
    childApp,
    holder: definition as object,
    agents: new Map(),
  }
}

class AgentFamilyImpl<App> implements AgentFamily<App> {
  readonly #family: CompiledFamily
  readonly tools: readonly string[]
  readonly scopes: readonly string[]
  readonly members: readonly string[]

  constructor(family: CompiledFamily) {
    this.#family = family
    this.tools = Object.freeze([...family.tools.keys()])
    this.scopes = family.scopes
    this.members = Object.freeze([...family.members.keys()])
  }

  async run(
    request: FamilyRunRequest<App>,
    context: OperationContext<App> | OperationContextInit<App> = {},
  ): Promise<FamilyResult> {
    const fields: FieldReader = new FieldReader(
      request,
      'request',
      'a family run request { children, maxTokens?, ... }',
      'input',
    )
    const maxTokens = fields.integer('maxTokens', 0)
    const spawn = readSpawn(fields)
    fields.done()
    const operation = childContext(createOperationContext(context as OperationContextInit<unknown>), 'family')
    const root = new Branch(
      this.#family,
      [],
      this.tools,
      this.scopes,
      operation.attemptBudget,
      maxTokens === undefined ? undefined : new TokenLedger(maxTokens),
      operation,
    )
    return root.spawn(spawn)
  }
}

/**
 * Defines an agent family: branching runs. The family's parent holds tools and scope ids; a run spawns
 * children, each run by a member (a loop agent or a function), each with a declared subset of its parent's
 * tools and scopes (asking for one the parent lacks is refused with a {@link FamilyGrantError} naming it)
 * and an explicit share of its budgets: attempts taken from the parent's `AttemptBudget` at spawn, all at
 * once and never returned, and tokens granted out of the parent's token budget (an agent child's run
 * token budget). A share never exceeds the parent's remainder. Children run concurrently up to a limit;
 * their reports come back in declaration order; one child's failure is reported with the others'
 * results; cancelling the parent stops every child. A function member gets a branch to spawn children of
 * its own, from its own grant.
 * @throws `InvalidDefinitionError` for a malformed definition (a member agent is checked with
 *   `defineAgent`); `DuplicateIdError` for a repeated member id
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { defineAgentFamily } from '@agent-core/kits/family'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 *
 * const family = defineAgentFamily({
 *   members: [{ id: 'echo', agent: { model: createScriptedModel([(request) => ({ text: `re: ${request.messages.length}` })]) } }],
 * })
 * const result = await family.run(
 *   { children: [{ member: 'echo', prompt: 'a', attempts: 1 }] },
 *   { attemptBudget: new AttemptBudget(3) },
 * )
 * // result.children[0].status === 'done'; the budget has 2 attempts left
 * ```
 */
export function defineAgentFamily<App = unknown>(definition: AgentFamilyDefinition<App>): AgentFamily<App> {
  return new AgentFamilyImpl<App>(compile(definition))
}
