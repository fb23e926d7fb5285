import type { AttemptBudget, ChatMessage, MaybePromise, ModelUsage, OperationContext } from '@agent-core/core'
import type { AgentDefinition, AgentResult, AgentRunRequest, AgentToolEntry } from '@agent-core/kits/loop'

/**
 * What a child was given: its place in the tree, its member, the tools and scopes it may use (a subset
 * of its parent's), and its budget shares (`undefined`: not metered).
 * @example
 * ```ts
 * import type { FamilyGrant } from '@agent-core/kits/family'
 * const describe = (grant: FamilyGrant) => `${grant.path.join('/')} may use ${grant.tools.join(', ') || 'no tools'}`
 * ```
 */
export interface FamilyGrant {
  readonly childId: string
  /** The child ids from the root's children down to this one. */
  readonly path: readonly string[]
  readonly member: string
  readonly tools: readonly string[]
  readonly scopes: readonly string[]
  /** Attempts taken from the parent's `AttemptBudget` for this child: its own budget's limit. */
  readonly attempts: number | undefined
  /** Tokens granted out of the parent's token budget: the child run's token budget. */
  readonly tokens: number | undefined
}

/**
 * A token budget as a branch sees it: its `limit`, what it `granted` to its children so far, and the
 * `remaining` tokens a new share can come out of.
 * @example
 * ```ts
 * import type { FamilyTokens } from '@agent-core/kits/family'
 * const canGive = (tokens: FamilyTokens, share: number) => share <= tokens.remaining
 * ```
 */
export interface FamilyTokens {
  readonly limit: number
  readonly granted: number
  readonly remaining: number
}

/**
 * One child to spawn: which member runs it, its task (`prompt` / `messages` for an agent member, `input`
 * for a run member), the tools and scopes it gets (each must be its parent's; default none) and its
 * budget shares. When the parent has an `AttemptBudget`, `attempts` is required; when it has a token
 * budget, `tokens` is required. Without a parent budget, a share is the child's own cap. `prompt`,
 * `resolveApproval`, `answerQuestion` and `onEvent` are for agent members only: they are the loop's
 * `AgentRunRequest` fields, given to the child's run as they are (so is `messages`, chat messages only).
 * @example
 * ```ts
 * import type { FamilyChildRequest } from '@agent-core/kits/family'
 * const child: FamilyChildRequest = {
 *   id: 'prices',
 *   member: 'researcher',
 *   prompt: 'Find the list price of the X200.',
 *   tools: ['search'],
 *   scopes: ['web'],
 *   attempts: 4,
 *   tokens: 6_000,
 * }
 * ```
 */
export interface FamilyChildRequest<App = unknown>
  extends Pick<AgentRunRequest<App>, 'prompt' | 'resolveApproval' | 'answerQuestion' | 'onEvent'> {
  /** Unique among the children of one spawn. Default: the member id, numbered when it repeats (`researcher-2`). */
  readonly id?: string | undefined
  /** The member that runs the child. */
  readonly member: string
  /** Agent members: the conversation so far. */
  readonly messages?: readonly ChatMessage[] | undefined
  /** Run members: what the child works on (given to its `run` as `branch.input`). */
  readonly input?: unknown
  /** Tool ids of the parent the child may use. Default none. */
  readonly tools?: readonly string[] | undefined
  /** Scope ids of the parent the child may use. Default none. */
  readonly scopes?: readonly string[] | undefined
  /** Attempts taken from the parent's `AttemptBudget` at spawn: a safe integer from 0. */
  readonly attempts?: number | undefined
  /** Tokens granted out of the parent's token budget at spawn: a safe integer from 0 (from 1 for an agent member). */
  readonly tokens?: number | undefined
}

/**
 * A spawn: the children, in the order their results come back, and how they run.
 * @example
 * ```ts
 * import type { FamilySpawnRequest } from '@agent-core/kits/family'
 * const request: FamilySpawnRequest = { children: [{ member: 'summarizer', prompt: 'Summarize the thread.', attempts: 2 }], concurrency: 2 }
 * ```
 */
export interface FamilySpawnRequest<App = unknown> {
  readonly children: readonly FamilyChildRequest<App>[]
  /** Children of this spawn running at once: a safe integer from 1. Default: the family's. */
  readonly concurrency?: number | undefined
  /** Stop the other children when one fails. Default false: every child runs to its end. */
  readonly failFast?: boolean | undefined
}

/**
 * The root of a family run: a spawn from the family's own tools and scopes, the context's
 * `AttemptBudget` and, optionally, a token budget.
 * @example
 * ```ts
 * import type { FamilyRunRequest } from '@agent-core/kits/family'
 * const request: FamilyRunRequest = { maxTokens: 20_000, children: [{ member: 'writer', prompt: 'Draft the intro.', tokens: 8_000 }] }
 * ```
 */
export interface FamilyRunRequest<App = unknown> extends FamilySpawnRequest<App> {
  /** The parent's token budget: the children's token shares come out of it. Default: none. */
  readonly maxTokens?: number | undefined
}

/**
 * The fields every {@link FamilyChildReport} has, whatever its `status`: the child's id, place, member,
 * grant, usage, attempts and (for an agent member that started) its run.
 * @example
 * ```ts
 * import type { FamilyChildReportBase } from '@agent-core/kits/family'
 * const spent = (child: FamilyChildReportBase) => `${child.member}: ${child.usage.totalTokens} tokens`
 * ```
 */
