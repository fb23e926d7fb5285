import {
  AgentCoreError,
  assertNonEmptyString,
  assertObject,
  ConflictError,
  describeValue,
  refuseField,
} from '@agent-core/core'
import {
  type KnowledgeDocumentRecord,
  type KnowledgeEmbeddingSpace,
  type KnowledgeMetadata,
  type KnowledgePassageRecord,
  type KnowledgeStore,
  type KnowledgeStoreBatch,
  type KnowledgeStoreCallOptions,
  type KnowledgeStoreContents,
  KnowledgeStoreError,
} from '@agent-core/kits/knowledge'
import type Database from 'better-sqlite3'
import { checkArray, checkBatch, checkCallOptions, checkSpace } from '../internal/store-checks.js'
import { fromBlob, toBlob } from './float32-blob.js'
import { SetChecksum } from './row-checksum.js'
import {
  type DocumentRow,
  documentChecksum,
  type KnowledgeStatements,
  passageChecksum,
  prepareKnowledgeSchema,
  SCHEMA_VERSION,
  SchemaTooNew,
  vectorChecksum,
  vectorPart,
} from './sqlite-knowledge-schema.js'

/**
 * A better-sqlite3 database handle: the App opens it (`new Database(file)`), chooses its settings (WAL,
 * `synchronous`, `busy_timeout`) and closes it. The same handle may also serve a `SqliteDurableStore`.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteKnowledgeStore, type SqliteKnowledgeDatabase } from '@agent-core/kits/knowledge/sqlite'
 * const database: SqliteKnowledgeDatabase = new Database(':memory:')
 * const store = createSqliteKnowledgeStore(database)
 * ```
 */
export type SqliteKnowledgeDatabase = Database.Database

/**
 * Options of {@link createSqliteKnowledgeStore}.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
 * const store = createSqliteKnowledgeStore(new Database(':memory:'), { tablePrefix: 'docs' })
 * ```
 */
export interface SqliteKnowledgeStoreOptions {
  /** Prefix of the tables (`<prefix>_documents`, `_passages`, `_embeddings`, `_schema`). Default `agent_core_knowledge`. */
  readonly tablePrefix?: string | undefined
}

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/
const WHERE = 'SqliteKnowledgeStore'

function isDatabase(value: unknown): value is SqliteKnowledgeDatabase {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SqliteKnowledgeDatabase).prepare === 'function' &&
    typeof (value as SqliteKnowledgeDatabase).exec === 'function' &&
    typeof (value as SqliteKnowledgeDatabase).transaction === 'function'
  )
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new KnowledgeStoreError(
      `${WHERE}: ${what} holds text that is not JSON; the database is corrupt. Delete it and publish again.`,
      {
        cause: error,
        details: { operation: 'load' },
      },
    )
  }
}

/** A row or a set of rows does not match the store's own checksum: the file was damaged. */
function damaged(
  publicationId: string,
  what: string,
  operation: 'load' | 'vectors' | 'write',
): KnowledgeStoreError {
  return new KnowledgeStoreError(
    `${WHERE}: publication "${publicationId}" fails the store's own checksum (${what}): the database file is damaged, and nothing of it was used. Restore the file from a backup, or delete it and publish again.`,
    { details: { publicationId, operation } },
  )
}

function checkRow(
  stored: string | null,
  computed: string,
  publicationId: string,
  what: string,
  operation: 'load' | 'vectors',
): string {
  if (stored !== computed) throw damaged(publicationId, what, operation)
  return computed
}

function recordOf(row: DocumentRow): KnowledgeDocumentRecord {
  return {
    id: row.document_id,
    revision: row.revision,
    contentHash: row.content_hash,
    ...(row.title !== null ? { title: row.title } : {}),
    ...(row.metadata !== null
      ? { metadata: parseJson(row.metadata, `the metadata of "${row.document_id}"`) as KnowledgeMetadata }
      : {}),
    passageCount: row.passage_count,
    publishedAtMs: row.published_at_ms,
    ...(row.retracted_at_ms !== null ? { retractedAtMs: row.retracted_at_ms } : {}),
  }
}

/**
 * A {@link KnowledgeStore} in a SQLite file through better-sqlite3: the embedded default, next to
 * `durable/sqlite`. It keeps documents (with their revision, also after a retraction), the passages of
 * the published revisions, and one float32 BLOB per passage hash and embedding space (the embedder's
 * identity and dimensions), so a published corpus and its vectors survive a restart without
 * re-embedding. Each `write` is one `BEGIN IMMEDIATE` transaction; several publications may share the
 * file (rows are keyed by publication id). The App opens the database, configures it (WAL is
 * recommended for a file: readers then never wait for a writer) and closes it; the store creates its
 * tables when they are missing.
 *
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { Knowledge } from '@agent-core/kits/knowledge'
 * import { SqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
 * const database = new Database(':memory:')
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store: new SqliteKnowledgeStore(database) })
 * await docs.publish({ materials: [{ id: 'a.md', text: 'Hello.' }] })
 * database.close()
 * ```
 */
