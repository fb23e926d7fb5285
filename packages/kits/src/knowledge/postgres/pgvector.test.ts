/**
 * The PostgreSQL knowledge store and index with pgvector, on PGlite (PostgreSQL in WebAssembly, in
 * process, with its `vector` extension): the store and search conformance suites with an HNSW index,
 * the migration SQL, agreement with the in-memory index on the same data, and bad input. One database
 * for the file (starting PGlite is slow on a loaded machine); every test uses its own table prefix.
 */
import { AgentCoreError } from '@agent-core/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '../index.js'
import {
  conformanceEmbedder,
  conformanceMaterials,
  describeKnowledgeSearchConformance,
  describeKnowledgeStoreConformance,
} from '../testing/index.js'
import {
  PostgresKnowledgeIndex,
  PostgresKnowledgeStore,
  postgresKnowledgeSchemaSql,
  singleConnectionPool,
} from './index.js'
import { openPglite } from './testing/engines.js'

let engine: Awaited<ReturnType<typeof openPglite>> | undefined
let tables = 0
const freshPrefix = () => `v_${++tables}`

beforeAll(async () => {
  engine = await openPglite()
}, 600_000)

afterAll(async () => {
  await engine?.close()
})

function db() {
  if (engine === undefined) throw new Error('PGlite did not start')
  return engine
}

describeKnowledgeStoreConformance({
  describe,
  it,
  name: 'PostgreSQL store (PGlite, pgvector)',
  open: async () => {
    const tablePrefix = freshPrefix()
    const store = new PostgresKnowledgeStore(db().pool, { tablePrefix })
    await store.createSchema({ vectors: 'pgvector' })
    return { store, reopen: () => new PostgresKnowledgeStore(db().pool, { tablePrefix }) }
  },
})

describeKnowledgeSearchConformance({
  describe,
  it,
  name: 'PostgreSQL index (PGlite, pgvector HNSW)',
  open: async ({ embedder }) => {
    const store = new PostgresKnowledgeStore(db().pool, { tablePrefix: freshPrefix() })
    await store.createSchema({ vectors: 'pgvector' })
    const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs', embedder })
    await index.createVectorIndex()
    return {
      publication: Knowledge.defineKnowledgePublication({ id: 'docs', store, embedder }),
      search: (request) => index.search(request),
    }
  },
})

