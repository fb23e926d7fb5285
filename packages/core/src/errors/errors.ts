import { AgentCoreError, type AgentCoreErrorOptions } from './agent-core-error.js'

/** Every error code agent-core's own classes use. Kits add codes of their own as string literals. */
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

function defineErrorClass<const Code extends AgentCoreErrorCode>(code: Code) {
  return class extends AgentCoreError {
    static override readonly code: Code = code
    declare readonly code: Code
    constructor(message: string, options?: AgentCoreErrorOptions) {
      super(code, message, options)
    }
  }
}

/**
 * A registration used an id that is already registered.
 * @example
 * ```ts
 * import { DuplicateIdError } from '@agent-core/core'
 * if (DuplicateIdError.isInstance(error)) console.log(`already registered: ${error.details.id}`)
 * ```
 */
export class DuplicateIdError extends defineErrorClass('duplicate-id') {}
/**
 * A lookup named an id that is not registered.
 * @example
 * ```ts
 * import { UnknownIdError } from '@agent-core/core'
 * if (UnknownIdError.isInstance(error)) console.log(error.details.known)
 * ```
 */
export class UnknownIdError extends defineErrorClass('unknown-id') {}
/**
 * An id is not a non-empty string, or does not match the registry's `idPattern`.
 * @example
 * ```ts
 * import { InvalidIdError } from '@agent-core/core'
 * if (InvalidIdError.isInstance(error)) console.log(error.details.pattern)
 * ```
 */
export class InvalidIdError extends defineErrorClass('invalid-id') {}
/**
 * A registration came after `seal()`.
 * @example
 * ```ts
 * import { RegistrySealedError } from '@agent-core/core'
 * if (RegistrySealedError.isInstance(error)) console.log('build a new registry instead')
 * ```
 */
export class RegistrySealedError extends defineErrorClass('registry-sealed') {}
/**
 * A definition (tool, step, stage, policy, ...) is malformed.
 * @example
 * ```ts
 * import { InvalidDefinitionError } from '@agent-core/core'
 * if (InvalidDefinitionError.isInstance(error)) console.log(error.message)
 * ```
 */
export class InvalidDefinitionError extends defineErrorClass('invalid-definition') {}
/**
 * A call's input failed validation. `details.issues` lists each problem when there are several.
 * @example
 * ```ts
 * import { InvalidInputError } from '@agent-core/core'
 * if (InvalidInputError.isInstance(error)) console.log(error.details.issues)
 * ```
 */
export class InvalidInputError extends defineErrorClass('invalid-input') {}
/**
 * A hook, handler, tool or model returned a value that failed validation.
 * @example
 * ```ts
 * import { InvalidOutputError } from '@agent-core/core'
 * if (InvalidOutputError.isInstance(error)) console.log(error.details.issues)
 * ```
 */
export class InvalidOutputError extends defineErrorClass('invalid-output') {}
/**
 * Persisted or carried state is not what the definition accepts (corrupt, foreign or out of range).
 * @example
 * ```ts
 * import { InvalidStateError } from '@agent-core/core'
 * if (InvalidStateError.isInstance(error)) console.log(error.details)
 * ```
 */
export class InvalidStateError extends defineErrorClass('invalid-state') {}
/**
 * The operation's signal was aborted. `details.point` names where the cancellation was observed and
 * `cause` holds the signal's reason.
 * @example
 * ```ts
 * import { AbortedError } from '@agent-core/core'
 * if (AbortedError.isInstance(error)) console.log(`cancelled at ${error.details.point}`)
 * ```
 */
export class AbortedError extends defineErrorClass('aborted') {}
/**
 * An operation did not finish within its time limit.
 * @example
 * ```ts
 * import { TimeoutError } from '@agent-core/core'
 * if (TimeoutError.isInstance(error)) console.log(error.details.timeoutMs)
 * ```
 */
export class TimeoutError extends defineErrorClass('timeout') {}
/**
 * A budget (attempts, calls, tokens, quota) has no room for the requested use.
 * @example
 * ```ts
 * import { BudgetExhaustedError } from '@agent-core/core'
 * if (BudgetExhaustedError.isInstance(error)) console.log(error.details.limit)
 * ```
 */
export class BudgetExhaustedError extends defineErrorClass('budget-exhausted') {}
/**
 * An authorization hook refused the operation.
 * @example
 * ```ts
 * import { UnauthorizedError } from '@agent-core/core'
 * if (UnauthorizedError.isInstance(error)) console.log(error.message)
 * ```
 */
export class UnauthorizedError extends defineErrorClass('unauthorized') {}
/**
 * A hook that must be synchronous returned a Promise or other thenable. Its eventual rejection is
 * consumed so it cannot surface as an unhandled rejection.
 * @example
 * ```ts
 * import { RejectedThenableError } from '@agent-core/core'
 * if (RejectedThenableError.isInstance(error)) console.log(`${error.details.hook} must not be async`)
 * ```
 */
export class RejectedThenableError extends defineErrorClass('rejected-thenable') {}
/**
 * A write lost a race: another owner changed the record first (optimistic concurrency, superseded lock).
 * @example
 * ```ts
 * import { ConflictError } from '@agent-core/core'
 * if (ConflictError.isInstance(error)) console.log('reload and retry')
 * ```
 */
export class ConflictError extends defineErrorClass('conflict') {}
