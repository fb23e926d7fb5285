import { DuplicateIdError, InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../testing/seeded-random.js'
import { type Ranking, reciprocalRankFusion } from './index.js'

/** Reference model: the RRF formula applied naively, then sorted by the documented order. */
function formula(lists: readonly Ranking[], k: number, window: number) {
  const ids = new Set(lists.flatMap((l) => l.hits.slice(0, window).map((h) => h.id)))
  const rows = [...ids].map((id) => {
    let score = 0
    let bestRank = Number.POSITIVE_INFINITY
    const contributions: { sourceId: string; rank: number; weight: number; contribution: number }[] = []
    for (const list of lists) {
      const index = list.hits.slice(0, window).findIndex((h) => h.id === id)
      if (index < 0) continue
      const weight = list.weight ?? 1
      const contribution = weight / (k + index + 1)
      score += contribution
      bestRank = Math.min(bestRank, index + 1)
      contributions.push({ sourceId: list.sourceId, rank: index + 1, weight, contribution })
    }
    return { id, score, bestRank, contributions }
  })
  rows.sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || (a.id < b.id ? -1 : 1))
  return rows.map(({ id, score, contributions }, i) => ({ id, score, rank: i + 1, contributions }))
}

/** A ranking named `sourceId` of up to `maxHits` distinct ids of `universe`, with one of `weights` or none. */
function rankingOf(
  sourceId: string,
  universe: fc.Arbitrary<string>,
  maxHits: number,
  weights: readonly number[],
) {
  return fc.record({
    sourceId: fc.constant(sourceId),
    hits: fc.uniqueArray(universe, { maxLength: maxHits }).map((ids) => ids.map((id) => ({ id }))),
    weight: fc.option(fc.constantFrom(...weights), { nil: undefined }),
  })
}

/** One to `maxLists` rankings named s0, s1, ... made by `ranking`. */
function rankingsOf(maxLists: number, ranking: (sourceId: string) => fc.Arbitrary<Ranking>) {
  return fc
    .array(fc.nat(), { minLength: 1, maxLength: maxLists })
    .chain((seeds) => fc.tuple(...seeds.map((_, i) => ranking(`s${i}`))))
}

/** The fused results without each contribution's hit (the reference model has none). */
function withoutHits(fused: ReturnType<typeof reciprocalRankFusion>) {
  return fused.map(({ id, score, rank, contributions }) => ({
    id,
    score,
    rank,
    contributions: contributions.map(({ hit: _hit, ...rest }) => rest),
  }))
}

const ranking = (sourceId: string) =>
  rankingOf(sourceId, fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), 8, [0.5, 1, 2, 3])

