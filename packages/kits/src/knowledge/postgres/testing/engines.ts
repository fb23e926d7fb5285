/**
 * The engines the PostgreSQL knowledge tests run on (test-only; not a public subpath): an embedded
 * PostgreSQL server (full-text search, `real[]` vectors) and an in-process PGlite database with the
 * pgvector extension.
 */
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import { type PostgresKnowledgePool, singleConnectionPool } from '../index.js'

/** A PGlite database with pgvector, and a pool over it. */
export async function openPglite(): Promise<{
  db: PGlite
  pool: PostgresKnowledgePool
  close(): Promise<void>
}> {
  const db = await PGlite.create({ extensions: { vector } })
  return { db, pool: singleConnectionPool(db), close: () => db.close() }
}
