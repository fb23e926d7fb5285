import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepGarbage } from '../testing/garbage.js'
import {
  defineTextAnalyzer,
  openAICompatibleEmbedder,
  reciprocalRankFusion,
  TextSearch,
  VectorSearch,
} from './index.js'

/** Anything a caller could pass by mistake, including NaN, sparse arrays, thenables and odd objects. */
const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [{ then: () => undefined }, new Float32Array([Number.NaN, 1]), () => ({ then: () => undefined })],
  fc.sparseArray(fc.oneof(fc.double(), fc.string()), { maxLength: 5 }),
)

/** The valid value, or garbage in its place. */
function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  // Mostly valid, so that calls get past the first check and reach the deeper ones.
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

/** Calls `run`; a throw or rejection must be an agent-core error. */
async function expectTypedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

interface Doc {
  id: string
  title: string
  body: string
}

function textIndex(): TextSearch<Doc> {
  const search = new TextSearch<Doc>({
    indexRevision: 'r1',
    fields: ['title', 'body'],
    storedFields: ['title'],
  })
  search.addAll([
    { id: 'a', title: 'apple pie', body: 'sweet apple' },
    { id: 'b', title: 'banana', body: 'yellow fruit' },
  ])
  return search
}

function vectorIndex(): VectorSearch<{ id: string; group: string }> {
  const search = new VectorSearch<{ id: string; group: string }>({ identity: 'toy', dimensions: 2 })
  search.upsert({ document: { id: 'a', group: 'x' }, vector: [1, 0] })
  search.upsert({ document: { id: 'b', group: 'y' }, vector: [0, 1] })
  return search
}

// biome-ignore lint/suspicious/noExplicitAny: garbage is passed through the public API on purpose
type Loose = any

