/**
 * Domains: which goals an agent can pursue, where, and with what. An {@link IntentRegistry} declares which
 * core tools are intents (goals), each with a scope policy, a target policy, optional delegates and task
 * constraints; a {@link ScopeRegistry} declares the App's business areas (their goals, tools, the scopes
 * they may query, knowledge topics and business names), checked against the real tool registry; and
 * {@link defineAgentCatalog} projects, for the current task `{ goalId, scopeId? }`, the tools it may call,
 * the scopes it may reference and the knowledge that applies.
 *
 * @example
 * ```ts
 * import { defineAgentCatalog, IntentRegistry, ScopeRegistry } from '@agent-core/kits/domains'
 * import type { IntentTool } from '@agent-core/kits/domains'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const refundIntent: IntentTool
 * declare const tools: ToolLifecycleRegistry
 * const intents = IntentRegistry.create([refundIntent])
 * const scopes = ScopeRegistry.create([{ id: 'billing', goalIds: ['refund_order'], toolIds: ['lookup_order'] }], { tools })
 * const catalog = defineAgentCatalog({ tools, intents, scopes })
 * catalog.project({ goalId: 'refund_order', scopeId: 'billing' }).toolIds // ['refund_order', 'lookup_order']
 * ```
 *
 * @module
 */
export {
  type AgentCatalog,
  type AgentTask,
  defineAgentCatalog,
  type TaskProjection,
} from './agent-catalog.js'
export { type IntentPolicies, IntentRegistry, type IntentRegistryPolicy } from './intent-registry.js'
export {
  defineIntentTool,
  type IntentDeclaration,
  type IntentTool,
  type ScopePolicy,
  type TargetPolicy,
} from './intent-tool.js'
export type { IdSource } from './internal/id-list.js'
export {
  type ScopeDefinition,
  type ScopeLists,
  ScopeRegistry,
  type ScopeRegistryPolicy,
} from './scope-registry.js'
