import {
  AgentCoreError,
  DuplicateIdError,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TextSearch, type TextSearchSnapshot } from './index.js'

interface Doc {
  id: string
  title: string
  body: string
  meta?: { tags: string[] }
}

function errorOf(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

const WORDS = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape'] as const

/**
 * Reference model: a naive scan that scores with BM25 exactly as minisearch documents it: per query term
 * and field, idf = ln(1 + (N - n + 0.5) / (n + 0.5)), tf part = d + tf (k + 1) / (tf + k (1 - b + b len / avg))
 * with len = distinct terms in the field and avg its mean; summed over fields and terms, then multiplied
 * by the number of query terms that matched. `and` keeps only documents matching every term.
 */
function naiveScan(docs: readonly Doc[], terms: readonly string[], combine: 'OR' | 'AND') {
  const k = 1.2
  const b = 0.7
  const d = 0.5
  const fields = ['title', 'body'] as const
  const tokens = (text: string) => text.split(' ').filter(Boolean)
  const N = docs.length
  const avg = fields.map((f) => docs.reduce((sum, doc) => sum + new Set(tokens(doc[f])).size, 0) / N)
  const scores = new Map<string, { score: number; matched: number }>()
  terms.forEach((term, termIndex) => {
    fields.forEach((field, f) => {
      const containing = docs.filter((doc) => tokens(doc[field]).includes(term))
      const n = containing.length
      const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5))
      for (const doc of containing) {
        const tf = tokens(doc[field]).filter((t) => t === term).length
        const len = new Set(tokens(doc[field])).size
        const score = idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * len) / avg[f]!)))
        const entry = scores.get(doc.id) ?? { score: 0, matched: -1 }
        entry.score += score
        entry.matched = termIndex
        scores.set(doc.id, entry)
      }
    })
  })
  const out: { id: string; score: number }[] = []
  for (const doc of docs) {
    const matchedTerms = terms.filter((t) => tokens(doc.title).includes(t) || tokens(doc.body).includes(t))
    if (matchedTerms.length === 0) continue
    if (combine === 'AND' && matchedTerms.length < terms.length) continue
    out.push({ id: doc.id, score: scores.get(doc.id)!.score * matchedTerms.length })
  }
  return out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1))
}

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '))
const corpus = fc.uniqueArray(
  fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), title: text, body: text }),
  {
    selector: (doc) => doc.id,
    minLength: 1,
    maxLength: 25,
  },
)

function close(a: number, b: number) {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))
}

function expectSameAsScan(
  actual: readonly { id: string; score: number }[],
  expected: readonly { id: string; score: number }[],
) {
  expect(actual.length).toBe(expected.length)
  const reference = new Map(expected.map((e) => [e.id, e.score]))
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!
    expect(reference.has(a.id)).toBe(true)
    expect(close(a.score, reference.get(a.id)!)).toBe(true)
    // Same rank, or a near tie with the document the scan put there.
    if (a.id !== expected[i]!.id) expect(close(a.score, expected[i]!.score)).toBe(true)
    if (i > 0) {
      const p = actual[i - 1]!
      expect(p.score > a.score || (p.score === a.score && p.id < a.id)).toBe(true)
    }
  }
}

function notes() {
  const search = new TextSearch<Doc>({
    indexRevision: 'r1',
    fields: ['title', 'body'],
    storedFields: ['title', 'meta'],
  })
  search.addAll([
    { id: 'n1', title: 'Groceries', body: 'milk eggs bread', meta: { tags: ['home'] } },
    { id: 'n2', title: 'Garden', body: 'water the tomatoes and the roses' },
    { id: 'n3', title: 'Tomato soup', body: 'tomatoes onions garlic' },
  ])
  return search
}

