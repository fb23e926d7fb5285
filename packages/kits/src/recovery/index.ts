/**
 * Recovery chains: an ordered list of steps that each look at a failure (the caller's input) and either
 * take over explicitly with `{ handled: true, value }` or decline with `{ handled: false }`. The first
 * step that takes over wins. A failure never disappears by accident: a step that throws propagates its
 * error, a step that returns anything but a decision is rejected, and when no step takes over the
 * caller gets `{ handled: false }` and handles the original failure itself. The handled flag keeps a
 * deliberate `undefined` result distinct from "not recovered". Pure and synchronous: no signal, no I/O.
 *
 * @example
 * ```ts
 * import { defineRecoveryChain } from '@agent-core/kits/recovery'
 * const chain = defineRecoveryChain([
 *   { id: 'empty-is-zero', recover: (error: unknown) => (error === 'empty' ? { handled: true, value: 0 } : { handled: false }) },
 * ])
 * chain.tryRecover('empty') // { handled: true, value: 0, recoveredBy: 'empty-is-zero' }
 * chain.tryRecover('other') // { handled: false }
 * ```
 *
 * @module
 */
export {
  defineRecoveryChain,
  type RecoveryChain,
  type RecoveryDecision,
  type RecoveryDefinition,
  type RecoveryResult,
} from './recovery-chain.js'
