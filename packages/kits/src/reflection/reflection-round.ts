import type { ModelUsage } from '@agent-core/core'
import type { StructuredAttempt } from '@agent-core/kits/models'
import type { ReflectionVerdict } from './verdict.js'

/**
 * One round of a reflection: a draft and the critic's verdict on it. Round 1 reviews the first draft
 * (`by: 'drafter'`, or `'request'` when the run was given one); each later round reviews the reviser's
 * rewrite of the draft before it. `verdict` is missing only in a last round that ended before the critic
 * answered (a budget, a signal or a failure stopped it).
 * @example
 * ```ts
 * import type { ReflectionRound } from '@agent-core/kits/reflection'
 * function line(round: ReflectionRound): string {
 *   return `round ${round.round} (${round.by}): ${round.verdict?.decision ?? 'no verdict'}`
 * }
 * ```
 */
export interface ReflectionRound {
  /** From 1. */
  readonly round: number
  /** Who wrote the draft. */
  readonly by: 'request' | 'drafter' | 'reviser'
  readonly draft: string
  readonly verdict: ReflectionVerdict | undefined
  /** The critic's replies this round that did not match the verdict schema and were corrected, oldest first. */
  readonly refused: readonly StructuredAttempt[]
  /** Tokens spent on this round's draft and verdict, as the steps reported them. */
  readonly usage: ModelUsage
  /** Attempts this round took from `context.attemptBudget` (0 without one). */
  readonly attempts: number
}
