import { describeValue, InvalidInputError } from '@agent-core/core'
import { type JsonValue, jsonProblem } from './json.js'

/** Reads plain-object fields strictly: unknown keys, getters and wrong types are problems. */
export class FieldReader {
  readonly #value: Record<string, unknown>
  readonly #field: string
  readonly #what: string
  readonly #seen = new Set<string>()

  constructor(value: unknown, field: string, what: string) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidInputError(`${what} must be a plain object, but got ${describeValue(value)}.`, {
        details: { field, received: describeValue(value) },
      })
    }
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) {
      throw new InvalidInputError(
        `${what} must be a plain object (parsed JSON), but got ${describeValue(value)}.`,
        { details: { field, received: describeValue(value) } },
      )
    }
    this.#value = value as Record<string, unknown>
    this.#field = field
    this.#what = what
  }

  #read(key: string): unknown {
    this.#seen.add(key)
    const descriptor = Object.getOwnPropertyDescriptor(this.#value, key)
    if (descriptor === undefined) return undefined
    if (!('value' in descriptor)) this.fail(key, 'is a getter, not data', undefined)
    return descriptor.value
  }

  fail(key: string, problem: string, value: unknown): never {
    const field = `${this.#field}.${key}`
    throw new InvalidInputError(`${this.#what}: ${field} ${problem}.`, {
      details: { field, received: describeValue(value) },
    })
  }

  string(key: string, { optional = false, empty = false } = {}): string | undefined {
    const value = this.#read(key)
    if (value === undefined && optional) return undefined
    if (typeof value !== 'string' || (!empty && value.length === 0)) {
      this.fail(key, `must be a ${empty ? '' : 'non-empty '}string, but is ${describeValue(value)}`, value)
    }
    return value
  }

  requiredString(key: string): string {
    return this.string(key) as string
  }

  boolean(key: string): boolean {
    const value = this.#read(key)
    if (typeof value !== 'boolean') this.fail(key, `must be a boolean, but is ${describeValue(value)}`, value)
    return value
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], optional = false): T | undefined {
    const value = this.#read(key)
    if (value === undefined && optional) return undefined
    if (typeof value !== 'string' || !allowed.includes(value as T)) {
      this.fail(
        key,
        `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, but is ${describeValue(value)}`,
        value,
      )
    }
    return value as T
  }

  json(key: string, { optional = false } = {}): JsonValue | undefined {
    const present = Object.hasOwn(this.#value, key)
    const value = this.#read(key)
    if (!present && optional) return undefined
    if (value === undefined && optional) return undefined
    const problem = jsonProblem(value, `${this.#field}.${key}`)
    if (problem !== undefined || value === undefined) {
      throw new InvalidInputError(`${this.#what}: ${problem ?? `${this.#field}.${key} is missing`}.`, {
        details: { field: `${this.#field}.${key}`, received: describeValue(value) },
      })
    }
    return value as JsonValue
  }

  object(key: string, what: string): FieldReader {
    return new FieldReader(this.#read(key), `${this.#field}.${key}`, what)
  }

  /** Refuses keys that were never read (a typo such as `instructions` must not be ignored silently). */
  done(): void {
    for (const key of Object.keys(this.#value)) {
      if (!this.#seen.has(key)) {
        const allowed = [...this.#seen].map((k) => `"${k}"`).join(', ')
        this.fail(key, `is not a known field (known: ${allowed})`, this.#value[key])
      }
    }
  }
}