describe('PostgreSQL knowledge on PGlite', () => {
  it('postgresKnowledgeSchemaSql is the same schema, for migrations', async () => {
    await db().db.exec(postgresKnowledgeSchemaSql({ tablePrefix: 'kb', vectors: 'pgvector' }))
    const store = new PostgresKnowledgeStore(db().pool, { tablePrefix: 'kb' })
    expect(await store.checkSchema()).toEqual({
      version: 1,
      vectors: 'pgvector',
      textSearchConfig: 'english',
    })
    expect(() => postgresKnowledgeSchemaSql({ tablePrefix: 'drop table;' })).toThrow(AgentCoreError)
    expect(() => postgresKnowledgeSchemaSql({ textSearchConfig: "english'; --" })).toThrow(AgentCoreError)
  })

  it('returns the same passages, in the same order and with the same details, as the in-memory index', async () => {
    // Tie rule of both: fused score, then the better best rank, then the passage id in code-unit order.
    const embedder = conformanceEmbedder()
    const memory = Knowledge.defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder,
    })
    await memory.publish({ materials: conformanceMaterials })
    const store = new PostgresKnowledgeStore(db().pool, { tablePrefix: freshPrefix() })
    await store.createSchema({ vectors: 'pgvector' })
    await Knowledge.defineKnowledgePublication({ id: 'docs', store, embedder }).publish({
      materials: conformanceMaterials,
    })
    const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs', embedder })
    await index.createVectorIndex()
    const ids = (hits: readonly { id: string }[]) => hits.map((hit) => hit.id)
    for (const query of ['bananas', 'snapshot nightly', 'manager', 'restore()', 'leave two weeks', 'zebra']) {
      const expected = await memory.search({ query, limit: 10, mode: 'text' })
      const actual = await index.search({ query, limit: 10, mode: 'text' })
      expect(ids(actual), query).toEqual(ids(expected))
      expect(
        actual.map((hit) => hit.terms),
        query,
      ).toEqual(expected.map((hit) => hit.terms))
      expect(
        actual.map((hit) => hit.snippet),
        query,
      ).toEqual(expected.map((hit) => hit.snippet))
      expect(
        actual.map((hit) => hit.document),
        query,
      ).toEqual(expected.map((hit) => hit.document))
    }
    for (const query of ['Bananas are yellow. Apples are red.', 'snapshots', 'Frage zwei Wochen']) {
      const expected = await memory.search({ query, limit: 10, mode: 'vector' })
      const actual = await index.search({ query, limit: 10, mode: 'vector' })
      expect(ids(actual), query).toEqual(ids(expected))
      // An exact scan (the HNSW index skipped) gives the same answer on this small corpus.
      expect(ids(await index.search({ query, limit: 10, mode: 'vector', exact: true })), query).toEqual(
        ids(expected),
      )
      actual.forEach((hit, i) => {
        expect(hit.score).toBeCloseTo(expected[i]!.score, 6)
      })
    }
    for (const filter of [{ metadata: { tags: 'hr' } }, { documentIdPrefix: 'guides/' }]) {
      const expected = await memory.search({
        query: 'weeks',
        limit: 10,
        mode: 'vector',
        filter: knowledgeFilterPredicate(filter),
      })
      const actual = await index.search({ query: 'weeks', limit: 10, mode: 'vector', filter })
      expect(ids(actual)).toEqual(ids(expected))
    }
  })

  it('refuses bad constructor arguments and requests with typed errors', async () => {
    const { pool } = db()
    for (const [candidate, options] of [
      [undefined, {}],
      [{ query: 1 }, {}],
      [pool, { tablePrefix: 'drop table;' }],
      [pool, null],
    ] as const) {
      expect(() => new PostgresKnowledgeStore(candidate as never, options as never)).toThrow(AgentCoreError)
    }
    const store = new PostgresKnowledgeStore(pool, { tablePrefix: freshPrefix() })
    await expect(store.createSchema({ vectors: 'faiss' as never })).rejects.toThrow(AgentCoreError)
    expect(() => new PostgresKnowledgeIndex({ store, publicationId: '' })).toThrow(AgentCoreError)
    expect(() => new PostgresKnowledgeIndex({ store: {} as never, publicationId: 'docs' })).toThrow(
      AgentCoreError,
    )
    expect(() => new PostgresKnowledgeIndex({ store, publicationId: 'docs', fusion: { k: -1 } })).toThrow(
      AgentCoreError,
    )
    expect(
      () => new PostgresKnowledgeIndex({ store, publicationId: 'docs', boost: { title: Number.NaN } }),
    ).toThrow(AgentCoreError)
    expect(() => singleConnectionPool({} as never)).toThrow(AgentCoreError)
    await store.createSchema({ vectors: 'array' })
    const index = new PostgresKnowledgeIndex({
      store,
      publicationId: 'docs',
      embedder: conformanceEmbedder(),
    })
    await expect(index.createVectorIndex()).rejects.toThrow(AgentCoreError)
    await expect(index.search({ query: 'x', limit: 1, exact: 'yes' as never })).rejects.toThrow(
      AgentCoreError,
    )
    await expect(index.search({ query: 'x', limit: 1, signal: 'now' as never })).rejects.toThrow(
      AgentCoreError,
    )
    const aborted = new AbortController()
    aborted.abort()
    await expect(index.search({ query: 'x', limit: 1, signal: aborted.signal })).rejects.toSatisfy(
      (e: unknown) => AgentCoreError.isInstance(e) && e.code === 'aborted',
    )
  })
})
