/**
 * Where the desk keeps its knowledge base: a SQLite file under `--data` (the default), or a PostgreSQL
 * database (`--database postgres://...`, `@agent-core/kits/knowledge/postgres`) that several desks on
 * several machines share. The tables are created on first use (`createSchema`, which leaves existing
 * tables of this version alone and refuses another version with `KnowledgeSchemaVersionError`).
 */
import type { KnowledgeStore } from '@agent-core/kits/knowledge'
import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
import Database from 'better-sqlite3'
import pg from 'pg'

/** An open knowledge store and how to close it. */
export interface DeskKnowledgeStore {
  readonly store: KnowledgeStore
  close(): Promise<void>
}

/** Opens the SQLite file `file`, or the PostgreSQL database at `database` when one is given. */
export async function openDeskKnowledgeStore(options: {
  readonly file: string
  readonly database?: string | undefined
}): Promise<DeskKnowledgeStore> {
  if (options.database !== undefined) {
    const pool = new pg.Pool({ connectionString: options.database, max: 4 })
    // Idle connections report server restarts here; the next query fails with a KnowledgeStoreError.
    pool.on('error', () => {})
    const store = new PostgresKnowledgeStore(pool)
    try {
      await store.createSchema()
    } catch (error) {
      await pool.end()
      throw error
    }
    return { store, close: () => pool.end() }
  }
  const database = new Database(options.file)
  database.pragma('journal_mode = WAL')
  return { store: createSqliteKnowledgeStore(database), close: async () => void database.close() }
}
