import { describeValue } from './errors/agent-core-error.js'
import { InvalidDefinitionError, InvalidInputError, InvalidOutputError } from './errors/errors.js'

/**
 * Which error a {@link FieldReader} throws: `'input'` an `InvalidInputError` (an argument of a call),
 * `'definition'` an `InvalidDefinitionError` (a definition handed to a `define*` function), `'output'` an
 * `InvalidOutputError` (what a hook, handler, tool or model returned).
 * @example
 * ```ts
 * import { FieldReader, type FieldReaderKind } from '@agent-core/core'
 * const kind: FieldReaderKind = 'definition'
 * const fields = new FieldReader({ id: 'triage' }, 'definition', 'a reflection definition', kind)
 * ```
 */
export type FieldReaderKind = 'input' | 'definition' | 'output'

/** The class a kind throws; anything but `'definition'` or `'output'` (a JavaScript caller's typo) is input. */
function errorClassOf(kind: FieldReaderKind) {
  return kind === 'definition'
    ? InvalidDefinitionError
    : kind === 'output'
      ? InvalidOutputError
      : InvalidInputError
}

/**
 * Throws the typed error for a refused field: the message is `<field> <problem>.`, the details carry
 * `field` and `received` (a description of the value, never the value).
 * @param kind - which error class to throw ({@link FieldReaderKind})
 * @param field - the offending field as the caller wrote it, e.g. `"options.maxRounds"`
 * @param problem - what is wrong and what to do, e.g. `"must be a function, but got 3"`
 * @param value - the refused value (described, not kept)
 * @param context - a prefix naming the caller (`'TextSearch search: '`), extra details, a `cause` and a
 *   `received` of its own ({@link FieldRefusalContext})
 * @throws `InvalidInputError`, `InvalidDefinitionError` or `InvalidOutputError` (by `kind`), always
 * @example
 * ```ts
 * import { refuseField } from '@agent-core/core'
 * const members: unknown = []
 * if (Array.isArray(members) && members.length === 0)
 *   refuseField('definition', 'members', 'must name at least one member', members)
 * ```
 */
export function refuseField(
  kind: FieldReaderKind,
  field: string,
  problem: string,
  value: unknown,
  context?: FieldRefusalContext,
): never {
  const ErrorClass = errorClassOf(kind)
  if (context === undefined)
    throw new ErrorClass(`${field} ${problem}.`, { details: { field, received: describeValue(value) } })
  const received = context.received ?? describeValue(value)
  const details = { ...context.details, field, received }
  throw new ErrorClass(
    `${context.prefix ?? ''}${field} ${problem}.`,
    'cause' in context ? { details, cause: context.cause } : { details },
  )
}

/**
 * What {@link refuseField} adds to one refusal beyond a reader's {@link FieldReaderContext}: the error that
 * led to it, kept as the thrown error's `cause` (a `JSON.parse` or `structuredClone` failure), and a
 * `received` that says more than {@link describeValue} can (`'a hole at index 3'`).
 * @example
 * ```ts
 * import { refuseField } from '@agent-core/core'
 * const text = '{"a":'
 * try {
 *   JSON.parse(text)
 * } catch (cause) {
 *   refuseField('input', 'options.metadata', 'must be JSON text', text, { cause, prefix: 'load: ' })
 * }
 * ```
 */
export interface FieldRefusalContext extends FieldReaderContext {
  /** The error that led to the refusal, kept as the thrown error's `cause`. */
  readonly cause?: unknown
  /** Put in `details.received` instead of `describeValue(value)`. */
  readonly received?: string
}

/**
 * What a {@link FieldReader} adds to each of its refusals: a `prefix` before the message (the owner of the
 * object, e.g. `'Durable task "nightly": '`) and `details` merged under `field` and `received` (e.g. the
 * owner's `id`). Both are kept by reference and used only when a refusal is thrown.
 * @example
 * ```ts
 * import { FieldReader, type FieldReaderContext } from '@agent-core/core'
 * const context: FieldReaderContext = { prefix: 'Durable task "nightly": ', details: { id: 'nightly' } }
 * const step = new FieldReader({ id: 'fetch' }, 'steps[0]', 'a step { id, run }', 'definition', context)
 * step.requiredString('id') // 'fetch'
 * ```
 */
