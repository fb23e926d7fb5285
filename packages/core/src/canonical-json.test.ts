import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'
import { InvalidInputError } from './errors/errors.js'

/*
 * The copies canonicalJson replaced, verbatim but for their names, as reference models: on plain JSON the
 * bytes must not change, since two of them fed tool-call signatures (tools) and resume checks (loop), and
 * the search fingerprint is stored with index snapshots.
 */
type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json }

/** kits/src/tools/internal/json.ts (signatures, journals, request keys). */
function toolsCanonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item: Json) => toolsCanonicalJson(item)).join(',')}]`
  const record = value as { readonly [key: string]: Json | undefined }
  const parts: string[] = []
  for (const key of Object.keys(record).sort()) {
    const child = record[key]
    if (child !== undefined) parts.push(`${JSON.stringify(key)}:${toolsCanonicalJson(child)}`)
  }
  return `{${parts.join(',')}}`
}

/** kits/src/loop/internal/json.ts (resume checks, the suspension ledger's state hash). */
function loopCanonicalJson(value: Json | undefined): string {
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item) => loopCanonicalJson(item)).join(',')}]`
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, Json | undefined>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${loopCanonicalJson((value as Record<string, Json>)[key])}`)
  return `{${entries.join(',')}}`
}

/** kits/src/search/internal/fingerprint.ts (configuration fingerprints, stored with snapshots). */
function searchCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(searchCanonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${searchCanonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** kits/src/mcp/internal/tools.ts (listed tool fingerprints). */
function mcpCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(mcpCanonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${mcpCanonical((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** mock/src/schema/json-equal.ts and mock/src/internal/replay.ts (the same text twice; enum sets, replay keys). */
function mockCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(mockCanonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${mockCanonicalJson(record[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** mock/src/schema/generate-from-schema.ts (uniqueness of generated items). */
function mockSchemaCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(mockSchemaCanonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${mockSchemaCanonical(record[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * kits/src/sandbox/internal/host-calls.ts (is a replayed host call's input the saved one). Its text only
 * ever met another of its own, so what must hold is that it tells the same values apart: rebuilding each
 * object with `Object.fromEntries` put integer-like keys ("2", "10") first in numeric order, so its bytes
 * differ from the others' for such keys.
 */
function sandboxCanonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  )
}

const byteCopies: Record<string, (value: Json) => string> = {
  tools: toolsCanonicalJson,
  loop: loopCanonicalJson,
  search: searchCanonicalJson,
  mcp: mcpCanonical,
  mock: mockCanonicalJson,
  'mock schema': mockSchemaCanonical,
}

/** Plain JSON, with keys that sort differently by code units than by any other rule, and integer-like keys. */
const key = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom(
    'a',
    'B',
    'é',
    'z',
    '\u{1F600}',
    '\uFB01',
    '2',
    '10',
    '-1',
    '01',
    '__proto__',
    'constructor',
  ),
)
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value
/** The same value with every object's keys in another order. */
function shuffled(value: Json, seed: number): Json {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item, index) => shuffled(item, seed + index))
  const keys = Object.keys(value)
  const order = keys.map((k, index) => [k, (index * 7919 + seed * 104729) % 97] as const)
  order.sort((a, b) => a[1] - b[1])
  const out: Record<string, Json> = {}
  for (const [k] of order) {
    Object.defineProperty(out, k, {
      value: shuffled((value as Record<string, Json>)[k]!, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

describe('canonicalJson', () => {
  for (const [name, copy] of Object.entries(byteCopies)) {
    it(`prints the same bytes as the copy it replaced in ${name}, on any plain JSON`, () => {
      fc.assert(
        fc.property(json, (value) => {
          expect(canonicalJson(value)).toBe(copy(value))
        }),
        { numRuns: 500 },
      )
    })
  }

  it("tells two JSON values apart exactly when the sandbox's copy did, and prints its bytes without integer-like keys", () => {
    fc.assert(
      fc.property(json, json, fc.nat(), (a, b, seed) => {
        const a2 = shuffled(a, seed)
        expect(canonicalJson(a) === canonicalJson(b)).toBe(sandboxCanonical(a) === sandboxCanonical(b))
        expect(canonicalJson(a) === canonicalJson(a2)).toBe(sandboxCanonical(a) === sandboxCanonical(a2))
        if (!/"(0|[1-9]\d*)":/.test(sandboxCanonical(a))) expect(canonicalJson(a)).toBe(sandboxCanonical(a))
      }),
      { numRuns: 500 },
    )
  })

  it('prints equal JSON values the same whatever their key order, and parses back to the value', () => {
    fc.assert(
      fc.property(json, fc.nat(), (value, seed) => {
        const text = canonicalJson(value)
        expect(canonicalJson(shuffled(value, seed))).toBe(text)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })

  it('drops what JSON drops, as JSON.stringify does', () => {
    const fn = () => 1
    expect(canonicalJson({ b: undefined, a: fn, c: Symbol('s'), d: 1 })).toBe('{"d":1}')
    expect(canonicalJson([undefined, fn, Symbol('s'), Number.NaN, -0, Number.POSITIVE_INFINITY])).toBe(
      '[null,null,null,null,0,null]',
    )
    expect(canonicalJson(undefined)).toBe('null')
    expect(canonicalJson(fn)).toBe('null')
    const proto = JSON.parse('{"__proto__":{"x":1},"a":[]}') as unknown
    expect(canonicalJson(proto)).toBe('{"__proto__":{"x":1},"a":[]}')
  })

  it('reads a class instance as its own enumerable properties and never calls toJSON', () => {
    class Point {
      constructor(
        readonly y: number,
        readonly x: number,
      ) {}
      toJSON(): string {
        return 'point'
      }
    }
    expect(canonicalJson(new Point(2, 1))).toBe('{"x":1,"y":2}')
    expect(canonicalJson(new Date(0))).toBe('{}')
  })

  it('refuses a bigint and a cycle with a typed error', () => {
    expect(() => canonicalJson({ a: [1n] })).toThrow(InvalidInputError)
    expect(() => canonicalJson({ a: [1n] })).toThrow(/bigint 1n/)
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    let error: unknown
    try {
      canonicalJson(cyclic)
    } catch (caught) {
      error = caught
    }
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).details).toMatchObject({ field: 'value' })
    expect((error as Error).message).toMatch(/cycle/)
  })
})
