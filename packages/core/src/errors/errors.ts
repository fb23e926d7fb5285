import type { SchemaIssue } from '../json-schema.js'
import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from './agent-core-error.js'

/**
 * Every error code agent-core's own classes use. Kits add codes of their own as string literals.
 * @example
 * ```ts
 * import { AgentCoreError, type AgentCoreErrorCode } from '@agent-core/core'
 * const retryable: readonly AgentCoreErrorCode[] = ['timeout', 'conflict']
 * const shouldRetry = (error: unknown) =>
 *   AgentCoreError.isInstance(error) && (retryable as readonly string[]).includes(error.code)
 * ```
 */
export type AgentCoreErrorCode =
  | 'duplicate-id'
  | 'unknown-id'
  | 'invalid-id'
  | 'registry-sealed'
  | 'invalid-definition'
  | 'invalid-input'
  | 'invalid-output'
  | 'invalid-state'
  | 'aborted'
  | 'timeout'
  | 'budget-exhausted'
  | 'unauthorized'
  | 'rejected-thenable'
  | 'conflict'

/**
 * Details of errors about a registration id ({@link DuplicateIdError}, {@link UnknownIdError}, ...).
 * @example
 * ```ts
 * import { UnknownIdError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (UnknownIdError.isInstance(error)) console.log(`no ${error.details.kind} "${error.details.id}"`)
 * ```
 */
export interface IdErrorDetails extends ErrorDetails {
  /** The id (or a description of the value given as id). */
  readonly id?: string
  /** What the registry holds, e.g. `"tool"`. */
  readonly kind?: string
  /** The ids that are registered ({@link UnknownIdError}). */
  readonly known?: readonly string[]
  /** The pattern ids must match ({@link InvalidIdError}). */
  readonly pattern?: string | undefined
}

/**
 * Details of validation errors ({@link InvalidInputError}, {@link InvalidDefinitionError}, ...): `field`
 * names the offending field as the caller wrote it, `received` describes what was refused.
 * @example
 * ```ts
 * import { InvalidInputError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidInputError.isInstance(error)) console.log(`${error.details.field}: got ${error.details.received}`)
 * ```
 */
export interface ValidationErrorDetails extends ErrorDetails {
  /** The offending field or argument, as the caller wrote it: `"limit"`, `"request.query"`, `"signal"`. */
  readonly field?: string
  /** A short description of the value that was refused (never the value itself). */
  readonly received?: string
  /** Inclusive bounds of a number that was out of range. */
  readonly min?: number
  readonly max?: number
  /** Every problem, when a schema found several. */
  readonly issues?: readonly SchemaIssue[]
  /** The hook whose answer was refused ({@link InvalidOutputError}). */
  readonly hook?: string
  /** A short description of what that hook returned (never the value itself). */
  readonly returned?: string
  /** The id of the definition or registration the refused field belongs to. */
  readonly id?: string
  /** What that definition is, e.g. `"policy"`. */
  readonly kind?: string
  /** The position of the refused item in the list the caller gave (0-based). */
  readonly index?: number
}

/**
 * Details of {@link AbortedError}.
 * @example
 * ```ts
 * import { AbortedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (AbortedError.isInstance(error)) console.log(`cancelled ${error.details.point}`)
 * ```
 */
export interface AbortedErrorDetails extends ErrorDetails {
  /** Where the cancellation was observed, e.g. `"before save"`. */
  readonly point?: string
}

/**
 * Details of {@link TimeoutError}.
 * @example
 * ```ts
 * import { TimeoutError } from '@agent-core/core'
 * throw new TimeoutError('The model call "draft" took longer than 5000 ms.', {
 *   details: { timeoutMs: 5000, what: 'model call "draft"' },
 * })
 * ```
 */
export interface TimeoutErrorDetails extends ErrorDetails {
  readonly timeoutMs?: number
  /** What timed out, e.g. `model call "draft"`. */
  readonly what?: string
}

/**
 * Details of {@link BudgetExhaustedError}.
 * @example
 * ```ts
 * import { BudgetExhaustedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (BudgetExhaustedError.isInstance(error)) console.log(`${error.details.used} of ${error.details.limit} used`)
 * ```
 */
