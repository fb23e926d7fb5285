/**
 * Policy sets: declare named policies (`id`, `description`, a synchronous `when` predicate and the name of
 * the App handler responsible for a match) and assess an input against all of them at once. `assess`
 * reports every matching policy in declaration order instead of stopping at the first match, so an App can show all
 * the reasons a request needs attention. Pure and synchronous: no signal, no context, no I/O.
 *
 * @example
 * ```ts
 * import { definePolicySet } from '@agent-core/kits/policies'
 * const policies = definePolicySet([
 *   { id: 'large', description: 'Refunds above 500 need approval.', handler: 'ask-approval', when: (r: { amount: number }) => r.amount > 500 },
 * ])
 * policies.assess({ amount: 900 }) // [{ policyId: 'large', description: '...', handler: 'ask-approval' }]
 * ```
 *
 * @module
 */
export { definePolicySet, type PolicyDefinition, type PolicyReason, type PolicySet } from './policy-set.js'
