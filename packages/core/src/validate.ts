import { type AgentCoreError, type AgentCoreErrorOptions, describeValue } from './errors/agent-core-error.js'
import { InvalidInputError, type ValidationErrorDetails } from './errors/errors.js'

/**
 * A validation error class a check may throw instead of {@link InvalidInputError}: {@link InvalidDefinitionError}
 * for a definition, {@link InvalidStateError}, {@link InvalidOutputError}, or a kit's own class of the same shape.
 * @example
 * ```ts
 * import { assertFunction, InvalidDefinitionError, type ValidationErrorClass } from '@agent-core/core'
 * declare const definition: Record<string, unknown> // what a caller passed
 * const error: ValidationErrorClass = InvalidDefinitionError
 * assertFunction(definition.run, 'run', { where: 'step "charge"', error })
 * ```
 */
export type ValidationErrorClass = new (
  message: string,
  options?: AgentCoreErrorOptions<ValidationErrorDetails>,
) => AgentCoreError<ValidationErrorDetails>

/**
 * How a failed check reports itself. Every `assert*` helper builds its message as
 * `[where: ]field must be <what>, but got <received>.[ hint]` and its details as
 * `{ ...details, field, received }`.
 * @example
 * ```ts
 * import { assertNonEmptyString, type CheckOptions, InvalidDefinitionError } from '@agent-core/core'
 * declare const policy: Record<string, unknown> // what a caller passed
 * const options: CheckOptions = {
 *   where: 'policy "refunds"',
 *   error: InvalidDefinitionError,
 *   details: { id: 'refunds' },
 *   hint: 'Name the App handler that deals with a match.',
 * }
 * assertNonEmptyString(policy.handler, 'handler', options)
 * // InvalidDefinitionError: policy "refunds": handler must be a non-empty string, but got undefined. Name the ...
 * ```
 */
export interface CheckOptions {
  /** Who is checking, written before the field: `"TextBlocks.split"` gives `TextBlocks.split: targetChars must be ...`. */
  readonly where?: string
  /** The sentence that says what to do, appended to the message: `"Pass a whole number such as 2000."`. */
  readonly hint?: string
  /** The class to throw. Default: {@link InvalidInputError} (an argument of a call). */
  readonly error?: ValidationErrorClass
  /** More details beside `field` and `received`, such as the `id` of the definition being checked. */
  readonly details?: ValidationErrorDetails
}

/**
 * Bounds for {@link assertSafeInteger}, and how it reports a refused value.
 * @example
 * ```ts
 * import { assertSafeInteger, type IntegerBounds } from '@agent-core/core'
 * declare const request: Record<string, unknown> // what a caller passed
 * const timeout: IntegerBounds = { min: 1, max: 2_147_483_647, hint: 'Pass milliseconds, such as 5000.' }
 * assertSafeInteger(request.timeoutMs, 'timeoutMs', timeout)
 * ```
 */
export interface IntegerBounds extends CheckOptions {
  /** Smallest accepted value (inclusive); default `Number.MIN_SAFE_INTEGER`. */
  readonly min?: number
  /** Largest accepted value (inclusive); default `Number.MAX_SAFE_INTEGER`. */
  readonly max?: number
}

/**
 * Options of {@link assertObject}.
 * @example
 * ```ts
 * import { assertObject, type ObjectCheckOptions } from '@agent-core/core'
 * declare const request: Record<string, unknown> // what a caller passed
 * const options: ObjectCheckOptions = { arrays: false, where: 'search', hint: 'Pass { query, limit }.' }
 * assertObject(request, 'request', options)
 * ```
 */
export interface ObjectCheckOptions extends CheckOptions {
  /** Whether an array is accepted as the object (default `true`); `false` asks for a non-array object. */
  readonly arrays?: boolean
}

function refuse(
  field: string,
  what: string,
  value: unknown,
  options: CheckOptions,
  extra: ValidationErrorDetails = {},
): AgentCoreError<ValidationErrorDetails> {
  const { where, hint, error: ErrorClass = InvalidInputError, details } = options
  const received = describeValue(value)
  return new ErrorClass(
    `${where ? `${where}: ` : ''}${field} must be ${what}, but got ${received}.${hint ? ` ${hint}` : ''}`,
    {
      details: { ...details, field, ...extra, received },
    },
  )
}

