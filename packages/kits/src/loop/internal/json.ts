import { describeValue } from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'

const MAX_DEPTH = 200

/**
 * The first reason `value` is not plain JSON (`"<path> is ..."`), or `undefined`. Object properties holding
 * `undefined` are accepted (JSON drops them). Never reads a getter.
 */
export function jsonProblem(value: unknown, path: string): string | undefined {
  return problemAt(value, path, 0, new Set())
}

function problemAt(value: unknown, path: string, depth: number, open: Set<object>): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return undefined
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : `${path} is ${describeValue(value)}, which JSON cannot hold`
  }
  if (typeof value !== 'object') return `${path} is ${describeValue(value)}, which is not JSON`
  if (depth >= MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`
  if (open.has(value)) return `${path} refers back to one of its parents (a cycle)`
  if (Object.getOwnPropertySymbols(value).length > 0) return `${path} has symbol keys, which JSON cannot hold`
  open.add(value)
  try {
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Array.prototype) return `${path} is not a plain array`
      for (let index = 0; index < value.length; index++) {
        const descriptor = Object.getOwnPropertyDescriptor(value, index)
        if (descriptor === undefined) return `${path}[${index}] is a hole, which JSON cannot hold`
        if (!('value' in descriptor)) return `${path}[${index}] is a getter, not data`
        const problem = problemAt(descriptor.value, `${path}[${index}]`, depth + 1, open)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null)
      return `${path} is ${describeValue(value)}, not a plain object`
    for (const key of Object.keys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!
      if (!('value' in descriptor)) return `${path}.${key} is a getter, not data`
      if (descriptor.value === undefined) continue
      const problem = problemAt(descriptor.value, `${path}.${key}`, depth + 1, open)
      if (problem !== undefined) return problem
    }
    return undefined
  } finally {
    open.delete(value)
  }
}

/** JSON text with object keys sorted, so two equal values always print the same: core's one helper. */
export { canonicalJson } from '@agent-core/core'

/** Parses a tool call's argument text; `undefined` when it is not JSON. An empty text reads as `{}`. */
export function parseArguments(text: string): { readonly value: JsonValue } | undefined {
  if (text.trim() === '') return { value: {} }
  try {
    const value: unknown = JSON.parse(text)
    return jsonProblem(value, 'arguments') === undefined ? { value: value as JsonValue } : undefined
  } catch {
    return undefined
  }
}
