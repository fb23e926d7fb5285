import type Database from 'better-sqlite3'
import { type ChecksumValue, rowChecksum, SetChecksum } from './row-checksum.js'

/**
 * The schema version this code writes; a database of a newer version is refused. Version 2 added the
 * store's own checksums: one per row (documents, passages, embeddings) and one per set of rows of a
 * publication (the manifest), checked on every load.
 */
export const SCHEMA_VERSION = 2

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
  readonly checksum: string | null
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
  checksum: string | null,
]

/** The prepared statements of one store. */
export interface KnowledgeStatements {
  readonly documents: Database.Statement<[string], DocumentRow>
  readonly passages: Database.Statement<[string], PassageRow>
  readonly vectors: Database.Statement<[string, string, number], [string, Buffer, string | null]>
  readonly someVectors: Database.Statement<[string, string, number, string], [string, Buffer, string | null]>
  readonly documentChecksum: Database.Statement<[string, string], { checksum: string | null }>
  readonly manifest: Database.Statement<[string], { part: string; rows: number; digest: string }>
  readonly upsertManifest: Database.Statement<[string, string, number, string]>
  readonly revision: Database.Statement<[string, string], { revision: number }>
  readonly documentHashes: Database.Statement<[string, string], { hash: string }>
  readonly deletePassages: Database.Statement<[string, string], { checksum: string | null }>
  readonly insertPassage: Database.Statement<
    [string, string, number, string, number, string, string, number, number, number, number, string, string]
  >
  readonly upsertDocument: Database.Statement<
    [string, string, number, string, string | null, string | null, number, number, number | null, string]
  >
  readonly insertVector: Database.Statement<[string, string, number, string, Buffer, string]>
  readonly sweepVector: Database.Statement<
    [string, string, string, string],
    { identity: string; dimensions: number; checksum: string | null }
  >
}

/** The checksum of a document row (its columns in table order). */
export function documentChecksum(publicationId: string, row: Omit<DocumentRow, 'checksum'>): string {
  return rowChecksum([
    publicationId,
    row.document_id,
    row.revision,
    row.content_hash,
    row.title,
    row.metadata,
    row.passage_count,
    row.published_at_ms,
    row.retracted_at_ms,
  ])
}

/** The checksum of a passage row (the columns of {@link PassageRow} but the checksum). */
export function passageChecksum(publicationId: string, row: readonly ChecksumValue[]): string {
  return rowChecksum([publicationId, ...row.slice(0, 11)])
}

/** The checksum of a vector row. */
export function vectorChecksum(
  publicationId: string,
  identity: string,
  dimensions: number,
  hash: string,
  vector: Buffer,
): string {
  return rowChecksum([publicationId, identity, dimensions, hash, vector])
}

/** The manifest part of a set of rows: `documents`, `passages`, or the vectors of one embedding space. */
export function vectorPart(identity: string, dimensions: number): string {
  return `vectors:${dimensions}:${identity}`
}

