import { describeValue } from './errors/agent-core-error.js'
import { InvalidInputError } from './errors/errors.js'

/** Bounds for {@link assertSafeInteger}. */
export interface IntegerBounds {
  readonly min?: number
  readonly max?: number
}

/**
 * Checks that `value` is a safe integer within `[min, max]` (both inclusive, default: any safe integer).
 * NaN, Infinity, fractions, unsafe integers, strings and bigints are rejected.
 *
 * @param name - how the value is named in the error, e.g. `"limit"`
 * @throws {@link InvalidInputError} with `details.field`, `details.min`, `details.max`
 * @example
 * ```ts
 * import { assertSafeInteger } from '@agent-core/core'
 * assertSafeInteger(request.limit, 'limit', { min: 0 })
 * ```
 */
export function assertSafeInteger(
  value: unknown,
  name: string,
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
    const what = range ? `a safe integer ${range}` : 'a safe integer'
    throw new InvalidInputError(`${name} must be ${what}, but got ${describeValue(value)}.`, {
      details: { field: name, min, max, received: describeValue(value) },
    })
  }
}

/**
 * Checks that `value` is a non-empty string.
 * @example
 * ```ts
 * import { assertNonEmptyString } from '@agent-core/core'
 * assertNonEmptyString(request.taskId, 'taskId')
 * ```
 */
export function assertNonEmptyString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidInputError(`${name} must be a non-empty string, but got ${describeValue(value)}.`, {
      details: { field: name, received: describeValue(value) },
    })
  }
}

/**
 * Checks that `value` is a function.
 * @example
 * ```ts
 * import { assertFunction } from '@agent-core/core'
 * assertFunction(definition.run, 'step "charge" run')
 * ```
 */
export function assertFunction(value: unknown, name: string): asserts value is (...args: never[]) => unknown {
  if (typeof value !== 'function') {
    throw new InvalidInputError(`${name} must be a function, but got ${describeValue(value)}.`, {
      details: { field: name, received: describeValue(value) },
    })
  }
}

/**
 * Checks that `value` is a non-null object (arrays included, functions excluded).
 * @example
 * ```ts
 * import { assertObject } from '@agent-core/core'
 * assertObject(request, 'search request')
 * ```
 */
export function assertObject(value: unknown, name: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidInputError(`${name} must be an object, but got ${describeValue(value)}.`, {
      details: { field: name, received: describeValue(value) },
    })
  }
}

/**
 * True for a signal-like object (an `AbortSignal` or a compatible object with `aborted` and
 * `addEventListener`).
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  )
}
