import { describeValue } from '@agent-core/core'

/**
 * A plain JSON value: what a model produces, what a pending call stores and what survives
 * `JSON.stringify` / `JSON.parse` unchanged.
 * @example
 * ```ts
 * import type { JsonValue } from '@agent-core/kits/tools'
 * const input: JsonValue = { orderId: 'A-17', amount: 250, items: ['book'] }
 * ```
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue }

/** Deeper values are refused: no model writes them, and they would exhaust the stack of a recursive reader. */
const MAX_DEPTH = 1000

/**
 * The first reason `value` is not a plain JSON value, as `"<path> is <description>"`, or `undefined` when it
 * is one. Object properties whose value is `undefined` are accepted (JSON drops them, as `JSON.stringify`
 * does); everything else must be JSON already: no NaN or Infinity, no holes, no getters, no symbols, no
 * class instances, no cycles. Never reads a getter.
 */
export function jsonProblem(value: unknown, path = ''): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path, depth: 0 }]
  const open = new Set<object>()
  const exits: { depth: number; object: object }[] = []
  while (stack.length > 0) {
    const item = stack.pop()!
    while (exits.length > 0 && exits[exits.length - 1]!.depth >= item.depth) open.delete(exits.pop()!.object)
    const { value: current, path: at, depth } = item
    const where = at === '' ? 'the value' : at
    if (current === null || typeof current === 'boolean' || typeof current === 'string') continue
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${where} is ${describeValue(current)}, which JSON cannot hold`
      continue
    }
    if (typeof current !== 'object') return `${where} is ${describeValue(current)}, which is not JSON`
    if (depth >= MAX_DEPTH) return `${where} is nested deeper than ${MAX_DEPTH} levels`
    if (open.has(current)) return `${where} refers back to one of its parents (a cycle)`
    if (Object.getOwnPropertySymbols(current).length > 0)
      return `${where} has symbol keys, which JSON cannot hold`
    if (Array.isArray(current)) {
      if (Object.getPrototypeOf(current) !== Array.prototype)
        return `${where} is ${describeValue(current)}, not a plain array`
      open.add(current)
      exits.push({ depth, object: current })
      for (let index = current.length - 1; index >= 0; index--) {
        const descriptor = Object.getOwnPropertyDescriptor(current, index)
        if (descriptor === undefined) return `${at}[${index}] is a hole, which JSON cannot hold`
        if (!('value' in descriptor)) return `${at}[${index}] is a getter, not data`
        stack.push({ value: descriptor.value, path: `${at}[${index}]`, depth: depth + 1 })
      }
      continue
    }
    const prototype = Object.getPrototypeOf(current)
    if (prototype !== Object.prototype && prototype !== null)
      return `${where} is ${describeValue(current)}, not a plain object`
    open.add(current)
    exits.push({ depth, object: current })
    const keys = Object.keys(current)
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!
      const descriptor = Object.getOwnPropertyDescriptor(current, key)!
      const child = `${at}.${key}`
      if (!('value' in descriptor)) return `${child} is a getter, not data`
      if (descriptor.value === undefined) continue
      stack.push({ value: descriptor.value, path: child, depth: depth + 1 })
    }
  }
  return undefined
}

/**
 * A detached, deeply frozen copy of a JSON value (object properties holding `undefined` are dropped, as
 * `JSON.stringify` drops them). Call it only on a value {@link jsonProblem} accepted.
 */
export function copyJson<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value))
    return Object.freeze(value.map((item: JsonValue) => copyJson(item))) as unknown as T
  const copy: Record<string, JsonValue> = {}
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, JsonValue | undefined>)[key]
    if (child === undefined) continue
    // An own "__proto__" key (JSON.parse makes one) must stay data, not become the copy's prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: copyJson(child),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else copy[key] = copyJson(child)
  }
  return Object.freeze(copy) as unknown as T
}

/** Canonical JSON text (keys sorted by UTF-16 code units, RFC 8785 for plain JSON): core's one helper. */
export { canonicalJson } from '@agent-core/core'
