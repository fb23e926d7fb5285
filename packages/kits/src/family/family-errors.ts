import { AgentCoreError, type ErrorDetails } from '@agent-core/core'

/**
 * Details of a {@link FamilyGrantError}.
 * @example
 * ```ts
 * import { FamilyGrantError, type FamilyGrantErrorDetails } from '@agent-core/kits/family'
 * function refusedGrant(error: unknown): FamilyGrantErrorDetails | undefined {
 *   return FamilyGrantError.isInstance(error) ? error.details : undefined
 * }
 * ```
 */
export interface FamilyGrantErrorDetails extends ErrorDetails {
  /** Where the child asked for it, as the caller wrote it: `"children[1].tools[0]"`. */
  readonly field: string
  /** The tool or scope id the parent lacks. */
  readonly id: string
  /** What was asked for: a `tool` or a `scope`. */
  readonly kind: 'tool' | 'scope'
  /** The child that asked. */
  readonly childId: string
  /** What the parent holds of that kind. */
  readonly held: readonly string[]
}

/**
 * A child asked for a tool or a scope its parent does not hold. A child only ever gets a subset of its
 * parent's tools and scopes; nothing was spawned and no budget was taken.
 * @example
 * ```ts
 * import { FamilyGrantError } from '@agent-core/kits/family'
 * function explain(error: unknown) {
 *   if (FamilyGrantError.isInstance(error)) console.log(`${error.details.childId} may not have ${error.details.kind} ${error.details.id}`)
 * }
 * ```
 */
export class FamilyGrantError extends AgentCoreError<FamilyGrantErrorDetails> {
  static override readonly code = 'family-grant-refused'
  declare readonly code: 'family-grant-refused'
  constructor(
    message: string,
    options: { readonly details: FamilyGrantErrorDetails; readonly cause?: unknown },
  ) {
    super('family-grant-refused', message, options)
  }
}

/**
 * Details of a {@link FamilyChildError}.
 * @example
 * ```ts
 * import { FamilyChildError, type FamilyChildErrorDetails } from '@agent-core/kits/family'
 * function incompleteChild(error: unknown): FamilyChildErrorDetails | undefined {
 *   return FamilyChildError.isInstance(error) ? error.details : undefined
 * }
 * ```
 */
export interface FamilyChildErrorDetails extends ErrorDetails {
  /** The child whose run ended without an answer. */
  readonly childId: string
  /** The member that ran it. */
  readonly member: string
  /** How the child's agent run ended: `turn-limit`, `token-limit` or `suspended`. */
  readonly reason: string
}

/**
 * An agent child's run ended without an answer: at its turn or token limit, or suspended waiting for a
 * person. The child is reported `failed` with this error; its run (text so far, usage, state) is in the
 * report's `run`.
 * @example
 * ```ts
 * import { FamilyChildError } from '@agent-core/kits/family'
 * function explain(error: unknown) {
 *   if (FamilyChildError.isInstance(error)) console.log(`${error.details.childId}: ${error.details.reason}`)
 * }
 * ```
 */
export class FamilyChildError extends AgentCoreError<FamilyChildErrorDetails> {
  static override readonly code = 'family-child-incomplete'
  declare readonly code: 'family-child-incomplete'
  constructor(
    message: string,
    options: { readonly details: FamilyChildErrorDetails; readonly cause?: unknown },
  ) {
    super('family-child-incomplete', message, options)
  }
}