/** The four table names of a prefix. */
export function tableNames(prefix: string) {
  return {
    schema: `${prefix}_schema`,
    documents: `${prefix}_documents`,
    passages: `${prefix}_passages`,
    embeddings: `${prefix}_embeddings`,
    manifest: `${prefix}_manifest`,
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
       checksum TEXT,
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
       checksum TEXT,
       PRIMARY KEY (publication_id, document_id, number)
     ) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS ${t.passages}_hash ON ${t.passages} (publication_id, hash);
     CREATE TABLE IF NOT EXISTS ${t.embeddings} (
       publication_id TEXT NOT NULL,
       identity TEXT NOT NULL,
       dimensions INTEGER NOT NULL,
       hash TEXT NOT NULL,
       vector BLOB NOT NULL,
       checksum TEXT,
       PRIMARY KEY (publication_id, hash, identity, dimensions)
     );
     CREATE TABLE IF NOT EXISTS ${t.manifest} (
       publication_id TEXT NOT NULL,
       part TEXT NOT NULL,
       rows INTEGER NOT NULL,
       digest TEXT NOT NULL,
       PRIMARY KEY (publication_id, part)
     ) WITHOUT ROWID;`,
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
      } else if (row.version < 2) {
        addChecksums(database, t)
        database.prepare(`INSERT INTO ${t.schema} (version) VALUES (?)`).run(SCHEMA_VERSION)
      }
    })
    .immediate()
  return {
    documents: database.prepare(
      `SELECT document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms, checksum
       FROM ${t.documents} WHERE publication_id = ? ORDER BY document_id`,
    ),
    passages: database
      .prepare(
        `SELECT passage_id, document_id, revision, number, heading_path, text, start, "end", start_line, end_line, hash, checksum
         FROM ${t.passages} WHERE publication_id = ? ORDER BY document_id, number`,
      )
      .raw(true) as unknown as KnowledgeStatements['passages'],
    vectors: database
      .prepare(
        `SELECT hash, vector, checksum FROM ${t.embeddings} WHERE publication_id = ? AND identity = ? AND dimensions = ?`,
      )
      .raw(true) as unknown as KnowledgeStatements['vectors'],
    someVectors: database
      .prepare(
        `SELECT hash, vector, checksum FROM ${t.embeddings} WHERE publication_id = ? AND identity = ? AND dimensions = ?
         AND hash IN (SELECT value FROM json_each(?))`,
      )
      .raw(true) as unknown as KnowledgeStatements['someVectors'],
    documentChecksum: database.prepare(
      `SELECT checksum FROM ${t.documents} WHERE publication_id = ? AND document_id = ?`,
    ),
    manifest: database.prepare(`SELECT part, rows, digest FROM ${t.manifest} WHERE publication_id = ?`),
    upsertManifest: database.prepare(
      `INSERT INTO ${t.manifest} (publication_id, part, rows, digest) VALUES (?, ?, ?, ?)
       ON CONFLICT (publication_id, part) DO UPDATE SET rows = excluded.rows, digest = excluded.digest`,
    ),
    revision: database.prepare(
      `SELECT revision FROM ${t.documents} WHERE publication_id = ? AND document_id = ?`,
    ),
    documentHashes: database.prepare(
      `SELECT hash FROM ${t.passages} WHERE publication_id = ? AND document_id = ?`,
    ),
    deletePassages: database.prepare(
      `DELETE FROM ${t.passages} WHERE publication_id = ? AND document_id = ? RETURNING checksum`,
    ),
    insertPassage: database.prepare(
      `INSERT INTO ${t.passages} (publication_id, document_id, number, passage_id, revision, heading_path, text, start, "end", start_line, end_line, hash, checksum)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertDocument: database.prepare(
      `INSERT INTO ${t.documents} (publication_id, document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms, checksum)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (publication_id, document_id) DO UPDATE SET revision = excluded.revision,
         content_hash = excluded.content_hash, title = excluded.title, metadata = excluded.metadata,
         passage_count = excluded.passage_count, published_at_ms = excluded.published_at_ms,
         retracted_at_ms = excluded.retracted_at_ms, checksum = excluded.checksum`,
    ),
    insertVector: database.prepare(
      `INSERT INTO ${t.embeddings} (publication_id, identity, dimensions, hash, vector, checksum) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    ),
    sweepVector: database.prepare(
      `DELETE FROM ${t.embeddings} WHERE publication_id = ? AND hash = ?
       AND NOT EXISTS (SELECT 1 FROM ${t.passages} WHERE publication_id = ? AND hash = ?)
       RETURNING identity, dimensions, checksum`,
    ),
  }
}

/**
 * Version 1 to 2: adds the checksum columns and the manifest, and computes them from the rows as they are
 * (a file damaged before the upgrade cannot be told from a sound one; every change after it can).
 */
function addChecksums(database: Database.Database, t: ReturnType<typeof tableNames>): void {
  for (const table of [t.documents, t.passages, t.embeddings]) {
    const columns = database.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]
    if (!columns.some((column) => column.name === 'checksum'))
      database.exec(`ALTER TABLE ${table} ADD COLUMN checksum TEXT`)
  }
  const sets = new Map<string, SetChecksum>()
  const add = (publicationId: string, part: string, checksum: string) => {
    const key = `${publicationId}\u0000${part}`
    let set = sets.get(key)
    if (!set) {
      set = new SetChecksum()
      sets.set(key, set)
    }
    set.add(checksum)
  }
  const documents = database.prepare(
    `SELECT publication_id, document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms FROM ${t.documents}`,
  )
  const setDocument = database.prepare(
    `UPDATE ${t.documents} SET checksum = ? WHERE publication_id = ? AND document_id = ?`,
  )
  for (const row of documents.all() as (Omit<DocumentRow, 'checksum'> & { publication_id: string })[]) {
    const checksum = documentChecksum(row.publication_id, row)
    setDocument.run(checksum, row.publication_id, row.document_id)
    add(row.publication_id, 'documents', checksum)
  }
  const passages = database
    .prepare(
      `SELECT publication_id, passage_id, document_id, revision, number, heading_path, text, start, "end", start_line, end_line, hash FROM ${t.passages}`,
    )
    .raw(true)
  const setPassage = database.prepare(
    `UPDATE ${t.passages} SET checksum = ? WHERE publication_id = ? AND document_id = ? AND number = ?`,
  )
  for (const row of passages.all() as ChecksumValue[][]) {
    const [publicationId, ...columns] = row as [string, ...ChecksumValue[]]
    const checksum = passageChecksum(publicationId, columns)
    setPassage.run(checksum, publicationId, columns[1], columns[3])
    add(publicationId, 'passages', checksum)
  }
  const vectors = database.prepare(
    `SELECT publication_id, identity, dimensions, hash, vector FROM ${t.embeddings}`,
  )
  const setVector = database.prepare(
    `UPDATE ${t.embeddings} SET checksum = ? WHERE publication_id = ? AND hash = ? AND identity = ? AND dimensions = ?`,
  )
  for (const row of vectors.all() as {
    publication_id: string
    identity: string
    dimensions: number
    hash: string
    vector: Buffer
  }[]) {
    const checksum = vectorChecksum(row.publication_id, row.identity, row.dimensions, row.hash, row.vector)
    setVector.run(checksum, row.publication_id, row.hash, row.identity, row.dimensions)
    add(row.publication_id, vectorPart(row.identity, row.dimensions), checksum)
  }
  const manifest = database.prepare(
    `INSERT OR REPLACE INTO ${t.manifest} (publication_id, part, rows, digest) VALUES (?, ?, ?, ?)`,
  )
  for (const [key, set] of sets) {
    const [publicationId, part] = key.split('\u0000') as [string, string]
    manifest.run(publicationId, part, set.rows, set.digest)
  }
}

/** The database was written by a newer version of this store. */
export class SchemaTooNew extends Error {
  constructor(readonly version: number) {
    super(`schema version ${version}`)
  }
}
