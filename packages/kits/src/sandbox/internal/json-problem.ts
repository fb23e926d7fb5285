import { describeValue } from '@agent-core/core'

/**
 * The first reason `value` is not plain JSON (`"<path> is ..."`), or `undefined`: finite numbers, strings,
 * booleans, null, dense plain arrays and plain objects of data properties (an `undefined` property is
 * accepted, as JSON drops it). Never reads a getter.
 */
export function jsonProblem(
  value: unknown,
  path: string,
  depth = 0,
  open = new Set<object>(),
): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return undefined
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path} is ${describeValue(value)}, which JSON cannot hold`
  if (typeof value !== 'object') return `${path} is ${describeValue(value)}, which is not JSON`
  if (depth >= 200) return `${path} is nested deeper than 200 levels`
  if (open.has(value)) return `${path} refers back to one of its parents (a cycle)`
  const prototype = Object.getPrototypeOf(value)
  const array = Array.isArray(value)
  if (array ? prototype !== Array.prototype : prototype !== Object.prototype && prototype !== null)
    return `${path} is ${describeValue(value)}, not plain data`
  if (Object.getOwnPropertySymbols(value).length > 0) return `${path} has symbol keys`
  open.add(value)
  try {
    const keys = array
      ? Array.from({ length: value.length }, (_, index) => String(index))
      : Object.keys(value)
    for (const key of keys) {
      const at = array ? `${path}[${key}]` : `${path}.${key}`
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      if (descriptor === undefined) return `${at} is a hole`
      if (!('value' in descriptor)) return `${at} is a getter, not data`
      if (descriptor.value === undefined && !array) continue
      const problem = jsonProblem(descriptor.value, at, depth + 1, open)
      if (problem !== undefined) return problem
    }
    return undefined
  } finally {
    open.delete(value)
  }
}
