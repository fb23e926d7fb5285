import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../testing/seeded-random.js'
import { VectorSearch } from '../index.js'
import { allocateVectors, hasKernel, kernelScores } from './vector-kernel.js'
import { scoreAll } from './vector-math.js'

const root = join(import.meta.dirname, '../../../../..')

describe('the WebAssembly scoring kernel', () => {
  it('is what its text source builds to (scripts/build-wasm.mjs --check)', () => {
    const run = spawnSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })

  it('serves dimensions that are multiples of 8 from 64 KiB on, and nothing else', () => {
    expect(hasKernel(allocateVectors(43 * 384, 384))).toBe(true)
    expect(hasKernel(allocateVectors(42 * 384, 384))).toBe(false)
    expect(hasKernel(allocateVectors(20_000, 10))).toBe(false)
    expect(allocateVectors(43 * 384, 384).every((x) => x === 0)).toBe(true)
  })

  it("gives the JavaScript loop's scores bit for bit, for any float32 values (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }).map((eighths) => eighths * 8),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (dims, count, seed, wild) => {
          // Plain random values, or any float32 at all (tiny, huge, subnormal, negative zero).
          const rows = Math.ceil(16_384 / dims)
          const data = allocateVectors(rows * dims, dims)
          expect(hasKernel(data)).toBe(true)
          const values = fc.sample(
            wild
              ? fc.float({ noNaN: true, noDefaultInfinity: true })
              : fc.float({ min: -1, max: 1, noNaN: true }),
            { numRuns: (count + 1) * dims, seed },
          )
          for (let i = 0; i < count * dims; i++) data[i] = values[i]!
          const query = Float32Array.from(values.slice(count * dims, (count + 1) * dims))
          const expected = new Float64Array(count)
          scoreAll(data, count, dims, query, expected)
          const actual = kernelScores(data, count, dims, query)!
          for (let i = 0; i < count; i++) expect(Object.is(actual[i], expected[i]), `row ${i}`).toBe(true)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('scores a VectorSearch exactly as the JavaScript path does (a nested search takes that path)', () => {
    const dims = 96
    const vectors = new VectorSearch<{ id: string }>({ identity: 'kernel-test', dimensions: dims })
    const random = seededRandom(11)
    const next = () => random() - 0.5
    vectors.upsertMany(
      Array.from({ length: 400 }, (_, i) => ({
        document: { id: `v${i}` },
        vector: Array.from({ length: dims }, next),
      })),
    )
    for (let q = 0; q < 5; q++) {
      const vector = Array.from({ length: dims }, next)
      const outer = vectors.search({ vector, limit: 400 })
      let inner: readonly { id: string; score: number }[] = []
      vectors.search({
        vector,
        limit: 1,
        filter: () => {
          if (inner.length === 0) inner = vectors.search({ vector, limit: 400 })
          return true
        },
      })
      expect(inner.length).toBe(400)
      expect(outer.map((h) => [h.id, h.score])).toEqual(inner.map((h) => [h.id, h.score]))
      for (let i = 0; i < outer.length; i++) expect(Object.is(outer[i]!.score, inner[i]!.score)).toBe(true)
    }
  })
})