describe('TextSearch', () => {
  it('returns hits with the stored fields only', () => {
    const hits = notes().search({ query: 'garlic', limit: 10 })
    expect(hits).toEqual([
      {
        id: 'n3',
        score: expect.any(Number),
        terms: ['garlic'],
        match: { garlic: ['body'] },
        document: { title: 'Tomato soup' },
      },
    ])
  })

  it('equals a naive BM25 scan on exact-term queries (property)', () => {
    fc.assert(
      fc.property(
        corpus,
        fc.uniqueArray(fc.constantFrom(...WORDS, 'zebra'), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('OR' as const, 'AND' as const),
        fc.integer({ min: 0, max: 30 }),
        (docs, terms, combineWith, limit) => {
          const search = new TextSearch<Doc>({ indexRevision: 'p', fields: ['title', 'body'] })
          search.addAll(docs)
          const actual = search.search({ query: terms.join(' '), limit, combineWith })
          expectSameAsScan(actual, naiveScan(docs, terms, combineWith).slice(0, limit))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('equals a naive scan of the remaining documents after removals (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        corpus,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.constantFrom(...WORDS),
        async (docs, picks, term) => {
          const search = new TextSearch<Doc>({
            indexRevision: 'p',
            fields: ['title', 'body'],
            storedFields: ['body'],
          })
          search.addAll(docs)
          const removed = new Set(picks.map((p) => docs[p % docs.length]!.id))
          for (const id of removed) expect(await search.remove(id)).toBe(true)
          const rest = docs.filter((doc) => !removed.has(doc.id))
          expect(search.size).toBe(rest.length)
          const actual = search.search({ query: term, limit: 100 })
          if (rest.length === 0) expect(actual).toEqual([])
          else expectSameAsScan(actual, naiveScan(rest, [term], 'OR'))
          // A restored snapshot answers the same.
          const copy = new TextSearch<Doc>({
            indexRevision: 'p',
            fields: ['title', 'body'],
            storedFields: ['body'],
          })
          copy.restore(search.snapshot())
          expect(copy.search({ query: term, limit: 100 })).toEqual(actual)
        },
      ),
      { numRuns: 100 },
    )
  })

  it('orders equal scores by id', () => {
    const search = new TextSearch<Doc>({ indexRevision: 'r', fields: ['title', 'body'] })
    for (const id of ['d', 'b', 'a', 'c']) search.add({ id, title: 'same words', body: 'here' })
    expect(search.search({ query: 'same', limit: 3 }).map((h) => h.id)).toEqual(['a', 'b', 'c'])
    expect(
      search.search({ query: 'same', limit: 2, filter: (_d, id) => id !== 'a' }).map((h) => h.id),
    ).toEqual(['b', 'c'])
  })

  it('copies only declared fields; inputs, filters and hits share nothing with the index', () => {
    const search = new TextSearch<Doc & { secret?: string }>({
      indexRevision: 'r',
      fields: ['title'],
      storedFields: ['meta'],
    })
    const input = {
      id: 'a',
      title: 'alpha',
      body: 'not indexed',
      secret: 'never copied',
      meta: { tags: ['x'] },
    }
    search.add(input)
    input.meta.tags.push('changed by caller')
    const seen: unknown[] = []
    const hits = search.search({
      query: 'alpha',
      limit: 1,
      filter: (document) => {
        seen.push(document)
        document.meta!.tags.push('changed by filter')
        return true
      },
    })
    expect(hits[0]!.document).toEqual({ meta: { tags: ['x'] } })
    expect(seen[0]).not.toBe(hits[0]!.document)
    ;(hits[0]!.document.meta as { tags: string[] }).tags.push('changed by caller')
    expect(search.get('a')).toEqual({ meta: { tags: ['x'] } })
    expect(search.search({ query: 'indexed', limit: 1 })).toEqual([])
    expect(search.snapshot().serializedIndex).not.toContain('never copied')
  })

  it('indexes strings, numbers, booleans and string arrays, and skips absent fields', () => {
    const search = new TextSearch<{ id: string; a?: unknown }>({ indexRevision: 'r', fields: ['a'] })
    search.addAll([
      { id: 's', a: 'word' },
      { id: 'n', a: 1234 },
      { id: 'b', a: true },
      { id: 'l', a: ['red', 'blue'] },
      { id: 'u' },
      { id: 'z', a: null },
    ])
    expect(search.search({ query: '1234', limit: 5 }).map((h) => h.id)).toEqual(['n'])
    expect(search.search({ query: 'true', limit: 5 }).map((h) => h.id)).toEqual(['b'])
    expect(search.search({ query: 'blue', limit: 5 }).map((h) => h.id)).toEqual(['l'])
    expect(search.size).toBe(6)
  })

  it('keeps minisearch options reachable: prefix, fuzzy, boost, combineWith, fields', () => {
    const search = new TextSearch<Doc>({ indexRevision: 'r', fields: ['title', 'body'] })
    search.addAll([
      { id: 't', title: 'search engine', body: 'about indexing' },
      { id: 'b', title: 'cooking', body: 'search for recipes' },
    ])
    expect(search.search({ query: 'sear', limit: 5 })).toEqual([])
    expect(
      search
        .search({ query: 'sear', limit: 5, prefix: true })
        .map((h) => h.id)
        .sort(),
    ).toEqual(['b', 't'])
    expect(search.search({ query: 'serch', limit: 5, fuzzy: 0.2 }).length).toBe(2)
    expect(search.search({ query: 'search', limit: 5, boost: { body: 10 } })[0]!.id).toBe('b')
    expect(search.search({ query: 'search', limit: 5, boost: { title: 10 } })[0]!.id).toBe('t')
    expect(search.search({ query: 'search recipes', limit: 5, combineWith: 'AND' }).map((h) => h.id)).toEqual(
      ['b'],
    )
    expect(search.search({ query: 'search', limit: 5, fields: ['title'] }).map((h) => h.id)).toEqual(['t'])
    const prefixed = new TextSearch<Doc>({
      indexRevision: 'r',
      fields: ['title', 'body'],
      searchOptions: { prefix: true },
    })
    prefixed.add({ id: 'x', title: 'searching', body: '' })
    expect(prefixed.search({ query: 'sear', limit: 5 }).map((h) => h.id)).toEqual(['x'])
    expect(prefixed.search({ query: 'sear', limit: 5, prefix: false })).toEqual([])
  })

  it('refuses an edit distance past 32 (minisearch would allocate a matrix of that size), keeps 32', () => {
    const search = notes()
    for (const options of [{ fuzzy: 54043195528445980 }, { fuzzy: 33 }, { maxFuzzy: 1_000_000_000 }]) {
      const error = errorOf(() => search.search({ query: 'serch', limit: 1, ...options }))
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).details.field).toMatch(/fuzzy|maxFuzzy/)
    }
    expect(search.search({ query: 'serch', limit: 5, fuzzy: 32 }).length).toBeGreaterThan(0)
    expect(search.search({ query: 'tomatos', limit: 5, fuzzy: 0.5, maxFuzzy: 32 }).length).toBeGreaterThan(0)
  })

  it('rejects bad query options', () => {
    const search = notes()
    const bad: Record<string, unknown>[] = [
      { prefix: 'yes' },
      { fuzzy: -1 },
      { fuzzy: Number.NaN },
      { maxFuzzy: 1.5 },
      { boost: { nope: 2 } },
      { boost: { title: 0 } },
      { boost: { title: Number.POSITIVE_INFINITY } },
      { combineWith: 'XOR' },
      { fields: [] },
      { fields: ['nope'] },
      { weights: { fuzzy: -1 } },
      { bm25: { k: Number.NaN } },
    ]
    for (const options of bad) {
      expect(
        InvalidInputError.isInstance(errorOf(() => search.search({ query: 'x', limit: 1, ...options }))),
      ).toBe(true)
      expect(
        InvalidInputError.isInstance(
          errorOf(
            () => new TextSearch<Doc>({ indexRevision: 'r', fields: ['title'], searchOptions: options }),
          ),
        ),
      ).toBe(true)
    }
  })

  it('limit 0 returns no hits; bad limits and queries are rejected', () => {
    const search = notes()
    expect(search.search({ query: 'tomatoes', limit: 0 })).toEqual([])
    for (const limit of [-1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, '1', undefined, 2 ** 53]) {
      expect(
        InvalidInputError.isInstance(errorOf(() => search.search({ query: 'x', limit: limit as number }))),
      ).toBe(true)
    }
    for (const query of [undefined, 3, null, ['a']]) {
      expect(
        InvalidInputError.isInstance(
          errorOf(() => search.search({ query: query as unknown as string, limit: 1 })),
        ),
      ).toBe(true)
    }
    expect(InvalidInputError.isInstance(errorOf(() => search.search('tomatoes' as never)))).toBe(true)
    expect(search.search({ query: '', limit: 3 })).toEqual([])
  })

  it('rejects thenables and non-booleans from filter', () => {
    const search = notes()
    const thenable = errorOf(() =>
      search.search({
        query: 'tomatoes',
        limit: 3,
        filter: () => Promise.reject(new Error('async')) as never,
      }),
    )
    expect(RejectedThenableError.isInstance(thenable)).toBe(true)
    expect(
      InvalidOutputError.isInstance(
        errorOf(() => search.search({ query: 'tomatoes', limit: 3, filter: () => 'yes' as never })),
      ),
    ).toBe(true)
    expect(
      InvalidInputError.isInstance(
        errorOf(() => search.search({ query: 'tomatoes', limit: 3, filter: true as never })),
      ),
    ).toBe(true)
  })

  it('checks tokenize and processTerm answers', () => {
    const asyncTokenize = new TextSearch<Doc>({
      indexRevision: 'r',
      fields: ['title'],
      tokenize: (async () => ['x']) as never,
    })
    expect(
      RejectedThenableError.isInstance(errorOf(() => asyncTokenize.add({ id: 'a', title: 't', body: '' }))),
    ).toBe(true)
    expect(asyncTokenize.size).toBe(0)
    const badTerm = new TextSearch<Doc>({
      indexRevision: 'r',
      fields: ['title'],
      processTerm: (() => 5) as never,
    })
    expect(InvalidOutputError.isInstance(errorOf(() => badTerm.add({ id: 'a', title: 't', body: '' })))).toBe(
      true,
    )
    const custom = new TextSearch<Doc>({
      indexRevision: 'r',
      fields: ['title'],
      tokenize: (t) => t.split('|'),
      processTerm: (t) => (t === 'skip' ? null : t.toUpperCase()),
    })
    custom.addAll([
      { id: 'a', title: 'one|two|skip', body: '' },
      { id: 'b', title: 'two', body: '' },
    ])
    expect(custom.search({ query: 'one', limit: 5 }).map((h) => h.id)).toEqual(['a'])
    expect(custom.search({ query: 'skip', limit: 5 })).toEqual([])
  })

  it('rejects bad documents atomically', () => {
    const search = notes()
    const bad: unknown[] = [
      { title: 'no id', body: '' },
      { id: '', title: 'x', body: '' },
      { id: 7, title: 'x', body: '' },
      { id: 'o', title: { nested: true }, body: '' },
      { id: 'n', title: Number.NaN, body: '' },
      { id: 'f', title: 'x', body: '', meta: { run: () => 1 } },
      { id: 's', title: 'x', body: '', meta: { tag: Symbol('s') } },
      { id: 'c', title: 'x', body: '', meta: new (class Tag {})() },
      null,
      'text',
    ]
    for (const document of bad) {
      expect(
        InvalidInputError.isInstance(
          errorOf(() => search.addAll([{ id: 'fresh', title: 'x', body: '' }, document as Doc])),
        ),
      ).toBe(true)
    }
    expect(
      DuplicateIdError.isInstance(errorOf(() => search.add({ id: 'n1', title: 'again', body: '' }))),
    ).toBe(true)
    expect(
      DuplicateIdError.isInstance(
        errorOf(() =>
          search.addAll([
            { id: 'x', title: 'a', body: '' },
            { id: 'x', title: 'b', body: '' },
          ]),
        ),
      ),
    ).toBe(true)
    expect(InvalidInputError.isInstance(errorOf(() => search.addAll('docs' as never)))).toBe(true)
    expect(search.size).toBe(3)
    expect(search.has('fresh')).toBe(false)
  })

  it('refuses changes from inside a filter', async () => {
    const search = notes()
    for (const change of [
      () => search.add({ id: 'x', title: 'x', body: '' }),
      () => search.restore(search.snapshot()),
    ]) {
      const error = errorOf(() =>
        search.search({
          query: 'tomatoes',
          limit: 3,
          filter: () => {
            change()
            return true
          },
        }),
      )
      expect(InvalidStateError.isInstance(error)).toBe(true)
    }
    const pending: Promise<unknown>[] = []
    search.search({
      query: 'tomatoes',
      limit: 3,
      filter: () => {
        pending.push(search.remove('n1'))
        return true
      },
    })
    expect(pending.length).toBe(2)
    for (const removal of pending)
      expect(InvalidStateError.isInstance(await rejectionOf(() => removal))).toBe(true)
    expect(search.size).toBe(3)
    expect(InvalidInputError.isInstance(await rejectionOf(() => search.remove(5 as never)))).toBe(true)
  })

  it('rejects bad options', () => {
    for (const options of [
      null,
      { fields: ['a'] },
      { indexRevision: '', fields: ['a'] },
      { indexRevision: 'r', fields: [] },
      { indexRevision: 'r', fields: 'a' },
      { indexRevision: 'r', fields: ['a', 'a'] },
      { indexRevision: 'r', fields: ['a'], storedFields: [1] },
      { indexRevision: 'r', fields: ['a'], idField: '' },
      { indexRevision: 'r', fields: ['a'], tokenize: 'words' },
    ]) {
      expect(AgentCoreError.isInstance(errorOf(() => new TextSearch(options as never)))).toBe(true)
    }
  })

  it('replace updates a document and purges its old terms', async () => {
    const search = notes()
    await search.replace({ id: 'n2', title: 'Garden', body: 'mow the lawn' })
    await search.replace({ id: 'n4', title: 'New', body: 'fresh' })
    expect(search.search({ query: 'roses', limit: 5 })).toEqual([])
    expect(search.search({ query: 'lawn', limit: 5 }).map((h) => h.id)).toEqual(['n2'])
    expect(search.size).toBe(4)
    expect(search.snapshot().serializedIndex).not.toContain('roses')
    expect(
      InvalidInputError.isInstance(await rejectionOf(() => search.replace({ id: 'n2', title: {} } as never))),
    ).toBe(true)
    expect(search.search({ query: 'lawn', limit: 5 }).map((h) => h.id)).toEqual(['n2'])
  })

  it('a throwing tokenize leaves no half-indexed document behind', async () => {
    const search = new TextSearch<Doc>({
      indexRevision: 'r',
      fields: ['title'],
      tokenize: (text) => {
        if (text.includes('boom')) throw new RangeError('tokenizer failed')
        return text.split(' ')
      },
    })
    search.add({ id: 'a', title: 'alpha', body: '' })
    expect(() =>
      search.addAll([
        { id: 'b', title: 'beta', body: '' },
        { id: 'c', title: 'boom', body: '' },
      ]),
    ).toThrow(RangeError)
    expect(search.size).toBe(1)
    expect(search.search({ query: 'beta', limit: 5 })).toEqual([])
    await expect(search.replace({ id: 'a', title: 'boom', body: '' })).rejects.toThrow(RangeError)
    expect(search.has('a')).toBe(false)
    expect(search.snapshot().serializedIndex).not.toContain('beta')
  })

  describe('remove and snapshots', () => {
    it('remove waits for the purge: the next snapshot holds nothing of the removed document', async () => {
      const search = notes()
      expect(await search.remove('n2')).toBe(true)
      expect(await search.remove('n2')).toBe(false)
      expect(await search.removeMany(['n1', 'nope', 'n1'])).toBe(1)
      const { serializedIndex } = search.snapshot()
      for (const word of ['roses', 'water', 'milk', 'Groceries', 'n2'])
        expect(serializedIndex).not.toContain(word)
      expect(search.size).toBe(1)
      expect(InvalidInputError.isInstance(await rejectionOf(() => search.removeMany('n3' as never)))).toBe(
        true,
      )
    })

    it('a snapshot taken before the purge finished holds nothing of the removed document either', async () => {
      const search = notes()
      const pending = search.remove('n2')
      const { serializedIndex } = search.snapshot()
      expect(serializedIndex).not.toContain('roses')
      const restored = new TextSearch<Doc>({
        indexRevision: 'r1',
        fields: ['title', 'body'],
        storedFields: ['title', 'meta'],
      })
      restored.restore({
        version: 2,
        engine: 'minisearch-7',
        configurationFingerprint: search.configurationFingerprint,
        serializedIndex,
      })
      expect(restored.search({ query: 'tomatoes', limit: 5 }).map((h) => h.id)).toEqual(['n3'])
      await pending
    })

    it('round-trips through JSON', () => {
      const search = notes()
      const snapshot = JSON.parse(JSON.stringify(search.snapshot())) as TextSearchSnapshot
      expect(Object.keys(snapshot).sort()).toEqual([
        'checksum',
        'configurationFingerprint',
        'engine',
        'serializedIndex',
        'version',
      ])
      expect(snapshot.version).toBe(2)
      const copy = new TextSearch<Doc>({
        indexRevision: 'r1',
        fields: ['title', 'body'],
        storedFields: ['title', 'meta'],
      })
      copy.restore(snapshot)
      for (const query of ['tomatoes', 'milk', 'garden soup'])
        expect(copy.search({ query, limit: 5 })).toEqual(search.search({ query, limit: 5 }))
      expect(copy.get('n1')).toEqual({ title: 'Groceries', meta: { tags: ['home'] } })
      expect(copy.snapshot()).toEqual(search.snapshot())
    })

    it('rejects other versions, engines, configurations, tampered fingerprints and corrupt indexes', () => {
      const snapshot = notes().snapshot()
      const same = () =>
        new TextSearch<Doc>({
          indexRevision: 'r1',
          fields: ['title', 'body'],
          storedFields: ['title', 'meta'],
        })
      const cases: [TextSearch<Doc>, unknown][] = [
        [
          new TextSearch<Doc>({
            indexRevision: 'r2',
            fields: ['title', 'body'],
            storedFields: ['title', 'meta'],
          }),
          snapshot,
        ],
        [
          new TextSearch<Doc>({
            indexRevision: 'r1',
            fields: ['body', 'title'],
            storedFields: ['title', 'meta'],
          }),
          snapshot,
        ],
        [
          new TextSearch<Doc>({ indexRevision: 'r1', fields: ['title', 'body'], storedFields: ['title'] }),
          snapshot,
        ],
        [
          new TextSearch<Doc>({
            indexRevision: 'r1',
            fields: ['title', 'body'],
            storedFields: ['title', 'meta'],
            idField: 'title',
          }),
          snapshot,
        ],
        [same(), { ...snapshot, version: 1 }],
        [same(), { ...snapshot, version: 3 }],
        [same(), { ...snapshot, version: '2' }],
        [same(), { ...snapshot, engine: 'lunr' }],
        [same(), { ...snapshot, configurationFingerprint: 'text-search:0000000000000000' }],
        [same(), { ...snapshot, serializedIndex: '{not json' }],
        [same(), { ...snapshot, serializedIndex: '{"serializationVersion":2}' }],
        [
          same(),
          {
            ...snapshot,
            serializedIndex: snapshot.serializedIndex.replace(
              '"serializationVersion":2',
              '"serializationVersion":9',
            ),
          },
        ],
        [same(), { ...snapshot, serializedIndex: 42 }],
        [same(), null],
      ]
      for (const [search, bad] of cases) {
        search.add({ id: 'kept', title: 'kept', body: '' })
        const error = errorOf(() => search.restore(bad as TextSearchSnapshot))
        expect(InvalidStateError.isInstance(error), JSON.stringify(bad)?.slice(0, 80)).toBe(true)
        expect(search.search({ query: 'kept', limit: 5 }).map((h) => h.id)).toEqual(['kept'])
      }
      expect((errorOf(() => cases[0]![0].restore(snapshot)) as Error).message).toMatch(/indexRevision/)
    })
  })
})
