import { describeValue, InvalidDefinitionError, InvalidInputError, isRecord } from '@agent-core/core'

/** Which error class a reader throws: definitions are refused with `InvalidDefinitionError`. */
export type ErrorKind = 'input' | 'definition'

/** Throws the typed error for a refused field, naming it and what to do. */
export function refuse(kind: ErrorKind, field: string, problem: string, value: unknown): never {
  const ErrorClass = kind === 'definition' ? InvalidDefinitionError : InvalidInputError
  throw new ErrorClass(`${field} ${problem}.`, { details: { field, received: describeValue(value) } })
}

/** True for an object that is neither null nor an array: core's one helper. */
export { isRecord }

/**
 * Reads the fields of a plain object strictly: each read names the field in errors, and {@link Fields.done}
 * refuses any field that was not read (a misspelled option is never ignored). Reads own data properties
 * only, so a getter never runs.
 */
export class Fields {
  readonly #value: Record<string, unknown>
  readonly #read = new Set<string>()
  constructor(
    value: unknown,
    readonly field: string,
    readonly what: string,
    readonly kind: ErrorKind = 'input',
  ) {
    if (!isRecord(value)) refuse(kind, field, `must be ${what}, but got ${describeValue(value)}`, value)
    this.#value = value
  }

  /** The path of a field of this object, for errors. */
  path(key: string): string {
    return this.field === '' ? key : `${this.field}.${key}`
  }

  fail(key: string, problem: string, value: unknown): never {
    return refuse(this.kind, this.path(key), problem, value)
  }

  /** The raw value of an own data property (`undefined` when absent). */
  get(key: string): unknown {
    this.#read.add(key)
    const descriptor = Object.getOwnPropertyDescriptor(this.#value, key)
    if (descriptor === undefined) return undefined
    if (!('value' in descriptor)) this.fail(key, 'must be a data property, not a getter', undefined)
    return descriptor.value
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#value, key)
  }

  string(key: string, options: { optional?: boolean; empty?: boolean } = {}): string | undefined {
    const value = this.get(key)
    if (value === undefined && options.optional) return undefined
    if (typeof value !== 'string' || (!options.empty && value.length === 0)) {
      this.fail(
        key,
        `must be a ${options.empty ? '' : 'non-empty '}string${options.optional ? ' or be left out' : ''}, but got ${describeValue(value)}`,
        value,
      )
    }
    return value
  }

  requiredString(key: string, options: { empty?: boolean } = {}): string {
    return this.string(key, options) as string
  }

  boolean(key: string, optional = true): boolean | undefined {
    const value = this.get(key)
    if (value === undefined && optional) return undefined
    if (typeof value !== 'boolean')
      this.fail(key, `must be a boolean, but got ${describeValue(value)}`, value)
    return value
  }

  integer(key: string, bounds: { min: number; max?: number }, optional = true): number | undefined {
    const value = this.get(key)
    if (value === undefined && optional) return undefined
    const max = bounds.max ?? Number.MAX_SAFE_INTEGER
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < bounds.min || value > max) {
      this.fail(
        key,
        `must be a safe integer from ${bounds.min}${bounds.max === undefined ? '' : ` to ${bounds.max}`}, but got ${describeValue(value)}`,
        value,
      )
    }
    return value
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], optional = false): T | undefined {
    const value = this.get(key)
    if (value === undefined && optional) return undefined
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.fail(
        key,
        `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, but got ${describeValue(value)}`,
        value,
      )
    }
    return value as T
  }

  func<T>(key: string): T | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'function')
      this.fail(key, `must be a function or be left out, but got ${describeValue(value)}`, value)
    return value as T
  }

  /** Refuses every own field that was not read. */
  done(): void {
    for (const key of Reflect.ownKeys(this.#value)) {
      if (typeof key !== 'string') refuse(this.kind, this.field, 'must not have symbol keys', key)
      if (!this.#read.has(key)) {
        this.fail(
          key,
          `is not a field of ${this.what}; check its spelling (the fields are ${[...this.#read].join(', ')})`,
          this.#value[key],
        )
      }
    }
  }
}
