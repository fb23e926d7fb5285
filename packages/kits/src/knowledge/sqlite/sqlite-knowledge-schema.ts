import type Database from 'better-sqlite3'

/** The schema version this code writes; a database of a newer version is refused. */
export const SCHEMA_VERSION = 1

/** A document row as read back. */
export interface DocumentRow {
  readonly document_id: string
  readonly revision: number
  readonly content_hash: string
  readonly title: string | null
  readonly metadata: string | null
  readonly passage_count: number
  readonly published_at_ms: number
  readonly retracted_at_ms: number | null
}

/** A passage row as read back, in column order (read with `raw()`, an array per row). */
export type PassageRow = [
  passageId: string,
  documentId: string,
  revision: number,
  number: number,
  headingPath: string,
  text: string,
  start: number,
  end: number,
  startLine: number,
  endLine: number,
  hash: string,
]

/** The prepared statements of one store. */
export interface KnowledgeStatements {
  readonly documents: Database.Statement<[string], DocumentRow>
  readonly passages: Database.Statement<[string], PassageRow>
  readonly vectors: Database.Statement<[string, string, number], [string, Buffer]>
  readonly someVectors: Database.Statement<[string, string, number, string], [string, Buffer]>
  readonly revision: Database.Statement<[string, string], { revision: number }>
  readonly documentHashes: Database.Statement<[string, string], { hash: string }>
  readonly deletePassages: Database.Statement<[string, string]>
  readonly insertPassage: Database.Statement<
    [string, string, number, string, number, string, string, number, number, number, number, string]
  >
  readonly upsertDocument: Database.Statement<
    [string, string, number, string, string | null, string | null, number, number, number | null]
  >
  readonly insertVector: Database.Statement<[string, string, number, string, Buffer]>
  readonly sweepVector: Database.Statement<[string, string, string, string]>
}

/** The four table names of a prefix. */
export function tableNames(prefix: string) {
  return {
    schema: `${prefix}_schema`,
    documents: `${prefix}_documents`,
    passages: `${prefix}_passages`,
    embeddings: `${prefix}_embeddings`,
  }
}

/**
 * Creates the tables when missing (one database may hold several publications, keyed by
 * `publication_id`), checks the schema version, and prepares every statement.
 *
 * - documents: one row per document ever published; a retracted one keeps its row (and its revision).
 * - passages: the passages of the published revisions, clustered by document so that a load is one
 *   range scan in document order.
 * - embeddings: one float32 BLOB per passage hash and embedding space (identity and dimensions), keyed
 *   by hash first, so that reading or sweeping the vectors of given hashes is a key lookup.
 */
export function prepareKnowledgeSchema(database: Database.Database, prefix: string): KnowledgeStatements {
  const t = tableNames(prefix)
  database.exec(
    `CREATE TABLE IF NOT EXISTS ${t.schema} (version INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS ${t.documents} (
       publication_id TEXT NOT NULL,
       document_id TEXT NOT NULL,
       revision INTEGER NOT NULL,
       content_hash TEXT NOT NULL,
       title TEXT,
       metadata TEXT,
       passage_count INTEGER NOT NULL,
       published_at_ms INTEGER NOT NULL,
       retracted_at_ms INTEGER,
       PRIMARY KEY (publication_id, document_id)
     ) WITHOUT ROWID;
     CREATE TABLE IF NOT EXISTS ${t.passages} (
       publication_id TEXT NOT NULL,
       document_id TEXT NOT NULL,
       number INTEGER NOT NULL,
       passage_id TEXT NOT NULL,
       revision INTEGER NOT NULL,
       heading_path TEXT NOT NULL,
       text TEXT NOT NULL,
       start INTEGER NOT NULL,
       "end" INTEGER NOT NULL,
       start_line INTEGER NOT NULL,
       end_line INTEGER NOT NULL,
       hash TEXT NOT NULL,
       PRIMARY KEY (publication_id, document_id, number)
     ) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS ${t.passages}_hash ON ${t.passages} (publication_id, hash);
     CREATE TABLE IF NOT EXISTS ${t.embeddings} (
       publication_id TEXT NOT NULL,
       identity TEXT NOT NULL,
       dimensions INTEGER NOT NULL,
       hash TEXT NOT NULL,
       vector BLOB NOT NULL,
       PRIMARY KEY (publication_id, hash, identity, dimensions)
     );`,
  )
  database
    .transaction(() => {
      const row = database.prepare(`SELECT max(version) AS version FROM ${t.schema}`).get() as {
        version: number | null
      }
      if (row.version === null)
        database.prepare(`INSERT INTO ${t.schema} (version) VALUES (?)`).run(SCHEMA_VERSION)
      else if (row.version > SCHEMA_VERSION) {
        throw new SchemaTooNew(row.version)
      }
    })
    .immediate()
  return {
    documents: database.prepare(
      `SELECT document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms
       FROM ${t.documents} WHERE publication_id = ? ORDER BY document_id`,
    ),
    passages: database
      .prepare(
        `SELECT passage_id, document_id, revision, number, heading_path, text, start, "end", start_line, end_line, hash
         FROM ${t.passages} WHERE publication_id = ? ORDER BY document_id, number`,
      )
      .raw(true) as unknown as KnowledgeStatements['passages'],
    vectors: database
      .prepare(
        `SELECT hash, vector FROM ${t.embeddings} WHERE publication_id = ? AND identity = ? AND dimensions = ?`,
      )
      .raw(true) as unknown as KnowledgeStatements['vectors'],
    someVectors: database
      .prepare(
        `SELECT hash, vector FROM ${t.embeddings} WHERE publication_id = ? AND identity = ? AND dimensions = ?
         AND hash IN (SELECT value FROM json_each(?))`,
      )
      .raw(true) as unknown as KnowledgeStatements['someVectors'],
    revision: database.prepare(
      `SELECT revision FROM ${t.documents} WHERE publication_id = ? AND document_id = ?`,
    ),
    documentHashes: database.prepare(
      `SELECT hash FROM ${t.passages} WHERE publication_id = ? AND document_id = ?`,
    ),
    deletePassages: database.prepare(
      `DELETE FROM ${t.passages} WHERE publication_id = ? AND document_id = ?`,
    ),
    insertPassage: database.prepare(
      `INSERT INTO ${t.passages} (publication_id, document_id, number, passage_id, revision, heading_path, text, start, "end", start_line, end_line, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertDocument: database.prepare(
      `INSERT INTO ${t.documents} (publication_id, document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (publication_id, document_id) DO UPDATE SET revision = excluded.revision,
         content_hash = excluded.content_hash, title = excluded.title, metadata = excluded.metadata,
         passage_count = excluded.passage_count, published_at_ms = excluded.published_at_ms,
         retracted_at_ms = excluded.retracted_at_ms`,
    ),
    insertVector: database.prepare(
      `INSERT INTO ${t.embeddings} (publication_id, identity, dimensions, hash, vector) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    ),
    sweepVector: database.prepare(
      `DELETE FROM ${t.embeddings} WHERE publication_id = ? AND hash = ?
       AND NOT EXISTS (SELECT 1 FROM ${t.passages} WHERE publication_id = ? AND hash = ?)`,
    ),
  }
}

/** The database was written by a newer version of this store. */
export class SchemaTooNew extends Error {
  constructor(readonly version: number) {
    super(`schema version ${version}`)
  }
}
