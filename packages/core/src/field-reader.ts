import { describeValue } from './errors/agent-core-error.js'
import { InvalidDefinitionError, InvalidInputError } from './errors/errors.js'

/**
 * Which error a {@link FieldReader} throws: `'input'` an `InvalidInputError` (an argument of a call),
 * `'definition'` an `InvalidDefinitionError` (a definition handed to a `define*` function).
 * @example
 * ```ts
 * import { FieldReader, type FieldReaderKind } from '@agent-core/core'
 * const kind: FieldReaderKind = 'definition'
 * const fields = new FieldReader({ id: 'triage' }, 'definition', 'a reflection definition', kind)
 * ```
 */
export type FieldReaderKind = 'input' | 'definition'

/**
 * Throws the typed error for a refused field: the message is `<field> <problem>.`, the details carry
 * `field` and `received` (a description of the value, never the value).
 * @param kind - which error class to throw ({@link FieldReaderKind})
 * @param field - the offending field as the caller wrote it, e.g. `"options.maxRounds"`
 * @param problem - what is wrong and what to do, e.g. `"must be a function, but got 3"`
 * @param value - the refused value (described, not kept)
 * @throws `InvalidInputError` or `InvalidDefinitionError`, always
 * @example
 * ```ts
 * import { refuseField } from '@agent-core/core'
 * const members: unknown = []
 * if (Array.isArray(members) && members.length === 0)
 *   refuseField('definition', 'members', 'must name at least one member', members)
 * ```
 */
export function refuseField(kind: FieldReaderKind, field: string, problem: string, value: unknown): never {
  const ErrorClass = kind === 'definition' ? InvalidDefinitionError : InvalidInputError
  throw new ErrorClass(`${field} ${problem}.`, { details: { field, received: describeValue(value) } })
}

/**
 * Reads the fields of a plain object strictly, for `define*` functions and option bags: own data
 * properties only (a getter never runs), every read optional (`undefined` when left out) and checked,
 * errors naming the field by its full path, and {@link FieldReader.done} refusing any string-keyed field
 * nobody read, so a misspelled option is never ignored. Symbol keys are left alone.
 * @example
 * ```ts
 * import { FieldReader } from '@agent-core/core'
 *
 * function readOptions(options: unknown) {
 *   const fields = new FieldReader(options, 'options', 'an options object', 'input')
 *   const label = fields.string('label') ?? 'run'
 *   const maxRounds = fields.integer('maxRounds', 1) ?? 3
 *   const verbose = fields.boolean('verbose') ?? false
 *   fields.done() // { maxRound: 2 } is refused: "options.maxRound is not a known field (known: ...)"
 *   return { label, maxRounds, verbose }
 * }
 * readOptions({ maxRounds: 2 }) // { label: 'run', maxRounds: 2, verbose: false }
 * ```
 */
export class FieldReader {
  readonly #value: Record<string, unknown>
  readonly #read = new Set<string>()
  /**
   * @param value - the object to read; anything else is refused at once
   * @param field - its path as the caller wrote it, e.g. `"definition"` or `"options.budget"`
   * @param what - what it should be, for the refusal of a non-object, e.g. `"a family definition"`
   * @param kind - which error class refusals throw
   */
  constructor(
    value: unknown,
    readonly field: string,
    what: string,
    readonly kind: FieldReaderKind,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      refuseField(kind, field, `must be ${what}, but got ${describeValue(value)}`, value)
    this.#value = value as Record<string, unknown>
  }

  /** The path of a field of this object, for errors: `"<field>.<key>"`. */
  path(key: string): string {
    return `${this.field}.${key}`
  }

  /** Refuses the field `key` with `problem` (what is wrong and what to do). */
  fail(key: string, problem: string, value: unknown): never {
    return refuseField(this.kind, this.path(key), problem, value)
  }

  /** The raw value of an own data property, `undefined` when absent; a getter is refused, never run. */
  get(key: string): unknown {
    this.#read.add(key)
    const descriptor = Object.getOwnPropertyDescriptor(this.#value, key)
    if (descriptor === undefined) return undefined
    if (!('value' in descriptor)) this.fail(key, 'must be a data property, not a getter', undefined)
    return descriptor.value
  }

  /** A string, non-empty unless `options.empty`; `undefined` when left out. */
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

  /** A safe integer of at least `min`; `undefined` when left out. */
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

  /** A boolean; `undefined` when left out. */
  boolean(key: string): boolean | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'boolean')
      this.fail(key, `must be a boolean or be left out, but got ${describeValue(value)}`, value)
    return value
  }

  /** A function (typed as `T` by the caller); `undefined` when left out. */
  func<T>(key: string): T | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'function')
      this.fail(key, `must be a function or be left out, but got ${describeValue(value)}`, value)
    return value as T
  }

  /** Refuses the first own string-keyed field that was not read, naming the known ones. */
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