export interface FieldReaderContext {
  /** Put before every message of the reader (end it with a separator such as `": "`). */
  readonly prefix?: string
  /** Merged into every refusal's `details`; `field` and `received` always win. */
  readonly details?: Readonly<Record<string, unknown>>
}

const NO_CONTEXT: FieldReaderContext = Object.freeze({})

function integerPhrase(min: number, max: number | undefined, unit: string | undefined): string {
  const range =
    max !== undefined
      ? `from ${min} to ${max}${unit === undefined ? '' : ` (${unit})`}`
      : min === 0
        ? 'that is not negative'
        : `of at least ${min}`
  return `a safe integer ${range}`
}

function numberPhrase(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `a finite number from ${min} to ${max}`
  if (min !== undefined)
    return min === 0 ? 'a finite number that is not negative' : `a finite number of at least ${min}`
  if (max !== undefined) return `a finite number of at most ${max}`
  return 'a finite number'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The one strict reader of definitions and option bags (every kit reads its objects with it). It reads own
 * data properties only (a getter is refused and never runs); each read checks its type and says in the
 * refusal what the field must be; {@link FieldReader.done} refuses any string-keyed field nobody read, so a
 * misspelled option is never ignored (symbol keys are left alone). Errors name the field by its full path,
 * carry `details: { field, received }`, and are `InvalidInputError`, `InvalidDefinitionError` or `InvalidOutputError` by `kind`.
 *
 * One set of defaults: `string`, `integer`, `number`, `boolean`, `oneOf`, `func`, `strings`,
 * `stringRecord`, `array` and `object` return `undefined` for a field left out (their refusals say "or be
 * left out"); each has a `required*` twin that refuses a missing field. A valid read allocates nothing
 * but the name it records.
 * @example
 * ```ts
 * import { FieldReader } from '@agent-core/core'
 *
 * function readOptions(options: unknown) {
 *   const fields = new FieldReader(options, 'options', 'an options object', 'input')
 *   const label = fields.requiredString('label')
 *   const maxRounds = fields.integer('maxRounds', 1, 100) ?? 3
 *   const mode = fields.oneOf('mode', ['fast', 'careful'] as const) ?? 'fast'
 *   const verbose = fields.boolean('verbose') ?? false
 *   fields.done() // { label: 'a', maxRound: 2 } is refused: "options.maxRound is not a known field (known: ...)"
 *   return { label, maxRounds, mode, verbose }
 * }
 * readOptions({ label: 'run', maxRounds: 2 }) // { label: 'run', maxRounds: 2, mode: 'fast', verbose: false }
 * ```
 */
export class FieldReader {
  readonly #value: Record<string, unknown>
  readonly #read = new Set<string>()
  /** The prefix and details this reader adds to its refusals (shared with the readers of nested objects). */
  readonly context: FieldReaderContext
  /**
   * @param value - the object to read; anything else (null, an array, a primitive) is refused at once
   * @param field - its path as the caller wrote it, e.g. `"definition"` or `"options.budget"`; `""` for a
   *   top-level object whose fields are named bare (`"prompt"`, not `".prompt"`)
   * @param what - what it should be, for the refusal of a non-object, e.g. `"a family definition"`
   * @param kind - which error class refusals throw (`'input'` when left out)
   * @param context - a message prefix and extra details for every refusal ({@link FieldReaderContext})
   */
  constructor(
    value: unknown,
    readonly field: string,
    readonly what: string,
    readonly kind: FieldReaderKind = 'input',
    context: FieldReaderContext = NO_CONTEXT,
  ) {
    this.context = context
    if (!isObject(value)) this.#refuse(field, `must be ${what}, but got ${describeValue(value)}`, value)
    this.#value = value
  }

  /** The path of a field of this object, for errors: `"<field>.<key>"` (`"<key>"` when `field` is `""`). */
  path(key: string): string {
    if (this.field === '') return key
    return key.charCodeAt(0) === 91 /* [ */ ? `${this.field}${key}` : `${this.field}.${key}`
  }

  /** Refuses the field `key` with `problem` (what is wrong and what to do; the reader adds the final period). */
  fail(key: string, problem: string, value: unknown): never {
    return this.#refuse(this.path(key), problem, value)
  }

  /**
   * Refuses the field `key` for not being `expected`: `<path> must be <expected>, but got <value>.` For
   * checks the typed reads do not cover (a stream, a URL, a store with certain methods).
   */
  mustBe(key: string, expected: string, value: unknown): never {
    return this.fail(key, `must be ${expected}, but got ${describeValue(value)}`, value)
  }

  /** Refuses the object itself (`field`) with `problem`, e.g. when two of its fields conflict. */
  failObject(problem: string, value: unknown = this.#value): never {
    return this.#refuse(this.field, problem, value)
  }

  #refuse(field: string, problem: string, value: unknown): never {
    const { prefix, details } = this.context
    const ErrorClass = errorClassOf(this.kind)
    throw new ErrorClass(`${prefix ?? ''}${field} ${problem}.`, {
      details: { ...details, field, received: describeValue(value) },
    })
  }

  #refuseType(key: string, expected: string, value: unknown, optional: boolean): never {
    return this.fail(
      key,
      `must be ${expected}${optional ? ' or be left out' : ''}, but got ${describeValue(value)}`,
      value,
    )
  }

  /** The raw value of an own data property, `undefined` when absent; a getter is refused, never run. */
  get(key: string): unknown {
    this.#read.add(key)
    const descriptor = Object.getOwnPropertyDescriptor(this.#value, key)
    if (descriptor === undefined) return undefined
    if (!('value' in descriptor)) this.fail(key, 'must be a data property, not a getter', undefined)
    return descriptor.value
  }

  /** True when the object has an own field `key` (even one set to `undefined`); does not count as a read. */
  has(key: string): boolean {
    return Object.hasOwn(this.#value, key)
  }

  /** A string, non-empty unless `options.empty`; `undefined` when left out. */
  string(key: string, options?: { readonly empty?: boolean }): string | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    return this.#string(key, value, options?.empty === true, true)
  }

  /** A string, non-empty unless `options.empty`; refused when left out. */
  requiredString(key: string, options?: { readonly empty?: boolean }): string {
    return this.#string(key, this.get(key), options?.empty === true, false)
  }

  #string(key: string, value: unknown, empty: boolean, optional: boolean): string {
    if (typeof value !== 'string' || (!empty && value.length === 0))
      this.#refuseType(key, empty ? 'a string' : 'a non-empty string', value, optional)
    return value
  }

  /** A safe integer from `min` to `max` (no upper bound when left out); `unit` names what it counts in errors. */
  integer(key: string, min: number, max?: number, unit?: string): number | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    return this.#integer(key, value, min, max, unit, true)
  }

  /** {@link FieldReader.integer}, refused when left out. */
  requiredInteger(key: string, min: number, max?: number, unit?: string): number {
    return this.#integer(key, this.get(key), min, max, unit, false)
  }

  #integer(
    key: string,
    value: unknown,
    min: number,
    max: number | undefined,
    unit: string | undefined,
    optional: boolean,
  ): number {
    if (
      typeof value !== 'number' ||
      !Number.isSafeInteger(value) ||
      value < min ||
      (max !== undefined && value > max)
    )
      this.#refuseType(key, integerPhrase(min, max, unit), value, optional)
    return value
  }

  /** A finite number from `min` to `max` (either bound may be left out); `undefined` when left out. */
  number(key: string, min?: number, max?: number): number | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    return this.#number(key, value, min, max, true)
  }

  /** {@link FieldReader.number}, refused when left out. */
  requiredNumber(key: string, min?: number, max?: number): number {
    return this.#number(key, this.get(key), min, max, false)
  }

  #number(
    key: string,
    value: unknown,
    min: number | undefined,
    max: number | undefined,
    optional: boolean,
  ): number {
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (min !== undefined && value < min) ||
      (max !== undefined && value > max)
    )
      this.#refuseType(key, numberPhrase(min, max), value, optional)
    return value
  }

  /** A boolean; `undefined` when left out. */
  boolean(key: string): boolean | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'boolean') this.#refuseType(key, 'a boolean', value, true)
    return value
  }

  /** A boolean; refused when left out. */
  requiredBoolean(key: string): boolean {
    const value = this.get(key)
    if (typeof value !== 'boolean') this.#refuseType(key, 'a boolean', value, false)
    return value
  }

  /** One of the strings `allowed`; `undefined` when left out. */
  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    return this.#oneOf(key, value, allowed, true)
  }

  /** One of the strings `allowed`; refused when left out. */
  requiredOneOf<T extends string>(key: string, allowed: readonly T[]): T {
    return this.#oneOf(key, this.get(key), allowed, false)
  }

  #oneOf<T extends string>(key: string, value: unknown, allowed: readonly T[], optional: boolean): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
      this.#refuseType(key, `one of ${allowed.map((a) => `"${a}"`).join(', ')}`, value, optional)
    return value as T
  }

  /** A function (typed as `T` by the caller); `undefined` when left out. */
  func<T>(key: string): T | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (typeof value !== 'function') this.#refuseType(key, 'a function', value, true)
    return value as T
  }

  /** A function (typed as `T` by the caller); refused when left out. */
  requiredFunc<T>(key: string): T {
    const value = this.get(key)
    if (typeof value !== 'function') this.#refuseType(key, 'a function', value, false)
    return value as T
  }

  /** An array (items unchecked, a hole reads as `undefined`); `undefined` when left out. */
  array(key: string): readonly unknown[] | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (!Array.isArray(value)) this.#refuseType(key, 'an array', value, true)
    return value
  }

  /** An array (items unchecked); refused when left out, and when empty unless `options.empty`. */
  requiredArray(key: string, options?: { readonly empty?: boolean }): readonly unknown[] {
    const value = this.get(key)
    const empty = options?.empty !== false
    if (!Array.isArray(value) || (!empty && value.length === 0))
      this.#refuseType(key, empty ? 'an array' : 'a non-empty array', value, false)
    return value
  }

  /** An array of strings, copied and frozen; `undefined` when left out. Items are named `key[index]`. */
  strings(key: string): readonly string[] | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (!Array.isArray(value)) this.#refuseType(key, 'an array of strings', value, true)
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (typeof item !== 'string')
        this.fail(`${key}[${index}]`, `must be a string, but got ${describeValue(item)}`, item)
    }
    return Object.freeze(value.slice() as string[])
  }

  /** An object of string values, copied and frozen; `undefined` when left out. Values are named `key.name`. */
  stringRecord(key: string): Readonly<Record<string, string>> | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    if (!isObject(value)) this.#refuseType(key, 'an object of string values', value, true)
    const out: Record<string, string> = {}
    for (const name of Object.keys(value)) {
      const item = value[name]
      if (typeof item !== 'string')
        this.fail(`${key}.${name}`, `must be a string, but got ${describeValue(item)}`, item)
      out[name] = item
    }
    return Object.freeze(out)
  }

  /** A reader of the nested object `key` (`what` says what it should be), same kind and context; `undefined` when left out. */
  object(key: string, what: string): FieldReader | undefined {
    const value = this.get(key)
    if (value === undefined) return undefined
    return new FieldReader(value, this.path(key), what, this.kind, this.context)
  }

  /** {@link FieldReader.object}, refused when left out. */
  requiredObject(key: string, what: string): FieldReader {
    return new FieldReader(this.get(key), this.path(key), what, this.kind, this.context)
  }

  /**
   * Refuses at once any own string-keyed field not in `keys`, before any read, naming the object and the
   * known fields (`<field> has an unknown field "<key>"; the known fields are ...`): for an object whose
   * fields are read in several places or in an order that must not decide which mistake is reported. The
   * keys count as read, so a later `done()` passes.
   */
  only(keys: readonly string[]): this {
    for (const key of Reflect.ownKeys(this.#value)) {
      if (typeof key === 'symbol' || keys.includes(key)) continue
      const value = Object.getOwnPropertyDescriptor(this.#value, key)?.value
      const { prefix, details } = this.context
      const ErrorClass = this.kind === 'definition' ? InvalidDefinitionError : InvalidInputError
      throw new ErrorClass(
        `${prefix ?? ''}${this.field} has an unknown field "${key}"; the known fields are ${keys.join(', ')}. Check its spelling.`,
        { details: { ...details, field: this.path(key), received: describeValue(value) } },
      )
    }
    for (const key of keys) this.#read.add(key)
    return this
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
