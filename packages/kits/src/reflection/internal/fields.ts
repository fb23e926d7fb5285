import { describeValue, InvalidDefinitionError, InvalidInputError } from '@agent-core/core'

/** Which error class a reader throws: definitions are refused with `InvalidDefinitionError`. */
export type FieldsKind = 'input' | 'definition'

/** True for an object that is neither null nor an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Throws the typed error for a refused field, naming it and what to do. */
export function refuse(kind: FieldsKind, field: string, problem: string, value: unknown): never {
  const ErrorClass = kind === 'definition' ? InvalidDefinitionError : InvalidInputError
  throw new ErrorClass(`${field} ${problem}.`, { details: { field, received: describeValue(value) } })
}

/**
 * Reads the fields of a plain object strictly: own data properties only (a getter never runs), each read
 * names the field in errors, and {@link Fields.done} refuses a field nobody read (a misspelled option is
 * never ignored).
 */
export class Fields {
  readonly #value: Record<string, unknown>
  readonly #read = new Set<string>()
  constructor(
    value: unknown,
    readonly field: string,
    what: string,
    readonly kind: FieldsKind,
  ) {
    if (!isRecord(value)) refuse(kind, field, `must be ${what}, but got ${describeValue(value)}`, value)
    this.#value = value
  }

  path(key: string): string {
    return `${this.field}.${key}`
  }

  fail(key: string, problem: string, value: unknown): never {
    return refuse(this.kind, this.path(key), problem, value)
  }

  get(key: string): unknown {
    this.#read.add(key)
    const descriptor = Object.getOwnPropertyDescriptor(this.#value, key)
    if (descriptor === undefined) return undefined
    if (!('value' in descriptor)) this.fail(key, 'must be a data property, not a getter', undefined)
    return descriptor.value
  }

  string(key: string, options: { readonly empty?: boolean } = {}): string | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'string' || (!options.empty && value === '')) {
      this.fail(
        key,
        `must be a ${options.empty ? '' : 'non-empty '}string or be left out, but got ${describeValue(value)}`,
        value,
      )
    }
    return value
  }

  integer(key: string, min: number): number | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(
        key,
        `must be a safe integer ${min === 0 ? 'that is not negative' : `of at least ${min}`} or be left out, but got ${describeValue(value)}`,
        value,
      )
    }
    return value
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
      if (typeof key === 'symbol') continue
      if (!this.#read.has(key)) {
        this.fail(
          key,
          `is not a known field (known: ${[...this.#read].join(', ')}); remove it or fix its spelling`,
          Object.getOwnPropertyDescriptor(this.#value, key)?.value,
        )
      }
    }
  }
}