export interface BudgetErrorDetails extends ErrorDetails {
  readonly limit?: number
  readonly used?: number
  readonly label?: string | undefined
  /** How much was asked for at once, when more than one unit was ({@link AttemptBudget.takeMany}). */
  readonly requested?: number
}

/**
 * Details of {@link RejectedThenableError}.
 * @example
 * ```ts
 * import { RejectedThenableError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (RejectedThenableError.isInstance(error)) console.log(`${error.details.hook} must be synchronous`)
 * ```
 */
export interface HookErrorDetails extends ErrorDetails {
  /** The synchronous hook that returned a thenable. */
  readonly hook?: string
}

/**
 * A registration used an id that is already registered.
 * @example
 * ```ts
 * import { DuplicateIdError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (DuplicateIdError.isInstance(error)) console.log(`already registered: ${error.details.id}`)
 * ```
 */
export class DuplicateIdError extends AgentCoreError<IdErrorDetails> {
  static override readonly code = 'duplicate-id'
  declare readonly code: 'duplicate-id'
  constructor(message: string, options?: AgentCoreErrorOptions<IdErrorDetails>) {
    super('duplicate-id', message, options)
  }
}
/**
 * A lookup named an id that is not registered.
 * @example
 * ```ts
 * import { UnknownIdError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (UnknownIdError.isInstance(error)) console.log(error.details.known)
 * ```
 */
export class UnknownIdError extends AgentCoreError<IdErrorDetails> {
  static override readonly code = 'unknown-id'
  declare readonly code: 'unknown-id'
  constructor(message: string, options?: AgentCoreErrorOptions<IdErrorDetails>) {
    super('unknown-id', message, options)
  }
}
/**
 * An id is not a non-empty string, or does not match the registry's `idPattern`.
 * @example
 * ```ts
 * import { InvalidIdError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidIdError.isInstance(error)) console.log(error.details.pattern)
 * ```
 */
export class InvalidIdError extends AgentCoreError<IdErrorDetails> {
  static override readonly code = 'invalid-id'
  declare readonly code: 'invalid-id'
  constructor(message: string, options?: AgentCoreErrorOptions<IdErrorDetails>) {
    super('invalid-id', message, options)
  }
}
/**
 * A registration came after `seal()`.
 * @example
 * ```ts
 * import { RegistrySealedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (RegistrySealedError.isInstance(error)) console.log('build a new registry instead')
 * ```
 */
export class RegistrySealedError extends AgentCoreError<IdErrorDetails> {
  static override readonly code = 'registry-sealed'
  declare readonly code: 'registry-sealed'
  constructor(message: string, options?: AgentCoreErrorOptions<IdErrorDetails>) {
    super('registry-sealed', message, options)
  }
}
/**
 * A definition (tool, step, stage, policy, ...) is malformed.
 * @example
 * ```ts
 * import { InvalidDefinitionError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidDefinitionError.isInstance(error)) console.log(error.message)
 * ```
 */
export class InvalidDefinitionError extends AgentCoreError<ValidationErrorDetails> {
  static override readonly code = 'invalid-definition'
  declare readonly code: 'invalid-definition'
  constructor(message: string, options?: AgentCoreErrorOptions<ValidationErrorDetails>) {
    super('invalid-definition', message, options)
  }
}
/**
 * A call's input failed validation. `details.issues` lists each problem when there are several.
 * @example
 * ```ts
 * import { InvalidInputError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidInputError.isInstance(error)) console.log(error.details.issues)
 * ```
 */
export class InvalidInputError extends AgentCoreError<ValidationErrorDetails> {
  static override readonly code = 'invalid-input'
  declare readonly code: 'invalid-input'
  constructor(message: string, options?: AgentCoreErrorOptions<ValidationErrorDetails>) {
    super('invalid-input', message, options)
  }
}
/**
 * A hook, handler, tool or model returned a value that failed validation.
 * @example
 * ```ts
 * import { InvalidOutputError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidOutputError.isInstance(error)) console.log(error.details.issues)
 * ```
 */