describe('reciprocalRankFusion', () => {
  it('scores 1 / (k + rank) with k = 60 and ranks from 1', () => {
    const fused = reciprocalRankFusion([
      { sourceId: 'text', hits: [{ id: 'a' }, { id: 'b' }] },
      { sourceId: 'vector', hits: [{ id: 'b' }, { id: 'c' }] },
    ])
    expect(fused.map((f) => [f.id, f.rank])).toEqual([
      ['b', 1],
      ['a', 2],
      ['c', 3],
    ])
    expect(fused[0]!.score).toBe(1 / 62 + 1 / 61)
    expect(fused[0]!.contributions).toEqual([
      { sourceId: 'text', rank: 2, weight: 1, contribution: 1 / 62, hit: { id: 'b' } },
      { sourceId: 'vector', rank: 1, weight: 1, contribution: 1 / 61, hit: { id: 'b' } },
    ])
  })

  it('equals the formula for any lists, weights, k and rank window (property)', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(ranking('s1'), ranking('s2'), ranking('s3'))
          .chain((all) => fc.subarray(all).map((lists) => lists as Ranking[])),
        fc.constantFrom(0, 1, 60, 2.5),
        fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        (lists, k, rankWindow, limit) => {
          const actual = reciprocalRankFusion(lists, { k, rankWindow, limit })
          const expected = formula(lists, k, rankWindow ?? Number.POSITIVE_INFINITY).slice(0, limit)
          expect(withoutHits(actual)).toEqual(expected)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('equals the formula, tie order included, for long lists with many ties (property)', () => {
    // Long lists over a small universe, equal or doubled weights and integer-friendly k: many ids share a
    // score (the same ranks in other lists), which the linear sort must order by best rank, then id.
    const universe = fc.constantFrom(
      ...Array.from({ length: 40 }, (_, i) => `id-${i}`),
      'ü',
      '\u{1F600}',
      '\uFFFF',
      'Z',
      'a',
    )
    fc.assert(
      fc.property(
        rankingsOf(12, (sourceId) => rankingOf(sourceId, universe, 45, [1, 2])),
        fc.constantFrom(0, 1, 60),
        fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
        (lists, k, rankWindow, limit) => {
          const actual = reciprocalRankFusion(lists, { k, rankWindow, limit })
          const expected = formula(lists, k, rankWindow ?? Number.POSITIVE_INFINITY).slice(0, limit)
          expect(withoutHits(actual)).toEqual(expected)
          for (const fused of actual) {
            for (const c of fused.contributions) {
              expect(c.hit).toBe(lists.find((l) => l.sourceId === c.sourceId)!.hits[c.rank - 1])
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('equals the formula when scores differ only below their top 32 bits (huge k, property)', () => {
    // With k = 1e9 every score is about weight * 1e-9 and distinct scores share their sign, exponent and
    // top 20 mantissa bits, which the radix sort keys on: the order within those runs (short ones and
    // ones longer than 16) comes from the full comparison alone.
    const universe = fc.constantFrom(...Array.from({ length: 30 }, (_, i) => `id-${i}`))
    fc.assert(
      fc.property(
        rankingsOf(6, (sourceId) => rankingOf(sourceId, universe, 30, [1, 1.5])),
        fc.constantFrom(1e9, 1e12, 123_456_789.5),
        fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
        (lists, k, limit) => {
          const actual = reciprocalRankFusion(lists, { k, limit })
          const expected = formula(lists, k, Number.POSITIVE_INFINITY).slice(0, limit)
          expect(withoutHits(actual)).toEqual(expected)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('orders a large tie by id in UTF-16 code-unit order', () => {
    // 2,000 lists of one id each: every id scores 1 / 61 with best rank 1.
    const ids = Array.from({ length: 2000 }, (_, i) => `${String.fromCodePoint(0x1f600 + (i % 7))}${i}`)
    ids.push('\uFFFF', 'z', 'A')
    const fused = reciprocalRankFusion(ids.map((id, i) => ({ sourceId: `s${i}`, hits: [{ id }] })))
    const sorted = [...ids].sort()
    expect(fused.map((f) => f.id)).toEqual(sorted)
    expect(new Set(fused.map((f) => f.score))).toEqual(new Set([1 / 61]))
  })

  it('scores large fusions exactly like the formula (100 lists of 1,000 over 3,000 ids)', () => {
    const next = seededRandom(7)
    const lists: Ranking[] = Array.from({ length: 100 }, (_, l) => {
      const pool = Array.from({ length: 3000 }, (_, i) => i)
      for (let i = 0; i < 1000; i++) {
        const j = i + Math.floor(next() * (3000 - i))
        ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
      }
      return {
        sourceId: `s${l}`,
        hits: pool.slice(0, 1000).map((i) => ({ id: `doc-${i}` })),
        weight: 1 + (l % 3),
      }
    })
    const fused = reciprocalRankFusion(lists, { k: 10 })
    // The reference model, written with Maps so that it finishes quickly at this size.
    const rows = new Map<string, { score: number; best: number; sources: string[] }>()
    for (const list of lists) {
      list.hits.forEach((hit, i) => {
        const row = rows.get(hit.id) ?? { score: 0, best: Number.POSITIVE_INFINITY, sources: [] }
        row.score += (list.weight ?? 1) / (10 + i + 1)
        row.best = Math.min(row.best, i + 1)
        row.sources.push(list.sourceId)
        rows.set(hit.id, row)
      })
    }
    const expected = [...rows].sort(
      ([ia, a], [ib, b]) => b.score - a.score || a.best - b.best || (ia < ib ? -1 : 1),
    )
    expect(fused.map((f) => [f.id, f.score])).toEqual(expected.map(([id, r]) => [id, r.score]))
    expect(fused.map((f) => f.contributions.map((c) => c.sourceId))).toEqual(
      expected.map(([, r]) => r.sources),
    )
    expect(reciprocalRankFusion(lists, { k: 10, limit: 25 })).toEqual(fused.slice(0, 25))
  })

  it('orders equal scores by best rank, then id', () => {
    // x and y both score 1/61 + 1/62; z scores the same from ranks 1 and 2 in other lists.
    const fused = reciprocalRankFusion([
      { sourceId: 'a', hits: [{ id: 'y' }, { id: 'x' }] },
      { sourceId: 'b', hits: [{ id: 'x' }, { id: 'y' }] },
      { sourceId: 'c', hits: [{ id: 'w' }] },
      { sourceId: 'd', hits: [{ id: 'v' }] },
    ])
    expect(fused.map((f) => f.id)).toEqual(['x', 'y', 'v', 'w'])
    // With k = 0: p scores 2 / 2 (rank 2, weight 2), q scores 1 / 1 (rank 1): equal, q has the better rank.
    const weighted = reciprocalRankFusion(
      [
        { sourceId: 'a', hits: [{ id: 'o' }, { id: 'p' }], weight: 2 },
        { sourceId: 'b', hits: [{ id: 'q' }] },
      ],
      { k: 0 },
    )
    expect(weighted.map((f) => [f.id, f.score])).toEqual([
      ['o', 2],
      ['q', 1],
      ['p', 1],
    ])
  })

  it('fuses search hits without looking at their scores, and keeps the hits', () => {
    const text = [
      { id: 'a', score: 120.5, document: { title: 'A' } },
      { id: 'b', score: 3, document: { title: 'B' } },
    ]
    const vector = [
      { id: 'b', score: 0.2, document: { title: 'B' } },
      { id: 'a', score: 0.1, document: { title: 'A' } },
    ]
    const fused = reciprocalRankFusion([
      { sourceId: 'text', hits: text },
      { sourceId: 'vector', hits: vector, weight: 2 },
    ])
    expect(fused.map((f) => f.id)).toEqual(['b', 'a'])
    expect(fused[0]!.contributions[1]!.hit).toBe(vector[0])
  })

  it('handles no lists, empty lists and limit 0', () => {
    expect(reciprocalRankFusion([])).toEqual([])
    expect(reciprocalRankFusion([{ sourceId: 'a', hits: [] }])).toEqual([])
    expect(reciprocalRankFusion([{ sourceId: 'a', hits: [{ id: 'x' }] }], { limit: 0 })).toEqual([])
  })

  it('rejects bad input', () => {
    const ok = { sourceId: 's', hits: [{ id: 'a' }] }
    const badLists: unknown[] = [
      'lists',
      [null],
      [{ hits: [] }],
      [{ sourceId: '', hits: [] }],
      [{ sourceId: 's', hits: 'a' }],
      [{ sourceId: 's', hits: [{ id: '' }] }],
      [{ sourceId: 's', hits: [{ id: 3 }] }],
      [{ sourceId: 's', hits: [null] }],
      [{ sourceId: 's', hits: [{ id: 'a' }, { id: 'a' }] }],
      [{ ...ok, weight: 0 }],
      [{ ...ok, weight: -1 }],
      [{ ...ok, weight: Number.NaN }],
    ]
    for (const lists of badLists) {
      expect(() => reciprocalRankFusion(lists as Ranking[]), JSON.stringify(lists)).toThrow(InvalidInputError)
    }
    expect(() => reciprocalRankFusion([ok, ok])).toThrow(DuplicateIdError)
    for (const options of [
      { k: -1 },
      { k: Number.NaN },
      { k: Number.POSITIVE_INFINITY },
      { rankWindow: 0 },
      { rankWindow: 1.5 },
      { limit: -1 },
      { limit: Number.NaN },
      { limit: 1.5 },
      null,
    ]) {
      expect(() => reciprocalRankFusion([ok], options as never), JSON.stringify(options)).toThrow(
        InvalidInputError,
      )
    }
  })

  it('a repeated id outside the rank window is not an error', () => {
    const fused = reciprocalRankFusion([{ sourceId: 's', hits: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] }], {
      rankWindow: 2,
    })
    expect(fused.map((f) => f.id)).toEqual(['a', 'b'])
  })

  it('reports the first bad hit or repeated id in the order the lists are read (property)', () => {
    // Reference: a scan that checks each hit in turn, lists in order, within the rank window.
    const firstFault = (lists: readonly { sourceId: string; hits: readonly unknown[] }[], window: number) => {
      for (const [l, { hits }] of lists.entries()) {
        const seen = new Map<string, number>()
        for (const [i, hit] of hits.slice(0, window).entries()) {
          const id = typeof hit === 'object' && hit !== null ? (hit as { id?: unknown }).id : undefined
          if (typeof id !== 'string' || id.length === 0) return { field: `lists[${l}].hits[${i}].id` }
          const first = seen.get(id)
          if (first !== undefined) return { field: `lists[${l}].hits[${i}].id`, ranks: [first, i + 1] }
          seen.set(id, i + 1)
        }
      }
      return undefined
    }
    const hit = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c', 'd').map((id) => ({ id })) },
      { weight: 1, arbitrary: fc.constantFrom(null, { id: '' }, { id: 3 }, {}) },
    )
    fc.assert(
      fc.property(
        fc.array(fc.array(hit, { maxLength: 6 }), { maxLength: 4 }),
        fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
        (hitLists, rankWindow) => {
          const lists = hitLists.map((hits, l) => ({ sourceId: `s${l}`, hits }))
          const expected = firstFault(lists, rankWindow ?? Number.POSITIVE_INFINITY)
          let error: unknown
          try {
            reciprocalRankFusion(lists as Ranking[], { rankWindow })
          } catch (caught) {
            error = caught
          }
          if (expected === undefined) {
            expect(error).toBeUndefined()
            return
          }
          expect(error).toBeInstanceOf(InvalidInputError)
          const { details } = error as InvalidInputError & { details: { field: string; ranks?: number[] } }
          expect({ field: details.field, ...(details.ranks ? { ranks: details.ranks } : {}) }).toEqual(
            expected,
          )
        },
      ),
      { numRuns: 500 },
    )
  })
})
