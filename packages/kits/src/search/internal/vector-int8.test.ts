import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom as random } from '../../testing/seeded-random.js'
import { VectorSearch } from '../index.js'
import { Int8Vectors, int8DotAll } from './vector-int8.js'

function index(count: number, dims: number, seed: number) {
  const next = random(seed)
  const search = new VectorSearch<{ id: string }>({ identity: 'int8-test', dimensions: dims })
  for (let i = 0; i < count; i++)
    search.upsert({
      document: { id: `d${String(i).padStart(5, '0')}` },
      vector: Array.from({ length: dims }, () => next() * 2 - 1),
    })
  return { search, next }
}

describe("VectorSearch precision: 'int8'", () => {
  it('the WebAssembly kernel computes the integer dot products of the JavaScript loop (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).map((n) => n * 16),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (dims, count, seed) => {
          const next = random(seed)
          // extreme values too: all +-1 rows quantize to +-127 everywhere
          const vectors = Float32Array.from({ length: count * dims }, (_, i) =>
            i % 7 === 0 ? (next() < 0.5 ? -1 : 1) : next() * 2 - 1,
          )
          const copy = new Int8Vectors(vectors, count, dims, 0)
          expect(copy.kernel).toBe(true)
          const query = Float32Array.from({ length: dims }, () => next() * 2 - 1)
          const fromKernel = new Float64Array(count)
          copy.scores(query, fromKernel)
          // the same quantization by hand, scored by the JavaScript loop
          const q8 = new Int8Array(dims)
          const qMax = Math.max(...query.map(Math.abs))
          for (let j = 0; j < dims; j++) q8[j] = Math.round(query[j]! * (127 / qMax))
          const data = new Int8Array(count * dims)
          const scales: number[] = []
          for (let row = 0; row < count; row++) {
            const slice = vectors.subarray(row * dims, row * dims + dims)
            const max = Math.max(...slice.map(Math.abs))
            scales.push(max / 127)
            for (let j = 0; j < dims; j++) data[row * dims + j] = Math.round(slice[j]! * (127 / max))
          }
          const dots = new Int32Array(count)
          int8DotAll(data, count, dims, q8, dots)
          for (let row = 0; row < count; row++)
            expect(fromKernel[row]).toBe(dots[row]! * scales[row]! * (qMax / 127))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('serves other dimensions with the JavaScript loop', () => {
    const copy = new Int8Vectors(
      Float32Array.from({ length: 30 }, (_, i) => i - 15),
      3,
      10,
      0,
    )
    expect(copy.kernel).toBe(false)
    const out = new Float64Array(3)
    copy.scores(
      Float32Array.from({ length: 10 }, () => 1),
      out,
    )
    expect(out.every(Number.isFinite)).toBe(true)
  })

  it('returns exact scores, best first, for candidates chosen by int8 scores (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(16, 24, 48),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 15 }),
        (dims, count, seed, limit) => {
          const { search, next } = index(count, dims, seed)
          const vector = Array.from({ length: dims }, () => next() * 2 - 1)
          const exact = search.search({ vector, limit: count })
          const byId = new Map(exact.map((hit) => [hit.id, hit.score]))
          const hits = search.search({ vector, limit, precision: 'int8' })
          expect(hits).toHaveLength(Math.min(limit, count))
          for (const hit of hits) expect(hit.score).toBe(byId.get(hit.id))
          for (let i = 1; i < hits.length; i++) {
            const [a, b] = [hits[i - 1]!, hits[i]!]
            expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true)
          }
          // the candidate pool is at least limit + 32: an index that small is searched whole
          if (count <= limit + 32) expect(hits).toEqual(exact.slice(0, limit))
          // asking for exact gives the default's results, bit for bit
          expect(search.search({ vector, limit, precision: 'exact' })).toEqual(exact.slice(0, limit))
        },
      ),
      { numRuns: 80 },
    )
  })

  it('finds nearly all of the exact top 10 on a larger index', () => {
    const { search, next } = index(3_000, 64, 7)
    let found = 0
    for (let q = 0; q < 20; q++) {
      const vector = Array.from({ length: 64 }, () => next() * 2 - 1)
      const exact = new Set(search.search({ vector, limit: 10 }).map((hit) => hit.id))
      for (const hit of search.search({ vector, limit: 10, precision: 'int8' }))
        if (exact.has(hit.id)) found++
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.95)
  })

  it('applies filter, groupBy and minScore, and rebuilds its copy after a change', () => {
    const { search } = index(200, 32, 3)
    const vector = Array.from({ length: 32 }, (_, i) => (i % 2 ? 1 : -1))
    const even = search.search({
      vector,
      limit: 5,
      precision: 'int8',
      filter: (_document, id) => Number(id.slice(1)) % 2 === 0,
    })
    expect(even.every((hit) => Number(hit.id.slice(1)) % 2 === 0)).toBe(true)
    const grouped = search.search({
      vector,
      limit: 5,
      precision: 'int8',
      groupBy: (_document, id) => id.slice(0, 4),
    })
    expect(new Set(grouped.map((hit) => hit.id.slice(0, 4))).size).toBe(grouped.length)
    const top = search.search({ vector, limit: 1 })[0]!.score
    expect(search.search({ vector, limit: 5, precision: 'int8', minScore: top })).toHaveLength(1)
    search.upsert({ document: { id: 'same' }, vector })
    expect(search.search({ vector, limit: 1, precision: 'int8' })[0]?.id).toBe('same')
    search.remove('same')
    expect(search.search({ vector, limit: 1, precision: 'int8' })[0]?.id).not.toBe('same')
  })

  it('refuses an unknown precision with a typed error', () => {
    const { search } = index(3, 16, 1)
    expect(() =>
      search.search({ vector: Array(16).fill(1), limit: 1, precision: 'float16' as never }),
    ).toThrow(InvalidInputError)
  })
})
