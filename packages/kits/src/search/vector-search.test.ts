import {
  AgentCoreError,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { VectorSearch, type VectorSearchSnapshot } from './index.js'

interface Doc {
  id: string
  group: string
  tags: string[]
  meta?: { n: number }
}

function errorOf(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

/** A copy of `values` with index `at` deleted: a sparse array. */
function withHole(values: number[], at: number): number[] {
  const out = [...values]
  delete out[at]
  return out
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

/** Reference model: brute-force cosine of every entry, sorted by score then id, then filtered/grouped. */
function bruteForce(
  entries: ReadonlyMap<string, { doc: Doc; vector: number[] }>,
  query: readonly number[],
  options: { limit: number; minScore?: number; filter?: (d: Doc) => boolean; groupBy?: (d: Doc) => string },
): { id: string; score: number }[] {
  const scored = [...entries.values()].map((e) => ({
    id: e.doc.id,
    score: cosine(e.vector, query),
    doc: e.doc,
  }))
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
  const out: { id: string; score: number }[] = []
  const groups = new Set<string>()
  for (const s of scored) {
    if (out.length === options.limit) break
    if (options.minScore !== undefined && s.score < options.minScore) continue
    if (options.filter && !options.filter(s.doc)) continue
    if (options.groupBy) {
      const key = options.groupBy(s.doc)
      if (groups.has(key)) continue
      groups.add(key)
    }
    out.push({ id: s.id, score: s.score })
  }
  return out
}

const EPS = 1e-5

/**
 * The index computes in float32 storage, the reference in float64: scores agree within EPS, and ids agree
 * rank by rank except where the reference has another candidate within EPS (a near tie).
 */
function expectSameRanking(
  actual: readonly { id: string; score: number }[],
  expected: readonly { id: string; score: number }[],
  referenceScore: (id: string) => number,
) {
  expect(actual.length).toBe(expected.length)
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!
    const e = expected[i]!
    expect(Math.abs(a.score - e.score)).toBeLessThan(EPS)
    if (a.id !== e.id) expect(Math.abs(referenceScore(a.id) - e.score)).toBeLessThan(EPS)
  }
  // The actual order is exactly score-descending, then id-ascending.
  for (let i = 1; i < actual.length; i++) {
    const p = actual[i - 1]!
    const c = actual[i]!
    expect(p.score > c.score || (p.score === c.score && p.id < c.id)).toBe(true)
  }
}

const small = fc.integer({ min: -4, max: 4 })
const vector3 = fc.tuple(small, small, small).filter((v) => v.some((x) => x !== 0))

describe('VectorSearch', () => {
  it('finds the most similar vectors by cosine similarity', () => {
    const index = new VectorSearch<{ id: string; name: string }>({ identity: 'toy', dimensions: 2 })
    index.upsert({ document: { id: 'north', name: 'N' }, vector: [0, 1] })
    index.upsert({ document: { id: 'east', name: 'E' }, vector: [3, 0] })
    index.upsert({ document: { id: 'northeast', name: 'NE' }, vector: [1, 1] })
    const hits = index.search({ vector: [0, 5], limit: 2 })
    expect(hits.map((h) => h.id)).toEqual(['north', 'northeast'])
    expect(hits[0]!.score).toBeCloseTo(1, 6)
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 6)
    expect(hits[0]!.document).toEqual({ id: 'north', name: 'N' })
    expect(index.size).toBe(3)
  })

  it('top-k equals a brute-force sort (property, with exact ties from scaled duplicates)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(vector3, fc.constantFrom(1, 2, 4), fc.constantFrom('g1', 'g2', 'g3')), {
          maxLength: 40,
        }),
        vector3,
        fc.integer({ min: 0, max: 45 }),
        fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        (raw, query, limit, minScore, useFilter, useGroup) => {
          const index = new VectorSearch<Doc>({ identity: 'prop', dimensions: 3 })
          const model = new Map<string, { doc: Doc; vector: number[] }>()
          raw.forEach(([v, scale, group], i) => {
            // Ids not in insertion order, so that tie-breaking by id is really exercised.
            const id = `d${(i * 7919) % 101}`
            const doc: Doc = { id, group, tags: [group] }
            const vector = v.map((x) => x * scale)
            index.upsert({ document: doc, vector })
            model.set(id, { doc, vector })
          })
          const filter = useFilter ? (d: Doc) => d.group !== 'g2' : undefined
          const groupBy = useGroup ? (d: Doc) => d.group : undefined
          const actual = index.search({ vector: query, limit, minScore, filter, groupBy })
          const expected = bruteForce(model, query, { limit, minScore, filter, groupBy })
          if (minScore !== undefined || useFilter || useGroup) {
            // Near the minScore threshold the float32 index may keep or drop a hit the float64 model
            // does not; these invariants hold regardless.
            for (const hit of actual) {
              expect(hit.score).toBeGreaterThanOrEqual((minScore ?? -2) - EPS)
              if (useFilter) expect(hit.document.group).not.toBe('g2')
            }
            if (useGroup) expect(new Set(actual.map((h) => h.document.group)).size).toBe(actual.length)
          }
          if (minScore === undefined) {
            expectSameRanking(actual, expected, (id) => cosine(model.get(id)!.vector, query))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('breaks exact ties by id, whatever the insertion order', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 2 })
    for (const id of ['c', 'a', 'd', 'b']) index.upsert({ document: { id }, vector: [1, 1] })
    expect(index.search({ vector: [1, 1], limit: 3 }).map((h) => h.id)).toEqual(['a', 'b', 'c'])
    expect(index.search({ vector: [1, 1], limit: 3, filter: (d) => d.id !== 'a' }).map((h) => h.id)).toEqual([
      'b',
      'c',
      'd',
    ])
  })

  it('keeps the best hit per group and applies minScore', () => {
    const index = new VectorSearch<{ id: string; file: string }>({ identity: 't', dimensions: 2 })
    index.upsertMany([
      { document: { id: 'a1', file: 'a' }, vector: [1, 0] },
      { document: { id: 'a2', file: 'a' }, vector: [0.9, 0.1] },
      { document: { id: 'b1', file: 'b' }, vector: [0.8, 0.3] },
      { document: { id: 'c1', file: 'c' }, vector: [-1, 0] },
    ])
    const hits = index.search({ vector: [1, 0], limit: 10, groupBy: (d) => d.file, minScore: 0 })
    expect(hits.map((h) => h.id)).toEqual(['a1', 'b1'])
  })

  it('gives filter, groupBy and hits independent copies of the document', () => {
    const index = new VectorSearch<Doc>({ identity: 't', dimensions: 2 })
    const original: Doc = { id: 'x', group: 'g', tags: ['t'], meta: { n: 1 } }
    index.upsert({ document: original, vector: [1, 0] })
    original.tags.push('changed by caller')
    original.meta!.n = 99
    const seen: Doc[] = []
    const hits = index.search({
      vector: [1, 0],
      limit: 1,
      filter: (d) => {
        seen.push(d)
        d.tags.push('changed by filter')
        return true
      },
      groupBy: (d) => {
        seen.push(d)
        expect(d.tags).toEqual(['t'])
        d.meta!.n = 7
        return d.group
      },
    })
    expect(seen[0]).not.toBe(seen[1])
    expect(hits[0]!.document).toEqual({ id: 'x', group: 'g', tags: ['t'], meta: { n: 1 } })
    ;(hits[0]!.document as Doc).tags.push('changed by caller')
    expect(index.get('x')).toEqual({ id: 'x', group: 'g', tags: ['t'], meta: { n: 1 } })
    expect(index.search({ vector: [1, 0], limit: 1 })[0]!.document.tags).toEqual(['t'])
  })

  it('upsert replaces by id; remove deletes and keeps the rest searchable', () => {
    const index = new VectorSearch<{ id: string; v: number }>({ identity: 't', dimensions: 2 })
    index.upsert({ document: { id: 'a', v: 1 }, vector: [1, 0] })
    index.upsert({ document: { id: 'b', v: 1 }, vector: [0, 1] })
    index.upsert({ document: { id: 'c', v: 1 }, vector: [-1, 0] })
    index.upsert({ document: { id: 'a', v: 2 }, vector: [0, -1] })
    expect(index.size).toBe(3)
    expect(index.search({ vector: [0, -1], limit: 1 })[0]).toMatchObject({ id: 'a', document: { v: 2 } })
    expect(index.remove('a')).toBe(true)
    expect(index.remove('a')).toBe(false)
    expect(index.has('a')).toBe(false)
    expect(index.get('a')).toBeUndefined()
    expect(index.search({ vector: [-1, 0], limit: 5 }).map((h) => h.id)).toEqual(['c', 'b'])
    expect(index.ids().sort()).toEqual(['b', 'c'])
  })

  it('matches the model under random upserts and removes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('upsert' as const),
              id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
              v: vector3,
            }),
            fc.record({ op: fc.constant('remove' as const), id: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
          ),
          { maxLength: 30 },
        ),
        vector3,
        (ops, query) => {
          const index = new VectorSearch<Doc>({ identity: 'ops', dimensions: 3 })
          const model = new Map<string, { doc: Doc; vector: number[] }>()
          for (const op of ops) {
            if (op.op === 'upsert') {
              const doc = { id: op.id, group: 'g', tags: [] }
              index.upsert({ document: doc, vector: op.v })
              model.set(op.id, { doc, vector: op.v })
            } else {
              expect(index.remove(op.id)).toBe(model.delete(op.id))
            }
          }
          expect(index.size).toBe(model.size)
          const actual = index.search({ vector: query, limit: 5 })
          expectSameRanking(actual, bruteForce(model, query, { limit: 5 }), (id) =>
            cosine(model.get(id)!.vector, query),
          )
        },
      ),
    )
  })

  it('limit 0 returns no hits, but the request is still checked', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 2 })
    index.upsert({ document: { id: 'a' }, vector: [1, 0] })
    expect(index.search({ vector: [1, 0], limit: 0 })).toEqual([])
    expect(() => index.search({ vector: [Number.NaN, 0], limit: 0 })).toThrow(InvalidInputError)
  })

  it('rejects bad vectors: NaN, Infinity, sparse, wrong length, all zeros, wrong type', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 3 })
    const sparse = withHole([1, 2, 3], 1)
    const bad: unknown[] = [
      [1, Number.NaN, 0],
      [1, Number.POSITIVE_INFINITY, 0],
      sparse,
      [1, 2],
      [1, 2, 3, 4],
      [0, 0, 0],
      [1, '2', 3],
      'abc',
      null,
      new Int32Array([1, 2, 3]),
    ]
    for (const vector of bad) {
      const error = errorOf(() => index.upsert({ document: { id: 'a' }, vector: vector as number[] }))
      expect(InvalidInputError.isInstance(error), String(vector)).toBe(true)
      expect(
        InvalidInputError.isInstance(errorOf(() => index.search({ vector: vector as number[], limit: 1 }))),
      ).toBe(true)
    }
    expect(
      (errorOf(() => index.upsert({ document: { id: 'a' }, vector: sparse })) as Error).message,
    ).toContain('sparse')
    expect(index.size).toBe(0)
  })

  it('accepts Float32Array and Float64Array and extreme magnitudes', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 2 })
    index.upsert({ document: { id: 'big' }, vector: [1e300, 1e300] })
    index.upsert({ document: { id: 'tiny' }, vector: new Float64Array([5e-324, 0]) })
    index.upsert({ document: { id: 'f32' }, vector: new Float32Array([0, 2]) })
    const hits = index.search({ vector: [1, 1], limit: 3 })
    expect(hits[0]!.id).toBe('big')
    expect(hits[0]!.score).toBeCloseTo(1, 6)
    expect(hits.every((h) => Number.isFinite(h.score))).toBe(true)
  })

  it('rejects documents that structuredClone cannot copy faithfully, or that lack a string id', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 1 })
    class Tag {}
    const bad: unknown[] = [
      { id: 'f', run: () => 1 },
      { id: 's', sym: Symbol('x') },
      { id: 'k', [Symbol('key')]: 1 },
      { id: 'c', tag: new Tag() },
      { id: 'w', weak: new WeakMap() },
      { id: 'p', later: Promise.resolve(1) },
      { id: '' },
      { id: 5 },
      {},
      null,
      ['id'],
    ]
    for (const document of bad) {
      const error = errorOf(() => index.upsert({ document: document as { id: string }, vector: [1] }))
      expect(InvalidInputError.isInstance(error)).toBe(true)
    }
    expect(index.size).toBe(0)
  })

  it('upsertMany is all or nothing', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 1 })
    expect(() =>
      index.upsertMany([
        { document: { id: 'a' }, vector: [1] },
        { document: { id: 'b' }, vector: [Number.NaN] },
      ]),
    ).toThrow(InvalidInputError)
    expect(index.size).toBe(0)
    expect(() => index.upsertMany('x' as never)).toThrow(InvalidInputError)

    index.upsert({ document: { id: 'a' }, vector: [1] })
    const before = index.snapshot()
    expect(() =>
      index.upsertMany([
        { document: { id: 'a' }, vector: [-1] },
        { document: { id: 'b' }, vector: [1] },
        { document: { id: 'c' }, vector: ['x' as never] },
      ]),
    ).toThrow(InvalidInputError)
    expect(index.snapshot()).toEqual(before)
  })

  it('upsertMany applies repeated ids in order (the last wins) next to new ones', () => {
    const index = new VectorSearch<{ id: string; n: number }>({ identity: 't', dimensions: 2 })
    index.upsert({ document: { id: 'old', n: 0 }, vector: [1, 1] })
    index.upsertMany([
      { document: { id: 'a', n: 1 }, vector: [1, 0] },
      { document: { id: 'b', n: 1 }, vector: [0, 1] },
      { document: { id: 'a', n: 2 }, vector: [-1, 0] },
      { document: { id: 'old', n: 2 }, vector: [0, -1] },
      { document: { id: 'c', n: 1 }, vector: [1, 0] },
    ])
    expect(index.ids()).toEqual(['old', 'a', 'b', 'c'])
    expect(index.search({ vector: [-1, 0], limit: 1 })[0]).toMatchObject({ id: 'a', document: { n: 2 } })
    expect(index.search({ vector: [0, -1], limit: 1 })[0]).toMatchObject({ id: 'old', document: { n: 2 } })
    expect(index.search({ vector: [1, 0], limit: 1 })[0]).toMatchObject({ id: 'c', document: { n: 1 } })
    expect(index.search({ vector: [0, 1], limit: 1 })[0]!.id).toBe('b')
  })

  it('uses idField for document ids', () => {
    const index = new VectorSearch<{ key: string }>({ identity: 't', dimensions: 1, idField: 'key' })
    index.upsert({ document: { key: 'k1' }, vector: [1] })
    expect(index.search({ vector: [1], limit: 1 })[0]!.id).toBe('k1')
    expect(() => index.upsert({ document: { id: 'x' } as never, vector: [1] })).toThrow(/field "key"/)
  })

  it('rejects bad limits, minScore and callbacks', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 1 })
    index.upsert({ document: { id: 'a' }, vector: [1] })
    for (const limit of [-1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, '3', undefined, 2 ** 53]) {
      expect(() => index.search({ vector: [1], limit: limit as number })).toThrow(InvalidInputError)
    }
    for (const minScore of [Number.NaN, Number.POSITIVE_INFINITY, '0.5']) {
      expect(() => index.search({ vector: [1], limit: 1, minScore: minScore as number })).toThrow(
        InvalidInputError,
      )
    }
    expect(() => index.search({ vector: [1], limit: 1, filter: 'yes' as never })).toThrow(InvalidInputError)
    expect(() => index.search({ vector: [1], limit: 1, groupBy: 1 as never })).toThrow(InvalidInputError)
    expect(() => index.search(null as never)).toThrow(InvalidInputError)
  })

  it('rejects thenables and non-booleans from filter, thenables and non-strings from groupBy', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 1 })
    index.upsert({ document: { id: 'a' }, vector: [1] })
    const rejecting = () => Promise.reject(new Error('async filter')) as never
    expect(
      RejectedThenableError.isInstance(
        errorOf(() => index.search({ vector: [1], limit: 1, filter: rejecting })),
      ),
    ).toBe(true)
    expect(
      InvalidOutputError.isInstance(
        errorOf(() => index.search({ vector: [1], limit: 1, filter: () => 1 as never })),
      ),
    ).toBe(true)
    expect(
      RejectedThenableError.isInstance(
        errorOf(() => index.search({ vector: [1], limit: 1, groupBy: (async () => 'g') as never })),
      ),
    ).toBe(true)
    expect(
      InvalidOutputError.isInstance(
        errorOf(() => index.search({ vector: [1], limit: 1, groupBy: () => 3 as never })),
      ),
    ).toBe(true)
  })

  it('refuses changes from inside callbacks, but allows a nested search', () => {
    const index = new VectorSearch({ identity: 't', dimensions: 2 })
    index.upsertMany([
      { document: { id: 'a' }, vector: [1, 0] },
      { document: { id: 'b' }, vector: [0, 1] },
    ])
    const nested: string[] = []
    const hits = index.search({
      vector: [1, 0],
      limit: 2,
      filter: (_d, id) => {
        nested.push(index.search({ vector: [0, 1], limit: 1 })[0]!.id)
        return id !== 'zzz'
      },
    })
    expect(hits.map((h) => h.id)).toEqual(['a', 'b'])
    expect(hits[0]!.score).toBeCloseTo(1, 6)
    expect(nested).toEqual(['b', 'b'])
    for (const change of [
      () => index.remove('a'),
      () => index.upsert({ document: { id: 'c' }, vector: [1, 1] }),
      () => index.restore(index.snapshot()),
    ]) {
      const error = errorOf(() =>
        index.search({
          vector: [1, 0],
          limit: 1,
          filter: () => {
            change()
            return true
          },
        }),
      )
      expect(InvalidStateError.isInstance(error)).toBe(true)
    }
    expect(index.ids()).toEqual(['a', 'b'])
    expect(() => index.remove(5 as never)).toThrow(InvalidInputError)
  })

  it('rejects bad options', () => {
    for (const options of [
      null,
      { identity: '', dimensions: 2 },
      { identity: 'x', dimensions: 0 },
      { identity: 'x', dimensions: 1.5 },
      { identity: 'x', dimensions: Number.NaN },
      { identity: 'x', dimensions: 2, idField: '' },
    ]) {
      expect(AgentCoreError.isInstance(errorOf(() => new VectorSearch(options as never)))).toBe(true)
    }
  })

  describe('snapshots', () => {
    function filled() {
      const index = new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 })
      index.upsertMany([
        { document: { id: 'a', group: 'x', tags: ['1'], meta: { n: 1 } }, vector: [1, 2, 3] },
        { document: { id: 'b', group: 'y', tags: [] }, vector: [-1, 0.5, 0.25] },
        { document: { id: 'c', group: 'x', tags: ['ü', '__proto__'] }, vector: [0.1, 0.2, -3] },
      ])
      index.remove('b')
      return index
    }

    it('round-trips exactly through JSON', () => {
      const index = filled()
      const snapshot = JSON.parse(JSON.stringify(index.snapshot())) as VectorSearchSnapshot
      const copy = new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 })
      copy.restore(snapshot)
      expect(copy.snapshot()).toEqual(index.snapshot())
      const query = [0.3, -0.2, 0.9]
      expect(copy.search({ vector: query, limit: 5 })).toEqual(index.search({ vector: query, limit: 5 }))
      expect(copy.ids()).toEqual(index.ids())
    })

    it('round-trips random contents exactly (property)', () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(
            fc.record({
              id: fc.string({ minLength: 1, maxLength: 6 }),
              v: fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 4, maxLength: 4 }),
              meta: fc.jsonValue(),
            }),
            { selector: (e) => e.id, maxLength: 20 },
          ),
          (entries) => {
            const index = new VectorSearch<{ id: string; meta: unknown }>({ identity: 'p', dimensions: 4 })
            for (const e of entries) {
              if (e.v.every((x) => x === 0)) continue
              index.upsert({ document: { id: e.id, meta: e.meta }, vector: e.v })
            }
            const snapshot = JSON.parse(JSON.stringify(index.snapshot()))
            const copy = new VectorSearch<{ id: string; meta: unknown }>({ identity: 'p', dimensions: 4 })
            copy.restore(snapshot)
            expect(JSON.stringify(copy.snapshot())).toBe(JSON.stringify(index.snapshot()))
          },
        ),
        { numRuns: 100 },
      )
    })

    it('rejects another identity, dimensions, idField, version, engine or a tampered fingerprint', () => {
      const snapshot = filled().snapshot()
      const cases: [VectorSearch<Doc>, unknown][] = [
        [new VectorSearch<Doc>({ identity: 'model-b', dimensions: 3 }), snapshot],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 4 }), snapshot],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3, idField: 'group' }), snapshot],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), { ...snapshot, version: 2 }],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), { ...snapshot, version: '1' }],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), { ...snapshot, engine: 'hnsw' }],
        [
          new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }),
          { ...snapshot, configurationFingerprint: `${snapshot.configurationFingerprint}0` },
        ],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), { ...snapshot, vectors: 'AAAA' }],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), { ...snapshot, vectors: '***' }],
        [
          new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }),
          { ...snapshot, documents: [snapshot.documents[0], snapshot.documents[0]] },
        ],
        [
          new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }),
          { ...snapshot, documents: [{ id: 'a' }, { nope: 1 }] },
        ],
        [new VectorSearch<Doc>({ identity: 'model-a', dimensions: 3 }), null],
      ]
      for (const [index, bad] of cases) {
        index.upsert({
          document: { id: 'kept', group: 'g', tags: [] },
          vector: new Array(index.dimensions).fill(1),
        })
        const before = index.snapshot()
        const error = errorOf(() => index.restore(bad as VectorSearchSnapshot))
        expect(InvalidStateError.isInstance(error)).toBe(true)
        expect(index.snapshot()).toEqual(before)
      }
      const fingerprintError = errorOf(() =>
        new VectorSearch<Doc>({ identity: 'model-b', dimensions: 3 }).restore(snapshot),
      )
      expect((fingerprintError as Error).message).toContain('model-a')
    })

    it('rejects a vector that is not unit length', () => {
      const index = new VectorSearch({ identity: 'u', dimensions: 1 })
      const snapshot = {
        ...index.snapshot(),
        documents: [{ id: 'a' }],
        vectors: Buffer.from(new Float32Array([2]).buffer).toString('base64'),
      }
      expect(() => index.restore(snapshot)).toThrow(InvalidStateError)
    })
  })
})
