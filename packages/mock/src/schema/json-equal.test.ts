import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonEqual } from './json-equal.js'

describe('jsonEqual', () => {
  it('agrees with comparing key-sorted JSON', () => {
    const canonical = (v: unknown): string =>
      JSON.stringify(v, (_, x) =>
        x && typeof x === 'object' && !Array.isArray(x)
          ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
          : x,
      )
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        expect(jsonEqual(a, b)).toBe(canonical(a) === canonical(b))
        expect(jsonEqual(a, structuredClone(a))).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})
