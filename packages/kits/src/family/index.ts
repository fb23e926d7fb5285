/**
 * Agent families: branching runs. {@link defineAgentFamily} declares what a parent holds (tools, scope
 * ids) and the members that run children (loop agents or functions). A run spawns children, each with a
 * subset of its parent's tools and scopes and an explicit share of its budgets: attempts taken from the
 * parent's `AttemptBudget` at spawn, all at once and never returned, and tokens granted out of the parent's
 * token budget (an agent child's run token budget). Children run concurrently up to a limit, their reports
 * fan in in declaration order, a failure is reported beside the others' results, and cancelling the parent
 * stops every child. A function member can spawn children of its own: the shares nest as a tree.
 *
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineAgentFamily } from '@agent-core/kits/family'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 *
 * const search = defineModelTool({ id: 'search', description: 'Search the web', inputSchema: {}, execute: () => 'results' })
 * const family = defineAgentFamily({
 *   tools: [search],
 *   scopes: ['web'],
 *   members: [{ id: 'researcher', agent: { model: createScriptedModel([{ text: 'Found it.' }]) } }],
 * })
 * const result = await family.run(
 *   { children: [{ member: 'researcher', prompt: 'Find it.', tools: ['search'], scopes: ['web'], attempts: 2 }] },
 *   { attemptBudget: new AttemptBudget(5) },
 * )
 * // result.children[0].status === 'done'; result.attempts === 2
 * ```
 *
 * @module
 */
export {
  type AgentFamily,
  type AgentFamilyDefinition,
  DEFAULT_FAMILY_CONCURRENCY,
  defineAgentFamily,
} from './define-agent-family.js'
export {
  FamilyChildError,
  type FamilyChildErrorDetails,
  FamilyGrantError,
  type FamilyGrantErrorDetails,
} from './family-errors.js'
export type {
  FamilyAgentMember,
  FamilyBranch,
  FamilyChildReport,
  FamilyChildReportBase,
  FamilyChildRequest,
  FamilyGrant,
  FamilyMember,
  FamilyResult,
  FamilyRunMember,
  FamilyRunRequest,
  FamilySpawnRequest,
  FamilyTokens,
} from './family-types.js'
