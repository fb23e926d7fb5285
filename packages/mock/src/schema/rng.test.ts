import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from './rng.js'

function draw(seed: number, n: number): number[] {
  const rng = createRng(seed)
  return Array.from({ length: n }, () => rng.next())
}

describe('createRng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        expect(draw(seed, 20)).toEqual(draw(seed, 20))
        expect(draw(seed, 20)).not.toEqual(draw(seed + 1, 20))
      }),
      { numRuns: 200 },
    )
  })

  it('accepts non-integer and large seeds and keeps them apart', () => {
    expect(draw(0.5, 5)).not.toEqual(draw(0, 5))
    expect(draw(2 ** 40, 5)).not.toEqual(draw(0, 5))
    expect(draw(-0, 5)).toEqual(draw(0, 5))
  })

  it('next() stays in [0, 1) and int() stays within inclusive bounds', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: -1000, max: 1000 }), fc.nat(50), (seed, min, width) => {
        const rng = createRng(seed)
        for (let i = 0; i < 50; i++) {
          const u = rng.next()
          expect(u >= 0 && u < 1).toBe(true)
          const k = rng.int(min, min + width)
          expect(Number.isInteger(k) && k >= min && k <= min + width).toBe(true)
        }
      }),
    )
  })

  it('is roughly uniform (chi-square over 10 buckets) and reaches both ends of int ranges', () => {
    const rng = createRng(12345)
    const buckets = new Array<number>(10).fill(0)
    const n = 100_000
    for (let i = 0; i < n; i++) buckets[Math.floor(rng.next() * 10)]!++
    const expected = n / 10
    const chi = buckets.reduce((s, b) => s + (b - expected) ** 2 / expected, 0)
    expect(chi).toBeLessThan(27.88) // p = 0.001 for 9 degrees of freedom
    const seen = new Set<number>()
    for (let i = 0; i < 2000; i++) seen.add(rng.int(1, 6))
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5, 6])
    let trues = 0
    for (let i = 0; i < 10_000; i++) if (rng.bool()) trues++
    expect(trues).toBeGreaterThan(4700)
    expect(trues).toBeLessThan(5300)
  })

  it('handles ranges wider than 2^32', () => {
    const rng = createRng(3)
    const values = Array.from({ length: 100 }, () => rng.int(0, 2 ** 50))
    expect(values.every((v) => Number.isSafeInteger(v) && v >= 0 && v <= 2 ** 50)).toBe(true)
    expect(values.some((v) => v > 2 ** 40)).toBe(true)
  })

  it('fork(label) depends only on the key and the label, not on what was drawn', () => {
    const a = createRng(7)
    const b = createRng(7)
    b.next()
    b.int(0, 9)
    const fa = a.fork('user')
    const fb = b.fork('user')
    expect([fa.next(), fa.next(), fa.next()]).toEqual([fb.next(), fb.next(), fb.next()])
    expect(a.fork('user').next()).not.toBe(a.fork('users').next())
    expect(a.fork('x').fork('y').next()).toBe(createRng(7).fork('x').fork('y').next())
    // the fork does not disturb the parent stream
    const c = createRng(7)
    const d = createRng(7)
    c.fork('anything')
    expect(c.next()).toBe(d.next())
  })

  it('pick() returns every element eventually', () => {
    const rng = createRng(1)
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) seen.add(rng.pick(['a', 'b', 'c']))
    expect(seen).toEqual(new Set(['a', 'b', 'c']))
  })

  it('rejects bad input with InvalidInputError', () => {
    expect(() => createRng(Number.NaN)).toThrow(InvalidInputError)
    expect(() => createRng(Number.POSITIVE_INFINITY)).toThrow(/finite number/)
    expect(() => createRng('1' as unknown as number)).toThrow(InvalidInputError)
    const rng = createRng(1)
    expect(() => rng.int(5, 1)).toThrow(/min <= max/)
    expect(() => rng.int(0.5, 3)).toThrow(InvalidInputError)
    expect(() => rng.int(0, Number.MAX_SAFE_INTEGER + 2)).toThrow(InvalidInputError)
    expect(() => rng.pick([])).toThrow(/non-empty array/)
    expect(() => rng.fork(1 as unknown as string)).toThrow(InvalidInputError)
  })
})
