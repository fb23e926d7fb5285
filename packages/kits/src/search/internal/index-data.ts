/**
 * Copies of the data an index keeps (stored fields, vector documents). The contract asks that index
 * metadata be structuredClone-able: such data is accepted in memory and copied in and out. Plain JSON
 * data (the common case) takes a fast hand-written copy; anything else structuredClone can carry (Date,
 * Map, Set, RegExp, bigint, NaN, typed arrays, cycles, ...) takes `structuredClone`. Snapshots are JSON,
 * so {@link firstNonJsonPath} finds data a snapshot could not carry exactly.
 */
import { describeValue, InvalidInputError, InvalidStateError } from '@agent-core/core'
import type { JsonData } from '../json-data.js'

const MAX_DEPTH = 256

/** Thrown inside the fast JSON copy when a value needs structuredClone instead. */
const NOT_JSON = Symbol('not json')

/** Built-in classes whose instances structuredClone copies exactly. */
const CLONEABLE_CLASSES: readonly (abstract new (...args: never[]) => unknown)[] = [
  Date,
  Map,
  Set,
  RegExp,
  ArrayBuffer,
  DataView,
  Boolean,
  Number,
  String,
]

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` is an ordinary data key in JSON; assigning it would change the prototype instead.
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

function reject(what: string, path: string, problem: string, value: unknown): never {
  throw new InvalidInputError(
    `${what} must be data that structuredClone can copy (strings, numbers, booleans, null, arrays, plain ` +
      `objects, Date, Map, Set, ...), but ${path} ${problem}. Convert it to data before indexing.`,
    { details: { field: path, received: describeValue(value) } },
  )
}

/** A copy of index data, and whether it is plain JSON data (a snapshot can carry it exactly). */
export interface IndexDataCopy {
  readonly value: unknown
  readonly json: boolean
}

/**
 * Copies `value` after checking that structuredClone can copy it faithfully: functions, symbols, WeakMaps,
 * Promises and instances of App classes (whose prototype a copy would lose) are refused. Plain JSON data is
 * copied by hand (object properties holding `undefined` are dropped, as JSON drops them).
 *
 * @param what - what the value is, for the error (e.g. `"document \"a\""`)
 * @param path - where the value sits, for the error and `details.field` (e.g. `"document.tags"`)
 */
export function copyIndexData(value: unknown, what: string, path: string): IndexDataCopy {
  try {
    return { value: copyJson(value, 0), json: true }
  } catch (error) {
    if (error !== NOT_JSON) throw error
  }
  assertCloneable(value, what, path, new Set(), 0)
  return { value: structuredClone(value), json: false }
}

/**
 * {@link copyIndexData} for a value that `JSON.parse` made just now and nobody else holds: such a value is
 * JSON data already, so it is adopted as it is, without a copy, unless it is nested too deeply, which
 * only the copy (and its error) handles. The outcome is the one {@link copyIndexData} would give.
 */
export function adoptParsedIndexData(value: unknown, what: string, path: string): IndexDataCopy {
  if (nestedBelowLimit(value, 0)) return { value: value as JsonData, json: true }
  return copyIndexData(value, what, path)
}

/**
 * True when `value` (a JSON.parse result) can be adopted by {@link adoptParsedIndexData} as it is: no
 * array or object in it sits at depth MAX_DEPTH or deeper. A fast path needs no `what` or `path` strings.
 */
export function isAdoptable(value: unknown): boolean {
  return nestedBelowLimit(value, 0)
}

/** True when no array or object in `value` (a JSON.parse result) sits at depth MAX_DEPTH or deeper. */
function nestedBelowLimit(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (depth >= MAX_DEPTH) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!nestedBelowLimit(value[i], depth + 1)) return false
    return true
  }
  for (const key in value) {
    if (!nestedBelowLimit((value as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

function copyJson(value: unknown, depth: number): JsonData {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw NOT_JSON
      return value
    case 'object': {
      if (value === null) return null
      if (depth >= MAX_DEPTH) throw NOT_JSON
      if (Array.isArray(value)) {
        const out: JsonData[] = new Array(value.length)
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) throw NOT_JSON
          out[i] = copyJson(value[i], depth + 1)
        }
        return out
      }
      if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) throw NOT_JSON
      const out: Record<string, JsonData> = {}
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key]
        if (item === undefined) continue
        setOwn(out, key, copyJson(item, depth + 1))
      }
      return out
    }
    default:
      throw NOT_JSON
  }
}

function assertCloneable(value: unknown, what: string, path: string, seen: Set<object>, depth: number): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'bigint':
    case 'undefined':
      return
    case 'object': {
      if (value === null || seen.has(value)) return
      if (depth >= MAX_DEPTH) reject(what, path, `is nested deeper than ${MAX_DEPTH} levels`, value)
      seen.add(value)
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++)
          if (i in value) assertCloneable(value[i], what, `${path}[${i}]`, seen, depth + 1)
        return
      }
      if (ArrayBuffer.isView(value) || CLONEABLE_CLASSES.some((type) => value instanceof type)) {
        if (value instanceof Map) {
          let i = 0
          for (const [key, item] of value) {
            assertCloneable(key, what, `${path}.<key ${i}>`, seen, depth + 1)
            assertCloneable(item, what, `${path}.<value ${i}>`, seen, depth + 1)
            i++
          }
        } else if (value instanceof Set) {
          let i = 0
          for (const item of value) assertCloneable(item, what, `${path}.<item ${i++}>`, seen, depth + 1)
        }
        if (!isBuiltInPrototype(value)) reject(what, path, `is ${describeValue(value)}`, value)
        return
      }
      if (!isPlainObject(value))
        reject(what, path, `is ${describeValue(value)}, whose class a copy would lose`, value)
      if (Object.getOwnPropertySymbols(value).length > 0) reject(what, path, 'has symbol keys', value)
      for (const key of Object.keys(value))
        assertCloneable((value as Record<string, unknown>)[key], what, `${path}.${key}`, seen, depth + 1)
      return
    }
    default:
      reject(what, path, `is ${describeValue(value)}`, value)
  }
}

/** True when `value` is a direct instance of a built-in class (not of an App subclass of one). */
function isBuiltInPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  const ctor = proto?.constructor
  return (
    typeof ctor === 'function' && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(ctor))
  )
}

/** A copy of data that {@link copyIndexData} accepted: by hand for JSON data, by structuredClone otherwise. */
export function cloneIndexData<T>(value: T, json: boolean): T {
  return json ? cloneJsonData(value) : structuredClone(value)
}

/** Deep-copies plain JSON data that is known to be valid (no checks). */
export function cloneJsonData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = cloneJsonData(value[i])
    return out as T
  }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value))
    setOwn(out, key, cloneJsonData((value as Record<string, unknown>)[key]))
  return out as T
}

/**
 * The path of the first value in `value` that JSON cannot carry exactly (a Date, a Map, NaN, a bigint,
 * `undefined` in an array, a cycle, ...), or `undefined` when it is plain JSON data.
 */
export function firstNonJsonPath(value: unknown, path: string, seen = new Set<object>()): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : path
    case 'object': {
      if (value === null) return undefined
      if (seen.has(value)) return path
      seen.add(value)
      try {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            if (!(i in value)) return `${path}[${i}]`
            const found = firstNonJsonPath(value[i], `${path}[${i}]`, seen)
            if (found !== undefined) return found
          }
          return undefined
        }
        if (!isPlainObject(value)) return path
        for (const key of Object.keys(value)) {
          const item = (value as Record<string, unknown>)[key]
          if (item === undefined) continue
          const found = firstNonJsonPath(item, `${path}.${key}`, seen)
          if (found !== undefined) return found
        }
        return undefined
      } finally {
        seen.delete(value)
      }
    }
    default:
      return path
  }
}

/** The error of a snapshot that would have to carry data JSON cannot hold. */
export function notJsonError(index: string, field: string, id: string): InvalidStateError {
  return new InvalidStateError(
    `${index} snapshot: the data of "${id}" holds a value JSON cannot carry exactly at ${field} (a Date, Map, Set, ` +
      'bigint, NaN, typed array, ...). Snapshots are JSON: store such values as JSON data (a date as an ISO ' +
      'string, a Map as an array of pairs) before indexing, or keep this index in memory only.',
    { details: { field, id } },
  )
}
