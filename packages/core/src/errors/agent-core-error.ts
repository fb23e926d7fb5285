const MARKER = Symbol.for('@agent-core/error')

/**
 * Structured fields of an error. Every class names the keys it fills (see each class's details type);
 * the shared vocabulary is `field` for the offending field or argument (`"limit"`, `"request.query"`),
 * `received` for a description of the value that was refused, `id` / `kind` for a registration, `hook`
 * for a callback and `returned` for a description of what it returned, `point` for where a cancellation
 * was seen and `issues` for a list of schema problems. Never `name` for the offending field.
 * @example
 * ```ts
 * import { AgentCoreError, type ErrorDetails } from '@agent-core/core'
 * interface QuotaDetails extends ErrorDetails { readonly limit: number; readonly used: number }
 * class QuotaError extends AgentCoreError<QuotaDetails> {
 *   static override readonly code = 'quota'
 *   constructor(message: string, details: QuotaDetails) {
 *     super('quota', message, { details })
 *   }
 * }
 * ```
 */
export interface ErrorDetails {
  readonly [key: string]: unknown
}

/**
 * Options shared by every agent-core error: the cause, and the structured details.
 * @example
 * ```ts
 * import { describeValue, InvalidInputError } from '@agent-core/core'
 * const limit: unknown = -1
 * throw new InvalidInputError('limit must not be negative. Pass 0 or more.', {
 *   details: { field: 'limit', received: describeValue(limit) },
 * })
 * ```
 */
export interface AgentCoreErrorOptions<Details extends ErrorDetails = ErrorDetails> {
  /** The underlying error or value that caused this one. */
  readonly cause?: unknown
  /** Structured fields that say what was wrong (ids, limits, the offending value's type, ...). */
  readonly details?: Details
}

/**
 * The one base class of every error agent-core throws.
 *
 * Branch on the stable string {@link AgentCoreError.code}, never on the message. `isInstance` works across
 * two loaded copies of the package (it checks a `Symbol.for` marker, not the prototype chain), so it is
 * safe where `instanceof` is not.
 *
 * @example
 * ```ts
 * import { AgentCoreError, DuplicateIdError } from '@agent-core/core'
 * import type { Registry } from '@agent-core/core'
 * declare const registry: Registry<{ readonly id: string }>
 *
 * try {
 *   registry.register({ id: 'search' })
 * } catch (error) {
 *   if (DuplicateIdError.isInstance(error)) console.log(error.details.id)
 *   else if (AgentCoreError.isInstance(error)) console.log(error.code)
 *   else throw error
 * }
 * ```
 */
export class AgentCoreError<Details extends ErrorDetails = ErrorDetails> extends Error {
  /** The code an instance of this class carries; `undefined` on the base class (any code). */
  static readonly code: string | undefined = undefined
  /** A stable, machine-readable reason such as `duplicate-id` or `budget-exhausted`. */
  readonly code: string
  /** Structured fields describing the failure (frozen). */
  readonly details: Readonly<Details>

  constructor(code: string, message: string, options: AgentCoreErrorOptions<Details> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.details = Object.freeze({ ...(options.details ?? {}) }) as Readonly<Details>
    Object.defineProperty(this, MARKER, { value: true, enumerable: false })
  }

  /**
   * True when `value` is an agent-core error of this class's code, even when it was thrown by another
   * loaded copy of the package. On the base class, true for any agent-core error.
   */
  static isInstance<T extends abstract new (...args: never[]) => AgentCoreError>(
    this: T & { readonly code: string | undefined },
    value: unknown,
  ): value is InstanceType<T> {
    if (typeof value !== 'object' || value === null || (value as Record<symbol, unknown>)[MARKER] !== true)
      return false
    return this.code === undefined || (value as { code?: unknown }).code === this.code
  }
}

/**
 * Describes a value for an error message without printing it whole: its kind, a short string, a number,
 * an array's length or an instance's class.
 * @example
 * ```ts
 * import { describeValue } from '@agent-core/core'
 * describeValue(Number.NaN) // 'NaN'
 * describeValue([1, 2]) // 'an array of length 2'
 * describeValue(new Map()) // 'an instance of Map'
 * ```
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined'
    case 'number':
      return Number.isNaN(value) ? 'NaN' : `the number ${value}`
    case 'bigint':
      return `the bigint ${value}n`
    case 'string':
      return value.length > 40 ? `a string of length ${value.length}` : `the string ${JSON.stringify(value)}`
    case 'boolean':
      return `the boolean ${value}`
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
    default:
      return value === null ? 'null' : describeObject(value as object)
  }
}

/**
 * An object's description. Looking at an object can run its code (a `then` getter, a proxy's traps) or
 * throw (a revoked proxy): a refusal that describes what it refuses must not fail on the way, so a throw
 * here gives the plain description.
 */
function describeObject(value: object): string {
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`
    if (typeof (value as { then?: unknown }).then === 'function') return 'a thenable (Promise)'
    const name = Object.getPrototypeOf(value)?.constructor?.name
    return typeof name === 'string' && name !== '' && name !== 'Object'
      ? `an instance of ${name}`
      : 'an object'
  } catch {
    return 'an object (it threw when looked at)'
  }
}