export class InvalidOutputError extends AgentCoreError<ValidationErrorDetails> {
  static override readonly code = 'invalid-output'
  declare readonly code: 'invalid-output'
  constructor(message: string, options?: AgentCoreErrorOptions<ValidationErrorDetails>) {
    super('invalid-output', message, options)
  }
}
/**
 * Persisted or carried state is not what the definition accepts (corrupt, foreign or out of range).
 * @example
 * ```ts
 * import { InvalidStateError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (InvalidStateError.isInstance(error)) console.log(error.details)
 * ```
 */
export class InvalidStateError extends AgentCoreError<ValidationErrorDetails> {
  static override readonly code = 'invalid-state'
  declare readonly code: 'invalid-state'
  constructor(message: string, options?: AgentCoreErrorOptions<ValidationErrorDetails>) {
    super('invalid-state', message, options)
  }
}
/**
 * The operation's signal was aborted. `details.point` names where the cancellation was observed and
 * `cause` holds the signal's reason.
 * @example
 * ```ts
 * import { AbortedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (AbortedError.isInstance(error)) console.log(`cancelled at ${error.details.point}`)
 * ```
 */
export class AbortedError extends AgentCoreError<AbortedErrorDetails> {
  static override readonly code = 'aborted'
  declare readonly code: 'aborted'
  constructor(message: string, options?: AgentCoreErrorOptions<AbortedErrorDetails>) {
    super('aborted', message, options)
  }
}
/**
 * An operation did not finish within its time limit.
 * @example
 * ```ts
 * import { TimeoutError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (TimeoutError.isInstance(error)) console.log(error.details.timeoutMs)
 * ```
 */
export class TimeoutError extends AgentCoreError<TimeoutErrorDetails> {
  static override readonly code = 'timeout'
  declare readonly code: 'timeout'
  constructor(message: string, options?: AgentCoreErrorOptions<TimeoutErrorDetails>) {
    super('timeout', message, options)
  }
}
/**
 * A budget (attempts, calls, tokens, quota) has no room for the requested use.
 * @example
 * ```ts
 * import { BudgetExhaustedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (BudgetExhaustedError.isInstance(error)) console.log(error.details.limit)
 * ```
 */
export class BudgetExhaustedError extends AgentCoreError<BudgetErrorDetails> {
  static override readonly code = 'budget-exhausted'
  declare readonly code: 'budget-exhausted'
  constructor(message: string, options?: AgentCoreErrorOptions<BudgetErrorDetails>) {
    super('budget-exhausted', message, options)
  }
}
/**
 * An authorization hook refused the operation.
 * @example
 * ```ts
 * import { UnauthorizedError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (UnauthorizedError.isInstance(error)) console.log(error.message)
 * ```
 */
export class UnauthorizedError extends AgentCoreError<ErrorDetails> {
  static override readonly code = 'unauthorized'
  declare readonly code: 'unauthorized'
  constructor(message: string, options?: AgentCoreErrorOptions<ErrorDetails>) {
    super('unauthorized', message, options)
  }
}
/**
 * A hook that must be synchronous returned a Promise or other thenable. Its eventual rejection is
 * consumed so it cannot surface as an unhandled rejection.
 * @example
 * ```ts
 * import { RejectedThenableError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (RejectedThenableError.isInstance(error)) console.log(`${error.details.hook} must not be async`)
 * ```
 */
export class RejectedThenableError extends AgentCoreError<HookErrorDetails> {
  static override readonly code = 'rejected-thenable'
  declare readonly code: 'rejected-thenable'
  constructor(message: string, options?: AgentCoreErrorOptions<HookErrorDetails>) {
    super('rejected-thenable', message, options)
  }
}
/**
 * A write lost a race: another owner changed the record first (optimistic concurrency, superseded lock).
 * @example
 * ```ts
 * import { ConflictError } from '@agent-core/core'
 * declare const error: unknown // a caught error
 * if (ConflictError.isInstance(error)) console.log('reload and retry')
 * ```
 */
export class ConflictError extends AgentCoreError<ErrorDetails> {
  static override readonly code = 'conflict'
  declare readonly code: 'conflict'
  constructor(message: string, options?: AgentCoreErrorOptions<ErrorDetails>) {
    super('conflict', message, options)
  }
}