export class SqliteKnowledgeStore implements KnowledgeStore {
  /** The database the store reads and writes (the App's: it closes it). */
  readonly database: SqliteKnowledgeDatabase
  readonly #sql: KnowledgeStatements

  constructor(database: SqliteKnowledgeDatabase, options: SqliteKnowledgeStoreOptions = {}) {
    if (!isDatabase(database)) {
      refuseField(
        'input',
        'database',
        `must be an open better-sqlite3 Database (new Database(file)), but got ${describeValue(database)}`,
        database,
        { prefix: `${WHERE}: ` },
      )
    }
    assertObject(options, 'options', { where: WHERE, arrays: false })
    const prefix = options.tablePrefix ?? 'agent_core_knowledge'
    if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
      refuseField(
        'input',
        'options.tablePrefix',
        `must be a SQL identifier (a letter or underscore, then up to 40 letters, digits or underscores), but got ${describeValue(prefix)}`,
        prefix,
        { prefix: `${WHERE}: ` },
      )
    }
    if (!database.open) {
      throw new KnowledgeStoreError(
        `${WHERE} needs an open database, but this one is closed. Open a new one.`,
        {
          details: { operation: 'open' },
        },
      )
    }
    this.database = database
    try {
      this.#sql = prepareKnowledgeSchema(database, prefix)
    } catch (error) {
      if (error instanceof SchemaTooNew) {
        throw new KnowledgeStoreError(
          `${WHERE}: the tables "${prefix}_*" were written by a newer version (schema ${error.version}; this one writes ${SCHEMA_VERSION}). Upgrade @agent-core/kits, or use another tablePrefix.`,
          { details: { operation: 'open' } },
        )
      }
      throw new KnowledgeStoreError(
        `${WHERE} could not create or update its tables "${prefix}_*": ${error instanceof Error ? error.message : describeValue(error)}. Check that the database is writable.`,
        { cause: error, details: { operation: 'open' } },
      )
    }
  }

  /**
   * Everything one publication holds, read in one transaction (a consistent snapshot even while another
   * process writes), with the vectors of `space`.
   * @example
   * ```ts
   * import Database from 'better-sqlite3'
   * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
   * const database = new Database(':memory:')
   * const store = createSqliteKnowledgeStore(database)
   * const contents = await store.load({ publicationId: 'docs', space: undefined }, { signal: new AbortController().signal })
   * database.close()
   * ```
   */
  async load(
    request: { readonly publicationId: string; readonly space: KnowledgeEmbeddingSpace | undefined },
    options: KnowledgeStoreCallOptions,
  ): Promise<KnowledgeStoreContents> {
    assertObject(request, 'request', { where: WHERE, arrays: false })
    const { publicationId } = request
    assertNonEmptyString(publicationId, 'request.publicationId', { where: WHERE })
    const space = request.space === undefined ? undefined : checkSpace(request.space, 'request.space', WHERE)
    checkCallOptions(options, `before loading publication "${publicationId}"`, WHERE)
    return this.#run('load', publicationId, () =>
      this.database.transaction(() => {
        // Every row is checked against its own checksum, and each set of rows against the manifest, so
        // a damaged file is refused, never answered from: a changed byte, a lost or an added row.
        const manifest = new Map(this.#sql.manifest.all(publicationId).map((row) => [row.part, row]))
        const checkSet = (part: string, set: SetChecksum) => {
          const expected = manifest.get(part)
          if (
            set.rows !== (expected?.rows ?? 0) ||
            set.digest !== (expected?.digest ?? new SetChecksum().digest)
          )
            throw damaged(
              publicationId,
              `the ${part.startsWith('vectors:') ? 'vectors' : part} do not add up`,
              'load',
            )
        }
        const documentSet = new SetChecksum()
        const rows = this.#sql.documents.all(publicationId)
        for (const row of rows) {
          documentSet.add(
            checkRow(
              row.checksum,
              documentChecksum(publicationId, row),
              publicationId,
              `document "${row.document_id}"`,
              'load',
            ),
          )
        }
        checkSet('documents', documentSet)
        const documents = rows.map(recordOf)
        const passageSet = new SetChecksum()
        const passages: KnowledgePassageRecord[] = []
        for (const row of this.#sql.passages.iterate(publicationId)) {
          passageSet.add(
            checkRow(
              row[11],
              passageChecksum(publicationId, row),
              publicationId,
              `passage "${row[0]}"`,
              'load',
            ),
          )
          passages.push({
            id: row[0],
            documentId: row[1],
            revision: row[2],
            number: row[3],
            headingPath: parseJson(row[4], `the heading path of "${row[0]}"`) as string[],
            text: row[5],
            start: row[6],
            end: row[7],
            startLine: row[8],
            endLine: row[9],
            hash: row[10],
          })
        }
        checkSet('passages', passageSet)
        const vectors = new Map<string, Float32Array>()
        if (space !== undefined) {
          const vectorSet = new SetChecksum()
          for (const [hash, blob, checksum] of this.#sql.vectors.iterate(
            publicationId,
            space.identity,
            space.dimensions,
          )) {
            const computed = Buffer.isBuffer(blob)
              ? vectorChecksum(publicationId, space.identity, space.dimensions, hash, blob)
              : ''
            vectorSet.add(checkRow(checksum, computed, publicationId, `the vector of "${hash}"`, 'load'))
            vectors.set(hash, fromBlob(blob, space.dimensions, hash))
          }
          checkSet(vectorPart(space.identity, space.dimensions), vectorSet)
        }
        return { documents, passages, vectors }
      })(),
    )
  }

  /**
   * The stored vectors of `space` for these hashes (missing ones are left out).
   * @example
   * ```ts
   * import Database from 'better-sqlite3'
   * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
   * const database = new Database(':memory:')
   * const store = createSqliteKnowledgeStore(database)
   * const found = await store.vectors(
   *   { publicationId: 'docs', space: { identity: 'toy', dimensions: 2 }, hashes: ['x'] },
   *   { signal: new AbortController().signal },
   * )
   * console.log(found.size) // 0
   * database.close()
   * ```
   */
  async vectors(
    request: {
      readonly publicationId: string
      readonly space: KnowledgeEmbeddingSpace
      readonly hashes: readonly string[]
    },
    options: KnowledgeStoreCallOptions,
  ): Promise<ReadonlyMap<string, Float32Array>> {
    assertObject(request, 'request', { where: WHERE, arrays: false })
    const { publicationId } = request
    assertNonEmptyString(publicationId, 'request.publicationId', { where: WHERE })
    const space = checkSpace(request.space, 'request.space', WHERE)
    const hashes = checkArray(request.hashes, 'request.hashes', WHERE)
    for (let i = 0; i < hashes.length; i++)
      assertNonEmptyString(hashes[i], `request.hashes[${i}]`, { where: WHERE })
    checkCallOptions(options, `before reading vectors of publication "${publicationId}"`, WHERE)
    return this.#run('vectors', publicationId, () => {
      const out = new Map<string, Float32Array>()
      const rows = this.#sql.someVectors.iterate(
        publicationId,
        space.identity,
        space.dimensions,
        JSON.stringify(hashes),
      )
      for (const [hash, blob, checksum] of rows) {
        const computed = Buffer.isBuffer(blob)
          ? vectorChecksum(publicationId, space.identity, space.dimensions, hash, blob)
          : ''
        checkRow(checksum, computed, publicationId, `the vector of "${hash}"`, 'vectors')
        out.set(hash, fromBlob(blob, space.dimensions, hash))
      }
      return out
    })
  }

  /**
   * Applies one batch in one `BEGIN IMMEDIATE` transaction: refuses it whole with a `ConflictError` when a
   * document's stored revision is not the expected one; otherwise replaces each document's row and
   * passages, adds the new vectors, and deletes the vectors no passage of the publication references any
   * more.
   * @example
   * ```ts
   * import Database from 'better-sqlite3'
   * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
   * const database = new Database(':memory:')
   * const store = createSqliteKnowledgeStore(database)
   * await store.write(
   *   { publicationId: 'docs', space: undefined, documents: [], vectors: [] },
   *   { signal: new AbortController().signal },
   * )
   * database.close()
   * ```
   */
  async write(batch: KnowledgeStoreBatch, options: KnowledgeStoreCallOptions): Promise<void> {
    const checked = checkBatch(batch, WHERE)
    const { publicationId, space } = checked
    checkCallOptions(options, `before writing publication "${publicationId}"`, WHERE)
    this.#run('write', publicationId, () =>
      this.database
        .transaction(() => {
          const sql = this.#sql
          for (const { expectedRevision, record } of checked.documents) {
            const stored = sql.revision.get(publicationId, record.id)?.revision ?? 0
            if (stored !== expectedRevision) {
              throw new ConflictError(
                `Document "${record.id}" of publication "${publicationId}" is at revision ${stored} in the database, but the writer expected ${expectedRevision}: another writer changed it. Nothing was written; publish again (the publication reloads from the store first).`,
                {
                  details: { publicationId, documentId: record.id, expectedRevision, storedRevision: stored },
                },
              )
            }
          }
          // The manifest's set checksums follow every row added or removed (see `load`).
          const stored = new Map(sql.manifest.all(publicationId).map((row) => [row.part, row]))
          const sets = new Map<string, SetChecksum>()
          const setOf = (part: string) => {
            let set = sets.get(part)
            if (!set) {
              const row = stored.get(part)
              set = new SetChecksum(row?.digest ?? '0', row?.rows ?? 0)
              sets.set(part, set)
            }
            return set
          }
          const removed = (part: string, checksum: string | null) => {
            if (checksum === null) throw damaged(publicationId, `a ${part} row without its checksum`, 'write')
            setOf(part).remove(checksum)
          }
          const released = new Set<string>()
          for (const { record, passages } of checked.documents) {
            for (const { hash } of sql.documentHashes.all(publicationId, record.id)) released.add(hash)
            for (const { checksum } of sql.deletePassages.all(publicationId, record.id))
              removed('passages', checksum)
            for (const p of passages) {
              const row = [
                p.id,
                record.id,
                p.revision,
                p.number,
                JSON.stringify(p.headingPath),
                p.text,
                p.start,
                p.end,
                p.startLine,
                p.endLine,
                p.hash,
              ] as const
              const checksum = passageChecksum(publicationId, row)
              sql.insertPassage.run(
                publicationId,
                record.id,
                p.number,
                p.id,
                p.revision,
                row[4],
                p.text,
                p.start,
                p.end,
                p.startLine,
                p.endLine,
                p.hash,
                checksum,
              )
              setOf('passages').add(checksum)
            }
            const document = {
              document_id: record.id,
              revision: record.revision,
              content_hash: record.contentHash,
              title: record.title ?? null,
              metadata: record.metadata === undefined ? null : JSON.stringify(record.metadata),
              passage_count: record.passageCount,
              published_at_ms: record.publishedAtMs,
              retracted_at_ms: record.retractedAtMs ?? null,
            }
            const before = sql.documentChecksum.get(publicationId, record.id)
            if (before !== undefined) removed('documents', before.checksum)
            const checksum = documentChecksum(publicationId, document)
            sql.upsertDocument.run(
              publicationId,
              document.document_id,
              document.revision,
              document.content_hash,
              document.title,
              document.metadata,
              document.passage_count,
              document.published_at_ms,
              document.retracted_at_ms,
              checksum,
            )
            setOf('documents').add(checksum)
          }
          if (space !== undefined) {
            const part = vectorPart(space.identity, space.dimensions)
            for (const { hash, vector } of checked.vectors) {
              const blob = toBlob(vector)
              const checksum = vectorChecksum(publicationId, space.identity, space.dimensions, hash, blob)
              const added = sql.insertVector.run(
                publicationId,
                space.identity,
                space.dimensions,
                hash,
                blob,
                checksum,
              )
              if (added.changes === 1) setOf(part).add(checksum)
            }
          }
          for (const hash of released) {
            for (const row of sql.sweepVector.all(publicationId, hash, publicationId, hash))
              removed(vectorPart(row.identity, row.dimensions), row.checksum)
          }
          for (const [part, set] of sets) sql.upsertManifest.run(publicationId, part, set.rows, set.digest)
        })
        .immediate(),
    )
  }

  #run<T>(operation: string, publicationId: string, body: () => T): T {
    try {
      return body()
    } catch (error) {
      if (AgentCoreError.isInstance(error)) throw error
      throw new KnowledgeStoreError(
        `${WHERE} failed to ${operation} publication "${publicationId}": ${error instanceof Error ? error.message : describeValue(error)}.${operation === 'write' ? ' Nothing was written.' : ''} Retry; if it persists, check the database file.`,
        { cause: error, details: { publicationId, operation } },
      )
    }
  }
}

/**
 * A {@link SqliteKnowledgeStore} on the App's better-sqlite3 Database: its tables are created when
 * missing, and the database is left configured as the App opened it.
 * @example
 * ```ts
 * import { mkdirSync } from 'node:fs'
 * import Database from 'better-sqlite3'
 * import { Knowledge } from '@agent-core/kits/knowledge'
 * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
 *
 * mkdirSync('.agent-core', { recursive: true })
 * const database = new Database('.agent-core/knowledge.db')
 * database.pragma('journal_mode = WAL')
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store: createSqliteKnowledgeStore(database) })
 * ```
 */
export function createSqliteKnowledgeStore(
  database: SqliteKnowledgeDatabase,
  options: SqliteKnowledgeStoreOptions = {},
): SqliteKnowledgeStore {
  return new SqliteKnowledgeStore(database, options)
}