describe('search kit: garbage input (property)', () => {
  it('TextSearch rejects garbage only with AgentCoreError', async () => {
    const valid = textIndex().snapshot()
    const calls = fc.oneof(
      fc
        .record({
          indexRevision: maybe('r1'),
          fields: maybe(['title']),
          storedFields: maybe(['title']),
          idField: maybe('id'),
          tokenize: maybe(undefined),
          processTerm: maybe(undefined),
          searchOptions: maybe(undefined),
        })
        .map((options) => () => new TextSearch(options as Loose)),
      garbage.map((options) => () => new TextSearch(options as Loose)),
      garbage.map((document) => (s: TextSearch<Doc>) => s.add(document as Loose)),
      fc
        .record({ id: maybe('c'), title: maybe('t'), body: maybe('b') })
        .map((document) => (s: TextSearch<Doc>) => s.add(document as Loose)),
      garbage.map((documents) => (s: TextSearch<Doc>) => s.addAll(documents as Loose)),
      garbage.map((document) => (s: TextSearch<Doc>) => s.replace(document as Loose)),
      garbage.map((id) => (s: TextSearch<Doc>) => s.remove(id as Loose)),
      garbage.map((ids) => (s: TextSearch<Doc>) => s.removeMany(ids as Loose)),
      garbage.map((id) => (s: TextSearch<Doc>) => s.get(id as Loose)),
      garbage.map((request) => (s: TextSearch<Doc>) => s.search(request as Loose)),
      fc
        .record({
          query: maybe('apple'),
          limit: maybe(5),
          filter: maybe(() => true),
          prefix: maybe(true),
          fuzzy: maybe(0.2),
          boost: maybe({ title: 2 }),
          combineWith: maybe('OR'),
          fields: maybe(['title']),
        })
        .map((request) => (s: TextSearch<Doc>) => s.search(request as Loose)),
      garbage.map((snapshot) => (s: TextSearch<Doc>) => s.restore(snapshot as Loose)),
      fc
        .record({
          version: maybe(valid.version),
          engine: maybe(valid.engine),
          configurationFingerprint: maybe(valid.configurationFingerprint),
          serializedIndex: maybe(valid.serializedIndex),
        })
        .map((snapshot) => (s: TextSearch<Doc>) => s.restore(snapshot as Loose)),
    )
    await fc.assert(
      fc.asyncProperty(calls, async (call) => {
        await expectTypedOrSuccess(() => call(textIndex()))
      }),
      { numRuns: 400 },
    )
  })

  it('VectorSearch rejects garbage only with AgentCoreError', async () => {
    const valid = vectorIndex().snapshot()
    type Index = ReturnType<typeof vectorIndex>
    const calls = fc.oneof(
      garbage.map((options) => () => new VectorSearch(options as Loose)),
      fc
        .record({ identity: maybe('toy'), dimensions: maybe(2), idField: maybe('id') })
        .map((options) => () => new VectorSearch(options as Loose)),
      garbage.map((entry) => (s: Index) => s.upsert(entry as Loose)),
      fc
        .record({ document: maybe({ id: 'c', group: 'z' }), vector: maybe([0.5, 0.5]) })
        .map((entry) => (s: Index) => s.upsert(entry as Loose)),
      garbage.map((entries) => (s: Index) => s.upsertMany(entries as Loose)),
      garbage.map((id) => (s: Index) => s.remove(id as Loose)),
      garbage.map((id) => (s: Index) => s.get(id as Loose)),
      garbage.map((request) => (s: Index) => s.search(request as Loose)),
      fc
        .record({
          vector: maybe([1, 1]),
          limit: maybe(5),
          filter: maybe(() => true),
          minScore: maybe(0),
          groupBy: maybe((d: { group: string }) => d.group),
        })
        .map((request) => (s: Index) => s.search(request as Loose)),
      garbage.map((snapshot) => (s: Index) => s.restore(snapshot as Loose)),
      fc
        .record({
          version: maybe(valid.version),
          engine: maybe(valid.engine),
          configurationFingerprint: maybe(valid.configurationFingerprint),
          identity: maybe(valid.identity),
          dimensions: maybe(valid.dimensions),
          documents: maybe(valid.documents),
          vectors: maybe(valid.vectors),
        })
        .map((snapshot) => (s: Index) => s.restore(snapshot as Loose)),
    )
    await fc.assert(
      fc.asyncProperty(calls, async (call) => {
        await expectTypedOrSuccess(() => call(vectorIndex()))
      }),
      { numRuns: 400 },
    )
  })

  it('reciprocalRankFusion rejects garbage only with AgentCoreError', async () => {
    const ranking = fc.record({
      sourceId: maybe('text'),
      hits: fc.oneof(
        maybe([{ id: 'a' }, { id: 'b' }]),
        fc.array(fc.record({ id: maybe('a') }), { maxLength: 3 }),
      ),
      weight: maybe(1),
    })
    const lists = fc.oneof(garbage, fc.array(fc.oneof(ranking, garbage), { maxLength: 3 }))
    const options = fc.oneof(
      garbage,
      fc.record({ k: maybe(60), rankWindow: maybe(10), limit: maybe(5) }, { requiredKeys: [] }),
    )
    await fc.assert(
      fc.asyncProperty(lists, options, async (l, o) => {
        await expectTypedOrSuccess(() => reciprocalRankFusion(l as Loose, o as Loose))
      }),
      { numRuns: 400 },
    )
  })
})

describe('search kit additions: garbage input (property)', () => {
  it('analyzers, embedders and binary snapshots reject garbage only with AgentCoreError', async () => {
    const vectors = vectorIndex()
    const chunks = [...vectors.snapshotChunks()]
    await fc.assert(
      fc.asyncProperty(garbage, garbage, async (a, b) => {
        await expectTypedOrSuccess(() => defineTextAnalyzer(a as Loose))
        await expectTypedOrSuccess(() =>
          defineTextAnalyzer({
            name: 'x',
            version: 1,
            tokenize: () => a as Loose,
            terms: () => b as Loose,
          }).analyze('a b'),
        )
        await expectTypedOrSuccess(() => openAICompatibleEmbedder(a as Loose))
        await expectTypedOrSuccess(() =>
          openAICompatibleEmbedder({
            baseURL: 'http://127.0.0.1:9/v1',
            model: 'm',
            dimensions: 2,
            ...(a as object),
          } as Loose),
        )
        await expectTypedOrSuccess(() => vectors.restoreFrom(a as Loose))
        await expectTypedOrSuccess(() => vectors.restoreFrom([chunks[0]!, a as Loose]))
        await expectTypedOrSuccess(
          () => new TextSearch({ indexRevision: 'r', fields: ['t'], analyzer: a } as Loose),
        )
      }),
      { numRuns: 200 },
    )
    expect(vectors.size).toBe(2)
  })
})