/**
 * Checks that `value` is a safe integer within `[min, max]` (both inclusive, default: any safe integer).
 * NaN, Infinity, fractions, unsafe integers, strings and bigints are rejected.
 *
 * @param value - the value to check
 * @param field - the offending field as the caller wrote it, e.g. `"limit"` (`details.field`)
 * @param bounds - `min`, `max` and how to report a refusal ({@link CheckOptions})
 * @throws {@link InvalidInputError} (or `bounds.error`) with `details.field`, `details.min`, `details.max`,
 * `details.received`
 * @example
 * ```ts
 * import { assertSafeInteger, InvalidDefinitionError } from '@agent-core/core'
 * declare const definition: Record<string, unknown> // what a caller passed
 * declare const request: Record<string, unknown> // what a caller passed
 * assertSafeInteger(request.limit, 'limit', { min: 0 })
 * assertSafeInteger(definition.maxCandidates, 'maxCandidates', {
 *   min: 1,
 *   error: InvalidDefinitionError,
 *   hint: 'Configure it explicitly, for example maxCandidates: 3.',
 * })
 * ```
 */
export function assertSafeInteger(
  value: unknown,
  field: string,
  bounds: IntegerBounds = {},
): asserts value is number {
  const min = bounds.min ?? Number.MIN_SAFE_INTEGER
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range =
      bounds.min !== undefined && bounds.max !== undefined
        ? `from ${min} to ${max}`
        : bounds.min === 0
          ? 'that is not negative'
          : bounds.min === 1
            ? 'of at least 1'
            : bounds.min !== undefined
              ? `of at least ${min}`
              : bounds.max !== undefined
                ? `of at most ${max}`
                : ''
    throw refuse(field, range ? `a safe integer ${range}` : 'a safe integer', value, bounds, { min, max })
  }
}

/**
 * Checks that `value` is a non-empty string.
 *
 * @param value - the value to check
 * @param field - the offending field as the caller wrote it, e.g. `"taskId"`
 * @param options - how to report a refusal ({@link CheckOptions})
 * @throws {@link InvalidInputError} (or `options.error`) with `details.field` and `details.received`
 * @example
 * ```ts
 * import { assertNonEmptyString } from '@agent-core/core'
 * declare const request: Record<string, unknown> // what a caller passed
 * assertNonEmptyString(request.taskId, 'taskId', { where: 'task.run', hint: 'Pass the id of the task.' })
 * ```
 */
export function assertNonEmptyString(
  value: unknown,
  field: string,
  options: CheckOptions = {},
): asserts value is string {
  if (typeof value !== 'string' || value.length === 0)
    throw refuse(field, 'a non-empty string', value, options)
}

/**
 * Checks that `value` is a function.
 *
 * @param value - the value to check
 * @param field - the offending field as the caller wrote it, e.g. `"run"`
 * @param options - how to report a refusal ({@link CheckOptions})
 * @throws {@link InvalidInputError} (or `options.error`) with `details.field` and `details.received`
 * @example
 * ```ts
 * import { assertFunction, InvalidDefinitionError } from '@agent-core/core'
 * declare const step: Record<string, unknown> // what a caller passed
 * assertFunction(step.run, 'run', { where: 'step "charge"', error: InvalidDefinitionError })
 * ```
 */
export function assertFunction(
  value: unknown,
  field: string,
  options: CheckOptions = {},
): asserts value is (...args: never[]) => unknown {
  if (typeof value !== 'function') throw refuse(field, 'a function', value, options)
}

/**
 * Checks that `value` is a non-null object (functions excluded; arrays included unless `arrays: false`).
 *
 * @param value - the value to check
 * @param field - the offending field or argument as the caller wrote it, e.g. `"request"`
 * @param options - `arrays` and how to report a refusal ({@link CheckOptions})
 * @throws {@link InvalidInputError} (or `options.error`) with `details.field` and `details.received`
 * @example
 * ```ts
 * import { assertObject } from '@agent-core/core'
 * declare const request: Record<string, unknown> // what a caller passed
 * assertObject(request, 'request', { where: 'search', arrays: false, hint: 'Pass { query, limit }.' })
 * ```
 */
export function assertObject(
  value: unknown,
  field: string,
  options: ObjectCheckOptions = {},
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || (options.arrays === false && Array.isArray(value)))
    throw refuse(field, options.arrays === false ? 'an object (not an array)' : 'an object', value, options)
}

/**
 * True for a signal-like object (an `AbortSignal` or a compatible object with `aborted` and
 * `addEventListener`).
 * @example
 * ```ts
 * import { isAbortSignal } from '@agent-core/core'
 * isAbortSignal(new AbortController().signal) // true
 * isAbortSignal({ aborted: false }) // false
 * ```
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  )
}

/**
 * True for an object that is neither `null` nor an array: the shape of a JSON object, a definition or an
 * option bag before its fields are read. Class instances count (check the prototype where that matters).
 * @example
 * ```ts
 * import { isRecord } from '@agent-core/core'
 * declare const body: unknown // a parsed request body
 * const model = isRecord(body) && typeof body.model === 'string' ? body.model : 'default'
 * isRecord([]) // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