export interface FamilyChildReportBase {
  readonly id: string
  /** The child's place among its siblings (declaration order), from 0. */
  readonly index: number
  readonly member: string
  readonly grant: FamilyGrant
  /** Tokens the child (and its own children) spent, as the models reported them. */
  readonly usage: ModelUsage
  /** Attempts the child took from its own budget (its share), or from none. */
  readonly attemptsUsed: number
  /** Agent members that started: the run's result. */
  readonly run: AgentResult<unknown> | undefined
}

/**
 * What became of one child, discriminated by `status`: `done` with its `value` (an agent member's answer,
 * a run member's return value), `failed` with its `error`, or `stopped` (the parent was cancelled, or a
 * sibling failed under `failFast`; `started` says whether it had begun).
 * @example
 * ```ts
 * import type { FamilyChildReport } from '@agent-core/kits/family'
 * function line(child: FamilyChildReport): string {
 *   if (child.status === 'done') return `${child.id}: ${String(child.value)}`
 *   if (child.status === 'failed') return `${child.id} failed: ${String(child.error)}`
 *   return `${child.id} stopped${child.started ? '' : ' before it started'}`
 * }
 * ```
 */
export type FamilyChildReport =
  | (FamilyChildReportBase & { readonly status: 'done'; readonly value: unknown })
  | (FamilyChildReportBase & { readonly status: 'failed'; readonly error: unknown })
  | (FamilyChildReportBase & { readonly status: 'stopped'; readonly started: boolean })

/**
 * What a spawn resolves to: every child's report in declaration order (whatever order they finished in),
 * and the totals.
 * @example
 * ```ts
 * import type { FamilyResult } from '@agent-core/kits/family'
 * const answers = (result: FamilyResult) => result.children.flatMap((child) => (child.status === 'done' ? [child.value] : []))
 * ```
 */
export interface FamilyResult {
  readonly children: readonly FamilyChildReport[]
  /** True when the parent's signal stopped the spawn. */
  readonly stopped: boolean
  /** How many children failed. */
  readonly failed: number
  /** Tokens spent by every child and its descendants. */
  readonly usage: ModelUsage
  /** Attempts taken from the parent's `AttemptBudget` for the children's shares. */
  readonly attempts: number
  /** Tokens granted out of the parent's token budget to the children. */
  readonly tokens: number
}

/**
 * A child as its run member sees it: what it was granted, its input, the tools it may use, its budgets,
 * and `spawn` to branch further (grandchildren get subsets and shares of this child's grant).
 * @example
 * ```ts
 * import type { FamilyBranch } from '@agent-core/kits/family'
 * async function fanOut(branch: FamilyBranch) {
 *   const topics = branch.input as string[]
 *   return branch.spawn({
 *     children: topics.map((topic) => ({ member: 'researcher', prompt: topic, tools: branch.grant.tools, attempts: 2 })),
 *   })
 * }
 * ```
 */
export interface FamilyBranch<App = unknown> {
  readonly grant: FamilyGrant
  /** The child request's `input`. */
  readonly input: unknown
  /** The granted tools, as the family was given them, in grant order. */
  readonly tools: readonly AgentToolEntry<App>[]
  /** This child's own attempt budget (its share), when it has one. */
  readonly attemptBudget: AttemptBudget | undefined
  /** This child's token budget (its share), when it has one. */
  readonly tokens: FamilyTokens | undefined
  /**
   * Spawns children of this child, from its grant and budgets, under its signal. Resolves to their reports
   * in declaration order; rejects only for a malformed request, a refused grant or a share that does not
   * fit (then nothing was spawned or taken).
   */
  spawn(request: FamilySpawnRequest<App>): Promise<FamilyResult>
}

/**
 * A member that is a loop agent: each child it runs is `defineAgent` of this definition with the child's
 * granted tools and, as `maxTokens`, its token share (or the definition's own `maxTokens`, if lower).
 * @example
 * ```ts
 * import type { FamilyAgentMember } from '@agent-core/kits/family'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const researcher: FamilyAgentMember = { id: 'researcher', agent: { model, system: 'Research one question; cite sources.', maxTurns: 6 } }
 * ```
 */
export interface FamilyAgentMember<App = unknown> {
  readonly id: string
  /** A loop agent definition without `tools`: a child gets the tools of its grant. */
  readonly agent: Omit<AgentDefinition<unknown, App>, 'tools'>
}

/**
 * A member that is a function: it gets the child's {@link FamilyBranch} (to use its tools, call models
 * with `context.attemptBudget`, or spawn children of its own) and the child's context (its signal,
 * diagnostics and attempt budget). What it returns is the child's value.
 * @example
 * ```ts
 * import type { FamilyRunMember } from '@agent-core/kits/family'
 * const lead: FamilyRunMember = {
 *   id: 'lead',
 *   run: async (branch) => (await branch.spawn({ children: [{ member: 'researcher', prompt: String(branch.input), attempts: 3 }] })).children,
 * }
 * ```
 */
export interface FamilyRunMember<App = unknown> {
  readonly id: string
  run(branch: FamilyBranch<App>, context: OperationContext<App>): MaybePromise<unknown>
}

/**
 * A kind of child a family can spawn.
 * @example
 * ```ts
 * import type { FamilyMember } from '@agent-core/kits/family'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const members: FamilyMember[] = [{ id: 'writer', agent: { model } }, { id: 'join', run: (branch) => String(branch.input) }]
 * ```
 */
export type FamilyMember<App = unknown> = FamilyAgentMember<App> | FamilyRunMember<App>
