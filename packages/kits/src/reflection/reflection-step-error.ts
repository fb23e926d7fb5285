import { AgentCoreError, type ErrorDetails } from '@agent-core/core'

/**
 * Which step of a reflection: the `drafter` writes the first draft, the `critic` gives its verdict, the
 * `reviser` rewrites the draft from the critic's issues.
 * @example
 * ```ts
 * import type { ReflectionStepName } from '@agent-core/kits/reflection'
 * const step: ReflectionStepName = 'critic'
 * ```
 */
export type ReflectionStepName = 'drafter' | 'critic' | 'reviser'

/**
 * Details of a {@link ReflectionStepError}.
 * @example
 * ```ts
 * import { ReflectionStepError, type ReflectionStepErrorDetails } from '@agent-core/kits/reflection'
 * function incompleteStep(error: unknown): ReflectionStepErrorDetails | undefined {
 *   return ReflectionStepError.isInstance(error) ? error.details : undefined
 * }
 * ```
 */
export interface ReflectionStepErrorDetails extends ErrorDetails {
  /** The step whose agent run ended without an answer. */
  readonly step: ReflectionStepName
  /** The round it was in, from 1. */
  readonly round: number
  /** How the step's agent run ended: `turn-limit`, `token-limit` or `suspended`. */
  readonly reason: string
}

/**
 * A step that is a loop agent ended its run without an answer (at its turn or token limit, or suspended
 * waiting for a person). The reflection ends with reason `error` and this error; what the run spent is
 * counted in the reflection's usage.
 * @example
 * ```ts
 * import { ReflectionStepError } from '@agent-core/kits/reflection'
 * function explain(error: unknown) {
 *   if (ReflectionStepError.isInstance(error)) console.log(`${error.details.step} stopped: ${error.details.reason}`)
 * }
 * ```
 */
export class ReflectionStepError extends AgentCoreError<ReflectionStepErrorDetails> {
  static override readonly code = 'reflection-step-incomplete'
  declare readonly code: 'reflection-step-incomplete'
  constructor(
    message: string,
    options: { readonly details: ReflectionStepErrorDetails; readonly cause?: unknown },
  ) {
    super('reflection-step-incomplete', message, options)
  }
}
