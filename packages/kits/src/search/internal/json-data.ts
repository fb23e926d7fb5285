import { describeValue, InvalidInputError } from '@agent-core/core'
import type { JsonData } from '../json-data.js'

const MAX_DEPTH = 256

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
    `${what} must be plain data (strings, finite numbers, booleans, null, arrays and plain objects) so that ` +
      `it can be copied and snapshotted, but ${path} ${problem}. Convert it to plain data before indexing ` +
      '(for example a date to an ISO string).',
    { details: { what, path, received: describeValue(value) } },
  )
}

/**
 * Deep-copies `value` while checking that it is plain data: no functions, symbols, bigints, class
 * instances (Date, Map, ...), sparse arrays, non-finite numbers or cycles. Object properties whose value is
 * `undefined` are dropped, as JSON would drop them, so the copy equals its own JSON round trip.
 *
 * @param what - what the value is, for the error (e.g. `"document \"a\""`)
 * @param path - where the value sits, for the error (e.g. `"document.tags"`)
 */
export function copyJsonData(value: unknown, what: string, path: string): JsonData {
  return copyChecked(value, what, path, new Set(), 0)
}

function copyChecked(value: unknown, what: string, path: string, seen: Set<object>, depth: number): JsonData {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) reject(what, path, `is ${describeValue(value)}`, value)
      return value
    case 'object': {
      if (value === null) return null
      if (seen.has(value)) reject(what, path, 'refers back to one of its own ancestors (a cycle)', value)
      if (depth >= MAX_DEPTH) reject(what, path, `is nested deeper than ${MAX_DEPTH} levels`, value)
      seen.add(value)
      let copy: JsonData
      if (Array.isArray(value)) {
        const out: JsonData[] = new Array(value.length)
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) reject(what, `${path}[${i}]`, 'is a hole in a sparse array', undefined)
          out[i] = copyChecked(value[i], what, `${path}[${i}]`, seen, depth + 1)
        }
        copy = out
      } else {
        if (!isPlainObject(value)) reject(what, path, `is ${describeValue(value)}`, value)
        if (Object.getOwnPropertySymbols(value).length > 0) reject(what, path, 'has symbol keys', value)
        const out: Record<string, JsonData> = {}
        for (const key of Object.keys(value)) {
          const item = (value as Record<string, unknown>)[key]
          if (item === undefined) continue
          setOwn(out, key, copyChecked(item, what, `${path}.${key}`, seen, depth + 1))
        }
        copy = out
      }
      seen.delete(value)
      return copy
    }
    case 'undefined':
      return reject(
        what,
        path,
        'is undefined (only object properties may be undefined; they are dropped)',
        value,
      )
    default:
      return reject(what, path, `is ${describeValue(value)}`, value)
  }
}

/** Deep-copies plain data that {@link copyJsonData} already accepted (no checks). */
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
