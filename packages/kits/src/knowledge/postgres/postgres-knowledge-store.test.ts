/**
 * The PostgreSQL knowledge store and index on an embedded PostgreSQL server (full-text search, vectors
 * as `real[]` searched exactly): the store and search conformance suites, the explicit versioned schema,
 * atomic batches under concurrent searches and conflicting writers. pgvector: `pgvector.test.ts`.
 */
import { ConflictError, InvalidStateError } from '@agent-core/core'
import { defineTextAnalyzer, englishAnalyzer, standardAnalyzer } from '@agent-core/kits/search'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// the repository's embedded PostgreSQL test harness (test-only, not a public subpath)
import {
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../../durable/postgres/testing/embedded.js'
import { createMemoryKnowledgeStore, Knowledge } from '../index.js'
import {
  conformanceMaterials,
  describeKnowledgeSearchConformance,
  describeKnowledgeStoreConformance,
} from '../testing/index.js'
import { KnowledgeSchemaVersionError, PostgresKnowledgeIndex, PostgresKnowledgeStore } from './index.js'

let server: EmbeddedPostgresServer | undefined
let tables = 0
const freshPrefix = () => `k_${++tables}`

beforeAll(async () => {
  server = await startEmbeddedPostgres({ database: 'knowledge_test' })
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

describeKnowledgeStoreConformance({
  describe,
  it,
  name: 'PostgreSQL store (embedded server)',
  open: async () => {
    const tablePrefix = freshPrefix()
    const pools: pg.Pool[] = [running().createPool({ max: 3 })]
    const store = new PostgresKnowledgeStore(pools[0]!, { tablePrefix })
    await store.createSchema()
    return {
      store,
      // Another pool is another process's view of the same database.
      reopen: () => {
        const pool = running().createPool({ max: 3 })
        pools.push(pool)
        return new PostgresKnowledgeStore(pool, { tablePrefix })
      },
      close: async () => {
        await Promise.all(pools.map((pool) => pool.end()))
      },
    }
  },
})

describeKnowledgeSearchConformance({
  describe,
  it,
  name: 'PostgreSQL index (embedded server, exact vectors)',
  open: async ({ embedder }) => {
    const pool = running().createPool({ max: 3 })
    const store = new PostgresKnowledgeStore(pool, { tablePrefix: freshPrefix() })
    await store.createSchema({ vectors: 'array' })
    const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs', embedder })
    return {
      publication: Knowledge.defineKnowledgePublication({ id: 'docs', store, embedder }),
      search: (request) => index.search(request),
      close: () => pool.end(),
    }
  },
})

describe('PostgreSQL knowledge: the analyzer of the hits', () => {
  async function published() {
    const pool = running().createPool({ max: 2 })
    const store = new PostgresKnowledgeStore(pool, { tablePrefix: freshPrefix() })
    await store.createSchema()
    await Knowledge.defineKnowledgePublication({ id: 'docs', store }).publish({
      materials: conformanceMaterials,
    })
    return { pool, store }
  }
  const queries = ['snapshots', 'restore()', 'manager two weeks', 'bananas']

  it('is undefined without options.analyzer, and the hits have englishAnalyzer terms and snippets', async () => {
    const { pool, store } = await published()
    try {
      const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs' })
      expect(index.analyzer).toBeUndefined()
      const memory = Knowledge.defineKnowledgePublication({
        id: 'docs',
        store: createMemoryKnowledgeStore(),
        search: { analyzer: englishAnalyzer },
      })
      await memory.publish({ materials: conformanceMaterials })
      for (const query of queries) {
        const expected = await memory.search({ query, limit: 10, mode: 'text' })
        const actual = await index.search({ query, limit: 10, mode: 'text' })
        expect(actual.length, query).toBeGreaterThan(0)
        expect(actual.map((hit) => [hit.id, hit.terms, hit.match, hit.snippet])).toEqual(
          expected.map((hit) => [hit.id, hit.terms, hit.match, hit.snippet]),
        )
      }
      // English stems ("snapshots" is the term "snapshot"), which standardAnalyzer does not.
      const [hit] = await index.search({ query: 'snapshots', limit: 1, mode: 'text' })
      expect(hit?.terms).toEqual(englishAnalyzer.analyze('snapshots'))
      expect(hit?.terms).not.toEqual(standardAnalyzer.analyze('snapshots'))
      expect(index.analyzer).toBeUndefined()
    } finally {
      await pool.end()
    }
  })

  it('is the analyzer options.analyzer gave, and the hits terms, matches and snippets are its own', async () => {
    const { pool, store } = await published()
    try {
      let calls = 0
      const upper = defineTextAnalyzer({
        name: 'test/upper',
        version: 1,
        tokenize: (text) => {
          calls++
          return standardAnalyzer.tokenize(text)
        },
        terms: (token) => standardAnalyzer.terms(token).map((term) => term.toUpperCase()),
      })
      const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs', analyzer: upper })
      expect(index.analyzer).toBe(upper)
      const [hit] = await index.search({ query: 'manager', limit: 1, mode: 'text' })
      expect(calls).toBeGreaterThan(0)
      expect(hit?.id).toBe('guides/leave.md@1#1')
      expect(hit?.terms).toEqual(['MANAGER'])
      expect(hit?.snippet?.highlights.length).toBe(1)
      const memory = Knowledge.defineKnowledgePublication({
        id: 'docs',
        store: createMemoryKnowledgeStore(),
        search: { analyzer: upper },
      })
      await memory.publish({ materials: conformanceMaterials })
      for (const query of ['manager', 'bananas', 'restore()']) {
        const expected = await memory.search({ query, limit: 10, mode: 'text' })
        const actual = await index.search({ query, limit: 10, mode: 'text' })
        expect(actual.map((hit) => [hit.id, hit.terms, hit.match, hit.snippet])).toEqual(
          expected.map((hit) => [hit.id, hit.terms, hit.match, hit.snippet]),
        )
      }
      expect(index.analyzer).toBe(upper)
    } finally {
      await pool.end()
    }
  })
})

describe('PostgreSQL knowledge: schema', () => {
  it('is created only by an explicit call; a missing or other version is KnowledgeSchemaVersionError', async () => {
    const pool = running().createPool({ max: 2 })
    try {
      const tablePrefix = freshPrefix()
      const store = new PostgresKnowledgeStore(pool, { tablePrefix })
      const live = { signal: new AbortController().signal }
      const missing = await store
        .load({ publicationId: 'docs', space: undefined }, live)
        .catch((e: unknown) => e)
      expect(KnowledgeSchemaVersionError.isInstance(missing)).toBe(true)
      expect((missing as KnowledgeSchemaVersionError).details).toEqual({
        tablePrefix,
        expectedVersion: 1,
        foundVersion: 0,
      })
      // Concurrent first calls do not race; a second call leaves the tables alone and reports them.
      const [a, b] = await Promise.all([
        store.createSchema(),
        new PostgresKnowledgeStore(pool, { tablePrefix }).createSchema({ textSearchConfig: 'simple' }),
      ])
      expect(a).toEqual(b)
      expect((await store.load({ publicationId: 'docs', space: undefined }, live)).documents).toEqual([])
      await pool.query(`UPDATE "${tablePrefix}_schema" SET version = 2`)
      const newer = new PostgresKnowledgeStore(pool, { tablePrefix })
      const error = await newer.checkSchema().catch((e: unknown) => e)
      expect(KnowledgeSchemaVersionError.isInstance(error)).toBe(true)
      expect((error as KnowledgeSchemaVersionError).details.foundVersion).toBe(2)
      await expect(newer.createSchema()).rejects.toSatisfy((e: unknown) =>
        KnowledgeSchemaVersionError.isInstance(e),
      )
    } finally {
      await pool.end()
    }
  })
})

describe('PostgreSQL knowledge: a server without pgvector', () => {
  it('refuses vectors: "pgvector" with an InvalidStateError, creates nothing, and runs text search on the default schema', async () => {
    const pool = running().createPool({ max: 2 })
    try {
      const tablePrefix = freshPrefix()
      const store = new PostgresKnowledgeStore(pool, { tablePrefix })
      const refused = await store.createSchema({ vectors: 'pgvector' }).catch((e: unknown) => e)
      expect(InvalidStateError.isInstance(refused)).toBe(true)
      expect((refused as InvalidStateError).details).toEqual({
        field: 'options.vectors',
        received: 'the string "pgvector"',
      })
      expect((refused as InvalidStateError).message).toMatch(/no "vector" extension.*createSchema\(\)/)
      const left = await pool.query('SELECT to_regclass($1) AS t', [`${tablePrefix}_schema`])
      expect(left.rows[0].t).toBeNull()
      // The text-only deployment: the default schema, a publication without an embedder, FTS.
      expect((await store.createSchema()).vectors).toBe('array')
      const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store })
      await docs.publish({
        materials: [
          { id: 'leave.md', text: '# Leave\n\nAsk your manager two weeks ahead.\n' },
          { id: 'travel.md', text: '# Travel\n\nBook trains through the portal.\n' },
        ],
      })
      const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs' })
      const hits = await index.search({ query: 'managers', limit: 5 })
      expect(hits.map((hit) => hit.document.documentId)).toEqual(['leave.md'])
      expect(hits[0]?.contributions.map((c) => c.sourceId)).toEqual(['text'])
      const vectorIndex = await index.createVectorIndex().catch((e: unknown) => e)
      expect(InvalidStateError.isInstance(vectorIndex)).toBe(true)
    } finally {
      await pool.end()
    }
  })
})

describe('PostgreSQL knowledge: many writers and readers', () => {
  it('a search sees all of a batch or none of it, while another connection publishes', async () => {
    const tablePrefix = freshPrefix()
    const writerPool = running().createPool({ max: 2 })
    const readerPool = running().createPool({ max: 4 })
    try {
      const writerStore = new PostgresKnowledgeStore(writerPool, { tablePrefix })
      await writerStore.createSchema()
      const writer = Knowledge.defineKnowledgePublication({ id: 'docs', store: writerStore })
      const index = new PostgresKnowledgeIndex({
        store: new PostgresKnowledgeStore(readerPool, { tablePrefix }),
        publicationId: 'docs',
      })
      const materials = (round: number) =>
        ['a.md', 'b.md', 'c.md'].map((id) => ({
          id,
          text: `Round ${round} of the shared word quokka in ${id}.`,
        }))
      await writer.publish({ materials: materials(0) })
      let done = false
      const seen = new Set<string>()
      const reader = (async () => {
        while (!done) {
          const hits = await index.search({ query: 'quokka', limit: 10, mode: 'text' })
          const revisions = new Set(hits.map((hit) => hit.document.revision))
          expect(hits.length).toBe(3)
          expect(revisions.size).toBe(1)
          seen.add([...revisions].join())
        }
      })()
      for (let round = 1; round <= 6; round++) await writer.publish({ materials: materials(round) })
      done = true
      await reader
      expect(seen.size).toBeGreaterThanOrEqual(1)
      // A second writer that did not see the new revisions is refused whole, then catches up.
      const late = Knowledge.defineKnowledgePublication({
        id: 'docs',
        store: new PostgresKnowledgeStore(readerPool, { tablePrefix }),
      })
      await late.load()
      await writer.publish({ materials: [{ id: 'a.md', text: 'Newest.' }] })
      const conflict = await late
        .publish({ materials: [{ id: 'a.md', text: 'Stale.' }] })
        .catch((e: unknown) => e)
      expect(ConflictError.isInstance(conflict)).toBe(true)
      expect(
        (await late.publish({ materials: [{ id: 'a.md', text: 'Stale.' }] })).published[0]?.revision,
      ).toBe(9)
    } finally {
      await writerPool.end()
      await readerPool.end()
    }
  })
})
