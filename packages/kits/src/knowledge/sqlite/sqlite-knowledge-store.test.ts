import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentCoreError } from '@agent-core/core'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { Knowledge, KnowledgeStoreError } from '../index.js'
import {
  change,
  countingEmbedder,
  describeKnowledgeStoreConformance,
  hashOf,
  space,
  vector,
} from '../testing/store-conformance.js'
import { createSqliteKnowledgeStore, SqliteKnowledgeStore } from './index.js'

const live = { signal: new AbortController().signal }
const folders: string[] = []
function tempFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'knowledge-sqlite-'))
  folders.push(folder)
  return join(folder, 'knowledge.db')
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A file database in WAL mode, as an App opens it. */
function openFile(file: string): Database.Database {
  const database = new Database(file)
  database.pragma('journal_mode = WAL')
  return database
}

describeKnowledgeStoreConformance({
  describe,
  it,
  name: 'SQLite store (file)',
  open: async () => {
    const file = tempFile()
    let current = openFile(file)
    return {
      store: createSqliteKnowledgeStore(current),
      reopen: () => {
        current.close()
        current = openFile(file)
        return createSqliteKnowledgeStore(current)
      },
      close: () => current.close(),
    }
  },
})

describeKnowledgeStoreConformance({
  describe,
  it,
  name: 'SQLite store (in memory, table prefix)',
  open: async () => {
    const database = new Database(':memory:')
    const store = new SqliteKnowledgeStore(database, { tablePrefix: 'kb' })
    return { store, close: () => database.close() }
  },
})

describe('SQLite knowledge store', () => {
  it('shares a file between two connections: the second writer gets a ConflictError, then catches up', async () => {
    const file = tempFile()
    const first = openFile(file)
    const second = openFile(file)
    const one = createSqliteKnowledgeStore(first)
    const two = createSqliteKnowledgeStore(second)
    try {
      const embedder = countingEmbedder()
      const a = Knowledge.defineKnowledgePublication({ id: 'docs', store: one, embedder })
      const b = Knowledge.defineKnowledgePublication({ id: 'docs', store: two, embedder })
      await a.load()
      await b.load()
      await a.publish({ materials: [{ id: 'x.md', text: 'first words' }] })
      const conflict = await b
        .publish({ materials: [{ id: 'x.md', text: 'other words' }] })
        .catch((e: unknown) => e)
      expect(AgentCoreError.isInstance(conflict) && conflict.code).toBe('conflict')
      // The failed call reloads before the next one, which then writes revision 2.
      const receipt = await b.publish({ materials: [{ id: 'x.md', text: 'other words' }] })
      expect(receipt.published[0]).toMatchObject({ revision: 2, previousRevision: 1 })
      expect((await b.search({ query: 'first', limit: 5, mode: 'text' })).length).toBe(0)
    } finally {
      first.close()
      second.close()
    }
  })

  it('refuses a database written by a newer schema, and a corrupt vector, with KnowledgeStoreError', async () => {
    const database = openFile(tempFile())
    const store = createSqliteKnowledgeStore(database)
    await store.write(
      {
        publicationId: 'docs',
        space,
        documents: [change('a.md', 1, 0, ['alpha'])],
        vectors: [{ hash: hashOf('alpha'), vector: vector(1) }],
      },
      live,
    )
    store.database.prepare('UPDATE agent_core_knowledge_embeddings SET vector = ?').run(Buffer.alloc(5))
    const error = await store.load({ publicationId: 'docs', space }, live).catch((e: unknown) => e)
    expect(KnowledgeStoreError.isInstance(error)).toBe(true)
    store.database.prepare('INSERT INTO agent_core_knowledge_schema (version) VALUES (99)').run()
    expect(() => createSqliteKnowledgeStore(database)).toThrow(KnowledgeStoreError)
    // Another prefix is another set of tables.
    expect(() => createSqliteKnowledgeStore(database, { tablePrefix: 'other' })).not.toThrow()
    database.close()
  })

  it('refuses bad constructor arguments with typed errors', () => {
    const database = new Database(':memory:')
    for (const [source, options] of [
      [':memory:', {}],
      [{ prepare: 1 }, {}],
      [database, { tablePrefix: 'drop table;' }],
      [database, { tablePrefix: 7 }],
      [database, null],
    ] as const) {
      expect(() => createSqliteKnowledgeStore(source as never, options as never)).toThrow(AgentCoreError)
    }
    database.close()
    expect(() => createSqliteKnowledgeStore(database)).toThrow(KnowledgeStoreError)
  })

  it('wraps a closed database as KnowledgeStoreError', async () => {
    const database = new Database(':memory:')
    const store = createSqliteKnowledgeStore(database)
    database.close()
    const error = await store.load({ publicationId: 'docs', space }, live).catch((e: unknown) => e)
    expect(KnowledgeStoreError.isInstance(error)).toBe(true)
    expect((error as KnowledgeStoreError).details).toEqual({ publicationId: 'docs', operation: 'load' })
  })
})
