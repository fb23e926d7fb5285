import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson, copyJson, type JsonValue, jsonProblem } from './json.js'

/** The reference model: a value is plain JSON when a JSON round trip gives it back unchanged. */
function survivesJson(value: unknown): boolean {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    return false
  }
  return text !== undefined && sameAsParsed(value, JSON.parse(text))
}

function sameAsParsed(original: unknown, parsed: unknown): boolean {
  if (typeof original === 'number')
    return typeof parsed === 'number' && (original === parsed || (original === 0 && parsed === 0))
  if (original === null || typeof original !== 'object') return original === parsed
  if (Array.isArray(original)) {
    if (Object.getPrototypeOf(original) !== Array.prototype || !Array.isArray(parsed)) return false
    if (original.length !== parsed.length) return false
    for (let i = 0; i < original.length; i++) {
      if (!Object.hasOwn(original, i) || !sameAsParsed(original[i], parsed[i])) return false
    }
    return true
  }
  const prototype = Object.getPrototypeOf(original)
  if ((prototype !== Object.prototype && prototype !== null) || typeof parsed !== 'object' || parsed === null)
    return false
  if (Object.getOwnPropertySymbols(original).length > 0) return false
  const keys = Object.keys(original).filter((key) => (original as Record<string, unknown>)[key] !== undefined)
  const parsedKeys = Object.keys(parsed)
  return (
    keys.length === parsedKeys.length &&
    keys.every((key) =>
      sameAsParsed((original as Record<string, unknown>)[key], (parsed as Record<string, unknown>)[key]),
    )
  )
}

const exotic = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
})

/** The same JSON value with every object's keys in another order. */
function shuffled(value: JsonValue, seed: number): JsonValue {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item: JsonValue, i) => shuffled(item, seed + i))
  const entries = Object.entries(value as Record<string, JsonValue>)
  const rotated = entries.length
    ? [...entries.slice(seed % entries.length), ...entries.slice(0, seed % entries.length)]
    : []
  return Object.fromEntries(rotated.reverse().map(([key, child], i) => [key, shuffled(child, seed + i)]))
}

describe('jsonProblem', () => {
  it('accepts a value exactly when it survives a JSON round trip', () => {
    fc.assert(
      fc.property(fc.oneof(exotic, fc.jsonValue()), (value) => {
        expect(jsonProblem(value) === undefined).toBe(survivesJson(value))
      }),
      { numRuns: 2000 },
    )
  })

  it('names where the problem is', () => {
    expect(jsonProblem({ a: [1, { b: Number.NaN }] })).toBe('.a[1].b is NaN, which JSON cannot hold')
    // biome-ignore lint/suspicious/noSparseArray: a hole is the point
    expect(jsonProblem([1, , 3])).toBe('[1] is a hole, which JSON cannot hold')
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(jsonProblem(cycle, 'input')).toBe('input.self refers back to one of its parents (a cycle)')
    const shared = { x: 1 }
    expect(jsonProblem({ a: shared, b: [shared] })).toBeUndefined()
    expect(jsonProblem(Object.defineProperty({}, 'g', { get: () => 1, enumerable: true }))).toBe(
      '.g is a getter, not data',
    )
    expect(jsonProblem({ [Symbol('s')]: 1 })).toBe('the value has symbol keys, which JSON cannot hold')
    let deep: unknown = 0
    for (let i = 0; i < 5000; i++) deep = [deep]
    expect(jsonProblem(deep)).toMatch(/nested deeper than 1000 levels/)
  })
})

describe('canonicalJson', () => {
  it('serializes equal JSON values to the same text, whatever their key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        const text = canonicalJson(value as JsonValue)
        expect(canonicalJson(shuffled(value as JsonValue, seed))).toBe(text)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        expect(canonicalJson(JSON.parse(text))).toBe(text)
      }),
      { numRuns: 1000 },
    )
  })

  it('sorts keys by UTF-16 code units and drops undefined properties', () => {
    expect(canonicalJson({ b: 1, a: [true, null], é: 'x', Z: 2 } as JsonValue)).toBe(
      '{"Z":2,"a":[true,null],"b":1,"é":"x"}',
    )
    expect(canonicalJson({ a: undefined, b: 1 } as unknown as JsonValue)).toBe('{"b":1}')
  })
})

describe('copyJson', () => {
  it('copies exactly what JSON would', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.stringify(copyJson(value as JsonValue))).toBe(JSON.stringify(value))
      }),
    )
    const hostile = JSON.parse('{"__proto__":{"admin":true},"a":1}')
    const copy = copyJson(hostile) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect((copy as { admin?: unknown }).admin).toBeUndefined()
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"admin":true},"a":1}')
  })

  it('detaches and freezes a copy', () => {
    const original = { list: [{ n: 1 }] }
    const copy = copyJson(original)
    original.list[0]!.n = 2
    expect(copy).toEqual({ list: [{ n: 1 }] })
    expect(Object.isFrozen(copy.list[0])).toBe(true)
  })
})
