import {
  AgentCoreError,
  createDiagnostics,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  UnauthorizedError,
} from '@agent-core/core'
import { defineTextAnalyzer, EmbeddingError } from '@agent-core/kits/search'
import { describe, expect, it } from 'vitest'
import {
  createMemoryKnowledgeStore,
  defineKnowledgePublication,
  Knowledge,
  type KnowledgeProgress,
  type KnowledgeStore,
  KnowledgeStoreError,
} from './index.js'
import { countingEmbedder } from './testing/store-conformance.js'

const guide =
  '# Guide\n\nInstall the tool.\n\n## Usage\n\nRun the tool daily.\n\n## Limits\n\nAt most ten runs.\n'

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error: unknown) => error,
  )
}

describe('Knowledge.defineKnowledgePublication', () => {
  it('is the same function as the named export', () => {
    expect(Knowledge.defineKnowledgePublication).toBe(defineKnowledgePublication)
    expect(Object.isFrozen(Knowledge)).toBe(true)
  })

  it('publishes passages with line ranges and heading paths, and a receipt', async () => {
    const embedder = countingEmbedder()
    const docs = defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore(), embedder })
    const receipt = await docs.publish({
      materials: [{ id: 'guide.md', title: 'Tool guide', text: guide, metadata: { team: 'ops' } }],
    })
    expect(receipt).toEqual({
      publicationId: 'docs',
      action: 'publish',
      published: [
        {
          id: 'guide.md',
          revision: 1,
          previousRevision: undefined,
          contentHash: expect.stringMatching(/^[\w-]{43}$/),
          passageIds: ['guide.md@1#1', 'guide.md@1#2', 'guide.md@1#3'],
        },
      ],
      retracted: [],
      skipped: [],
      passageCount: 3,
      embedded: 3,
      reused: 0,
      batches: 1,
    })
    const usage = await docs.passage('guide.md@1#2')
    expect(usage).toEqual({
      id: 'guide.md@1#2',
      documentId: 'guide.md',
      revision: 1,
      number: 2,
      title: 'Tool guide',
      headingPath: ['Guide', 'Usage'],
      text: guide.slice(usage?.start, usage?.end),
      start: guide.indexOf('## Usage'),
      end: usage?.end,
      startLine: 5,
      endLine: 7,
      metadata: { team: 'ops' },
    })
    // Each embedded text carries the title and heading path.
    expect(embedder.texts[1]).toBe(`Tool guide\n\nGuide > Usage\n\n${usage?.text}`)
    const [hit] = await docs.search({ query: 'daily', limit: 1, filter: (p) => p.metadata?.team === 'ops' })
    expect(hit?.id).toBe('guide.md@1#2')
    expect(await docs.list()).toEqual([
      {
        id: 'guide.md',
        revision: 1,
        contentHash: receipt.published[0]?.contentHash,
        title: 'Tool guide',
        metadata: { team: 'ops' },
        passageCount: 3,
        publishedAtMs: expect.any(Number),
      },
    ])
  })

  it('skips unchanged material and re-embeds only changed passages of a new revision', async () => {
    const embedder = countingEmbedder()
    const docs = defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore(), embedder })
    await docs.publish({ materials: [{ id: 'guide.md', text: guide }] })
    const same = await docs.publish({ materials: [{ id: 'guide.md', text: guide }] })
    expect(same.skipped).toEqual([{ id: 'guide.md', reason: 'unchanged', revision: 1 }])
    expect(same.published).toEqual([])
    expect(same.batches).toBe(0)
    expect(embedder.texts.length).toBe(3)
    const changed = guide.replace('ten runs', 'twelve runs')
    const next = await docs.publish({ materials: [{ id: 'guide.md', text: changed }] })
    expect(next.published[0]).toMatchObject({ revision: 2, previousRevision: 1 })
    expect(next).toMatchObject({ embedded: 1, reused: 2, passageCount: 3 })
    expect(embedder.texts.length).toBe(4)
    // Old passages are gone from the index: their ids name revision 1.
    expect(await docs.passage('guide.md@1#3')).toBeUndefined()
    expect((await docs.passage('guide.md@2#3'))?.text).toContain('twelve')
    // The metadata key order does not make a change; a metadata value does.
    await docs.publish({ materials: [{ id: 'm', text: 'x', metadata: { a: 1, b: 2 } }] })
    const reordered = await docs.publish({ materials: [{ id: 'm', text: 'x', metadata: { b: 2, a: 1 } }] })
    expect(reordered.skipped).toHaveLength(1)
    const revalued = await docs.publish({ materials: [{ id: 'm', text: 'x', metadata: { a: 1, b: 3 } }] })
    expect(revalued.published[0]?.revision).toBe(2)
    // Only metadata changed: the passage text and its embedded text are the same, so nothing is embedded.
    expect(revalued.embedded).toBe(0)
  })

  it('retracts: passages leave the index, the revision is kept, republishing continues the count', async () => {
    const docs = defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore() })
    await docs.publish({
      materials: [
        { id: 'a', text: 'alpha words' },
        { id: 'b', text: 'beta words' },
      ],
    })
    const receipt = await docs.retract({ ids: ['a', 'ghost'] })
    expect(receipt.retracted).toEqual([{ id: 'a', revision: 1, passageCount: 1 }])
    expect(receipt.skipped).toEqual([{ id: 'ghost', reason: 'not-published', revision: undefined }])
    expect((await docs.search({ query: 'words', limit: 5 })).map((h) => h.id)).toEqual(['b@1#1'])
    expect((await docs.list()).map((d) => d.id)).toEqual(['b'])
    const again = await docs.retract({ ids: ['a'] })
    expect(again.skipped).toEqual([{ id: 'a', reason: 'not-published', revision: 1 }])
    const back = await docs.publish({ materials: [{ id: 'a', text: 'alpha words' }] })
    expect(back.published[0]).toMatchObject({ revision: 2, previousRevision: undefined })
  })

  it('splits large calls into store transactions of about passagesPerBatch passages', async () => {
    const store = createMemoryKnowledgeStore()
    let writes = 0
    const counting: KnowledgeStore = {
      ...store,
      write: (batch, options) => {
        writes++
        return store.write(batch, options)
      },
    }
    const docs = defineKnowledgePublication({ id: 'docs', store: counting, passagesPerBatch: 2 })
    const materials = Array.from({ length: 5 }, (_, i) => ({ id: `d${i}`, text: `one ${i}\n\ntwo ${i}\n` }))
    const receipt = await docs.publish({ materials })
    // One passage each, two per transaction: three transactions.
    expect(receipt.batches).toBe(3)
    expect(writes).toBe(3)
    // A document is never split: with smaller passages, each document fills a transaction of its own.
    const small = defineKnowledgePublication({
      id: 'small',
      store: counting,
      passages: { targetChars: 8 },
      passagesPerBatch: 2,
    })
    const split = await small.publish({ materials })
    expect(split.passageCount).toBe(10)
    expect(split.batches).toBe(5)
  })

  it('reports progress in order with counts that only grow', async () => {
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder: { ...countingEmbedder(), maxBatch: 2 },
      passages: { targetChars: 10 },
      passagesPerBatch: 3,
    })
    await docs.load()
    const seen: KnowledgeProgress[] = []
    const materials = Array.from({ length: 4 }, (_, i) => ({
      id: `d${i}`,
      text: `a${i} apple\n\nb${i} berry\n`,
    }))
    await docs.publish({ materials: [materials[0]!] })
    await docs.publish({ materials, onProgress: (p) => void seen.push(p) })
    expect(seen[0]).toMatchObject({
      phase: 'planned',
      documents: 4,
      documentsDone: 1,
      passages: 6,
      passagesDone: 0,
      embedded: 0,
    })
    expect(seen.at(-1)).toMatchObject({
      phase: 'done',
      documentsDone: 4,
      passagesDone: 6,
      embedded: 6,
      toEmbed: 6,
    })
    expect(seen.filter((p) => p.phase === 'written')).toHaveLength(2)
    // Two documents (four passages) per transaction, two texts per embedder call: 2 + 1 calls.
    expect(seen.filter((p) => p.phase === 'embedded')).toHaveLength(3)
    for (let i = 1; i < seen.length; i++) {
      for (const key of ['documentsDone', 'passagesDone', 'embedded'] as const)
        expect(seen[i]![key]).toBeGreaterThanOrEqual(seen[i - 1]![key])
    }
    // A listener that returns a Promise is refused.
    const refused = await rejection(
      docs.publish({ materials: [{ id: 'x', text: 'x' }], onProgress: async () => {} }),
    )
    expect(AgentCoreError.isInstance(refused)).toBe(true)
  })

  it('asks authorize with the request and the App context; a refusal writes nothing', async () => {
    const requests: unknown[] = []
    const docs = defineKnowledgePublication<{ role: string }>({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      authorize: async (request, context) => {
        requests.push(request)
        if (context.app.role !== 'editor') throw new UnauthorizedError('Only editors publish.')
      },
    })
    const refused = await rejection(
      docs.publish({ materials: [{ id: 'a', text: 'x' }] }, { app: { role: 'reader' } }),
    )
    expect(UnauthorizedError.isInstance(refused)).toBe(true)
    expect(await docs.list()).toEqual([])
    await docs.publish({ materials: [{ id: 'a', text: 'x' }] }, { app: { role: 'editor' } })
    await docs.retract({ ids: ['a'] }, { app: { role: 'editor' } })
    expect(requests).toEqual([
      { action: 'publish', publicationId: 'docs', materials: [{ id: 'a', text: 'x' }] },
      { action: 'publish', publicationId: 'docs', materials: [{ id: 'a', text: 'x' }] },
      { action: 'retract', publicationId: 'docs', ids: ['a'] },
    ])
    const returning = defineKnowledgePublication({
      id: 'r',
      store: createMemoryKnowledgeStore(),
      authorize: (() => true) as never,
    })
    expect(InvalidOutputError.isInstance(await rejection(returning.publish({ materials: [] })))).toBe(true)
  })

  it('refuses bad material with a typed error naming the field, before authorize or embedding', async () => {
    let authorized = 0
    const embedder = countingEmbedder()
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder,
      authorize: () => void authorized++,
      assertMaterial: (material) => {
        if (material.id.endsWith('.exe'))
          throw new InvalidInputError('No binaries.', { details: { field: 'id' } })
      },
    })
    const cases: [unknown, string][] = [
      [undefined, 'request'],
      [{ materials: 'x' }, 'request.materials'],
      [{ materials: [{ id: '', text: 'x' }] }, 'request.materials[0].id'],
      [{ materials: [{ id: 'a', text: 1 }] }, 'request.materials[0].text'],
      [{ materials: [{ id: 'a', text: 'x', extra: 1 }] }, 'request.materials[0].extra'],
      [{ materials: [{ id: 'a', text: 'x', title: 3 }] }, 'request.materials[0].title'],
      [{ materials: [{ id: 'a', text: '\uD800' }] }, 'request.materials[0].text'],
      [
        { materials: [{ id: 'a', text: 'x', metadata: { when: new Date() } }] },
        'request.materials[0].metadata.when',
      ],
      [
        { materials: [{ id: 'a', text: 'x', metadata: { n: [1, Number.NaN] } }] },
        'request.materials[0].metadata.n[1]',
      ],
      [
        {
          materials: [
            { id: 'a', text: 'x' },
            { id: 'a', text: 'y' },
          ],
        },
        'request.materials[1].id',
      ],
      [{ materials: [{ id: 'a', text: 'x' }], onProgress: 1 }, 'request.onProgress'],
      [{ materials: [{ id: 'a.exe', text: 'x' }] }, 'id'],
    ]
    for (const [request, field] of cases) {
      const error = await rejection(docs.publish(request as never))
      expect(InvalidInputError.isInstance(error), String(error)).toBe(true)
      expect((error as InvalidInputError).details.field).toBe(field)
    }
    for (const [request, field] of [
      [{ ids: 'a' }, 'request.ids'],
      [{ ids: ['a', 'a'] }, 'request.ids[1]'],
      [{ ids: [''] }, 'request.ids[0]'],
    ] as const) {
      const error = await rejection(docs.retract(request as never))
      expect((error as InvalidInputError).details.field).toBe(field)
    }
    expect(authorized).toBe(0)
    expect(embedder.texts).toEqual([])
    // Metadata is copied, so a later change by the caller does not reach the index.
    const metadata = { tags: ['x'] }
    await docs.publish({ materials: [{ id: 'a', text: 'words', metadata }] })
    metadata.tags.push('y')
    expect((await docs.passage('a@1#1'))?.metadata).toEqual({ tags: ['x'] })
  })

  it('refuses a malformed definition with InvalidDefinitionError naming the field', () => {
    const store = createMemoryKnowledgeStore()
    const cases: [unknown, string][] = [
      [{ id: '', store }, 'id'],
      [{ id: 'x' }, 'store'],
      [{ id: 'x', store: { load: () => 1 } }, 'store.vectors'],
      [
        { id: 'x', store, embedder: { identity: 'e', dimensions: 0, embed: () => [] } },
        'embedder.dimensions',
      ],
      [{ id: 'x', store, passages: { targetChars: 10, overlapChars: 10 } }, 'passages.overlapChars'],
      [{ id: 'x', store, passagesPerBatch: 0 }, 'passagesPerBatch'],
      [{ id: 'x', store, search: { boost: { body: 2 } } }, 'search.boost.body'],
      [{ id: 'x', store, search: { fusion: { k: -1 } } }, 'search.fusion.k'],
      [{ id: 'x', store, colour: 'red' }, 'colour'],
    ]
    for (const [definition, field] of cases) {
      try {
        defineKnowledgePublication(definition as never)
        expect.unreachable(`accepted ${field}`)
      } catch (error) {
        expect(InvalidDefinitionError.isInstance(error), String(error)).toBe(true)
        expect((error as InvalidDefinitionError).details.field).toBe(field)
      }
    }
  })

  it('leaves store and index as they were when embedding fails, and says what failed', async () => {
    const embedder = countingEmbedder()
    let fail = false
    const flaky = {
      ...embedder,
      embed: async (texts: readonly string[]) => {
        if (fail) throw new Error('model overloaded')
        return embedder.embed(texts, {})
      },
    }
    const store = createMemoryKnowledgeStore()
    const docs = defineKnowledgePublication({ id: 'docs', store, embedder: flaky })
    await docs.publish({ materials: [{ id: 'a', text: 'first words' }] })
    fail = true
    const error = await rejection(docs.publish({ materials: [{ id: 'a', text: 'second words' }] }))
    expect(EmbeddingError.isInstance(error)).toBe(true)
    expect((await docs.search({ query: 'words', limit: 5, mode: 'text' })).map((h) => h.id)).toEqual([
      'a@1#1',
    ])
    const contents = await store.load(
      { publicationId: 'docs', space: { identity: 'toy', dimensions: 3 } },
      {
        signal: new AbortController().signal,
      },
    )
    expect(contents.documents.map((d) => d.revision)).toEqual([1])
    // A wrong answer (one vector short) is an InvalidOutputError, with the same guarantee.
    const short = defineKnowledgePublication({
      id: 'docs',
      store,
      embedder: { ...embedder, embed: async () => [] },
    })
    expect(
      InvalidOutputError.isInstance(await rejection(short.publish({ materials: [{ id: 'b', text: 'b' }] }))),
    ).toBe(true)
    expect((await short.list()).map((d) => d.id)).toEqual(['a'])
  })

  it('leaves the index as it was when the store write fails (KnowledgeStoreError with the cause)', async () => {
    const store = createMemoryKnowledgeStore()
    let fail = false
    const flaky: KnowledgeStore = {
      ...store,
      write: async (batch, options) => {
        if (fail) throw new Error('disk full')
        return store.write(batch, options)
      },
    }
    const docs = defineKnowledgePublication({ id: 'docs', store: flaky, embedder: countingEmbedder() })
    await docs.publish({ materials: [{ id: 'a', text: 'first words' }] })
    fail = true
    const error = await rejection(docs.publish({ materials: [{ id: 'a', text: 'second words' }] }))
    expect(KnowledgeStoreError.isInstance(error)).toBe(true)
    expect((error as KnowledgeStoreError).details).toEqual({ publicationId: 'docs', operation: 'write' })
    expect((error as Error).cause).toBeInstanceOf(Error)
    expect((await docs.passage('a@1#1'))?.text).toBe('first words')
    expect(await docs.passage('a@2#1')).toBeUndefined()
    fail = false
    const receipt = await docs.publish({ materials: [{ id: 'a', text: 'second words' }] })
    // The vector embedded by the failed call is embedded again: the store never kept it.
    expect(receipt).toMatchObject({ embedded: 1, published: [{ revision: 2 }] })
  })

  it('refuses what a broken store returns with InvalidOutputError', async () => {
    const store = createMemoryKnowledgeStore()
    const broken: KnowledgeStore = { ...store, load: async () => ({ documents: 'x' }) as never }
    const docs = defineKnowledgePublication({ id: 'docs', store: broken })
    const error = await rejection(docs.list())
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as InvalidOutputError).details).toMatchObject({ hook: 'store.load', field: 'documents' })
  })

  it('stops at a cancellation between batches; what was committed stays published', async () => {
    const controller = new AbortController()
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      passagesPerBatch: 1,
    })
    const materials = Array.from({ length: 4 }, (_, i) => ({ id: `d${i}`, text: `text ${i}` }))
    const error = await rejection(
      docs.publish(
        {
          materials,
          onProgress: (p) => {
            if (p.phase === 'written' && p.documentsDone === 2) controller.abort()
          },
        },
        { signal: controller.signal },
      ),
    )
    expect(AgentCoreError.isInstance(error) && error.code).toBe('aborted')
    expect((await docs.list()).map((d) => d.id)).toEqual(['d0', 'd1'])
    const rest = await docs.publish({ materials })
    expect(rest.skipped.map((s) => s.id)).toEqual(['d0', 'd1'])
    expect(rest.published.map((p) => p.id)).toEqual(['d2', 'd3'])
  })

  it('builds the search index on the first call that needs it: a list or an unchanged publish analyses nothing', async () => {
    const store = createMemoryKnowledgeStore()
    const materials = [
      { id: 'guide.md', text: guide },
      { id: 'notes.md', text: '# Notes\n\nThe tool runs daily at noon.\n' },
    ]
    await defineKnowledgePublication({ id: 'docs', store, embedder: countingEmbedder() }).publish({
      materials,
    })
    // An App analyzer that counts the texts it analyses and throws once when told to.
    let analysed = 0
    let failNext = false
    const analyzer = defineTextAnalyzer({
      name: 'counting-words',
      version: 1,
      tokenize: (text) => {
        analysed++
        if (failNext) {
          failNext = false
          throw new Error('analyzer down')
        }
        return text
          .toLowerCase()
          .split(/\W+/)
          .filter((word) => word !== '')
      },
      terms: (token) => [token],
    })
    const open = () =>
      defineKnowledgePublication({ id: 'docs', store, embedder: countingEmbedder(), search: { analyzer } })
    const later = open()
    const progress: KnowledgeProgress[] = []
    expect((await later.list()).map((d) => d.id)).toEqual(['guide.md', 'notes.md'])
    const unchanged = await later.publish({ materials, onProgress: (p) => progress.push(p) })
    expect(unchanged.skipped.map((s) => s.reason)).toEqual(['unchanged', 'unchanged'])
    expect(analysed).toBe(0)
    // The first search builds it; a failed build is tried again by the next call.
    failNext = true
    expect(await rejection(later.search({ query: 'daily', limit: 5 }))).toMatchObject({
      message: expect.stringContaining('analyzer down'),
    })
    const hits = await later.search({ query: 'daily', limit: 5 })
    expect(analysed).toBeGreaterThan(0)
    // The same hits as a publication whose load built the index at once.
    const eager = open()
    await eager.load()
    expect(hits.map((h) => h.id)).toEqual((await eager.search({ query: 'daily', limit: 5 })).map((h) => h.id))
    expect(hits.map((h) => h.id)).toEqual(expect.arrayContaining(['guide.md@1#2', 'notes.md@1#1']))
    // A change after a deferred load swaps into the built index; concurrent searches all see one index.
    const fresh = open()
    const [changed, ...searches] = await Promise.all([
      fresh.publish({ materials: [{ id: 'notes.md', text: '# Notes\n\nNothing runs at noon.\n' }] }),
      fresh.search({ query: 'noon', limit: 5 }),
      fresh.passage('guide.md@1#2'),
    ])
    expect(changed.published.map((p) => p.id)).toEqual(['notes.md'])
    expect(searches[1]).toMatchObject({ id: 'guide.md@1#2' })
    const after = await fresh.search({ query: 'nothing', limit: 5, mode: 'text' })
    expect(after.map((h) => h.id)).toEqual(['notes.md@2#1'])
  })

  it('runs changes one at a time, in call order', async () => {
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder: countingEmbedder(),
    })
    const calls = [
      docs.publish({ materials: [{ id: 'a', text: 'one' }] }),
      docs.publish({ materials: [{ id: 'a', text: 'two' }] }),
      docs.retract({ ids: ['a'] }),
      docs.publish({ materials: [{ id: 'a', text: 'three' }] }),
    ]
    const receipts = await Promise.all(calls)
    expect(receipts.map((r) => r.published[0]?.revision ?? r.retracted[0]?.revision)).toEqual([1, 2, 2, 3])
    expect((await docs.list())[0]?.revision).toBe(3)
  })

  it('emits one span per call, ended on every path', async () => {
    const sink = new MemoryDiagnosticSink()
    const diagnostics = createDiagnostics({ sink: sink.sink, scope: ['app'] })
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder: countingEmbedder(),
      authorize: (request) => {
        if (request.action === 'retract') throw new UnauthorizedError('no')
      },
    })
    await docs.publish({ materials: [{ id: 'a', text: 'x' }] }, { diagnostics })
    await rejection(docs.retract({ ids: ['a'] }, { diagnostics }))
    const ends = sink.events
      .filter((e) => e.kind.endsWith('-end'))
      .map((e) => `${e.kind.slice(0, -4)}:${String(e.data.outcome)}`)
    expect(ends).toEqual([
      'knowledge-load:ok',
      'knowledge-embed:ok',
      'knowledge-store-write:ok',
      'knowledge-publish:ok',
      'knowledge-retract:error',
    ])
    const starts = sink.events.filter((e) => e.kind.endsWith('-start')).length
    expect(starts).toBe(ends.length)
  })
})
