import {
  AgentCoreError,
  assertNonEmptyString,
  assertObject,
  ConflictError,
  describeValue,
  InvalidStateError,
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
import { checkArray, checkBatch, checkCallOptions, checkSpace } from '../internal/store-checks.js'
import type { PostgresKnowledgeClient, PostgresKnowledgePool } from './connection.js'
import {
  checkPrefix,
  checkSchemaOptions,
  KnowledgeSchemaVersionError,
  POSTGRES_KNOWLEDGE_SCHEMA_VERSION,
  type PostgresKnowledgeSchemaOptions,
  type SchemaSettings,
  schemaStatements,
  tablesOf,
} from './schema.js'

const WHERE = 'PostgresKnowledgeStore'

/**
 * Options of {@link PostgresKnowledgeStore}.
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { PostgresKnowledgeStore, type PostgresKnowledgeStoreOptions } from '@agent-core/kits/knowledge/postgres'
 * const options: PostgresKnowledgeStoreOptions = { tablePrefix: 'kb' }
 * const store = new PostgresKnowledgeStore(new pg.Pool(), options)
 * ```
 */
export interface PostgresKnowledgeStoreOptions {
  /** Prefix of the tables (`<prefix>_documents`, `_passages`, `_embeddings`, `_schema`). Default `agent_core_knowledge`. */
  readonly tablePrefix?: string | undefined
}

/**
 * The schema a store found: its version, how vectors are stored and the text search configuration.
 * @example
 * ```ts
 * import type { PostgresKnowledgeSchema } from '@agent-core/kits/knowledge/postgres'
 * const schema: PostgresKnowledgeSchema = { version: 1, vectors: 'pgvector', textSearchConfig: 'english' }
 * ```
 */
export interface PostgresKnowledgeSchema {
  readonly version: number
  readonly vectors: 'pgvector' | 'array'
  readonly textSearchConfig: string
}

interface DocumentRow {
  document_id: string
  revision: number
  content_hash: string
  title: string | null
  metadata: string | null
  passage_count: number
  published_at_ms: number
  retracted_at_ms: number | null
}

interface PassageRow {
  passage_id: string
  document_id: string
  revision: number
  number: number
  heading_path: string
  body: string
  start_offset: number
  end_offset: number
  start_line: number
  end_line: number
  hash: string
}

function corrupt(what: string, operation: string, cause?: unknown): KnowledgeStoreError {
  return new KnowledgeStoreError(
    `${WHERE}: ${what}; the database is corrupt. Delete the publication's rows and publish again.`,
    { ...(cause !== undefined ? { cause } : {}), details: { operation } },
  )
}

function parseJson(text: string, what: string, operation: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw corrupt(`${what} holds text that is not JSON`, operation, error)
  }
}

/** A stored vector as a Float32Array of `dimensions` numbers. */
export function vectorOf(value: unknown, dimensions: number, hash: string, operation: string): Float32Array {
  if (!Array.isArray(value) || value.length !== dimensions || !value.every((x) => typeof x === 'number')) {
    throw corrupt(`the vector of "${hash}" is not ${dimensions} numbers`, operation)
  }
  return Float32Array.from(value as number[])
}

/** A Float32Array as a `real[]` literal that reads back bit for bit. */
export function realArrayLiteral(vector: Float32Array): string {
  let out = '{'
  for (let i = 0; i < vector.length; i++) out += (i > 0 ? ',' : '') + String(vector[i])
  return `${out}}`
}

function recordOf(row: DocumentRow): KnowledgeDocumentRecord {
  return {
    id: row.document_id,
    revision: row.revision,
    contentHash: row.content_hash,
    ...(row.title !== null ? { title: row.title } : {}),
    ...(row.metadata !== null
      ? {
          metadata: parseJson(
            row.metadata,
            `the metadata of "${row.document_id}"`,
            'load',
          ) as KnowledgeMetadata,
        }
      : {}),
    passageCount: row.passage_count,
    publishedAtMs: row.published_at_ms,
    ...(row.retracted_at_ms !== null ? { retractedAtMs: row.retracted_at_ms } : {}),
  }
}

function passageOf(row: PassageRow): KnowledgePassageRecord {
  return {
    id: row.passage_id,
    documentId: row.document_id,
    revision: row.revision,
    number: row.number,
    headingPath: parseJson(row.heading_path, `the heading path of "${row.passage_id}"`, 'load') as string[],
    text: row.body,
    start: row.start_offset,
    end: row.end_offset,
    startLine: row.start_line,
    endLine: row.end_line,
    hash: row.hash,
  }
}

/** The `tsvector` of a passage: title (weight A), heading path (B) and text (D). */
export function searchVectorSql(config: string, title: string, headings: string, body: string): string {
  const c = `'${config}'::regconfig`
  return `setweight(to_tsvector(${c}, coalesce(${title}, '')), 'A') || setweight(to_tsvector(${c}, ${headings}), 'B') || setweight(to_tsvector(${c}, ${body}), 'D')`
}

/**
 * A {@link KnowledgeStore} in PostgreSQL over the App's pool (`pg`), for many writers and readers on
 * many machines sharing one knowledge base; its tables also serve {@link PostgresKnowledgeIndex}, the
 * hybrid search that runs in the database.
 *
 * - **Schema**: created only by an explicit {@link PostgresKnowledgeStore.createSchema} (or the SQL of
 *   `postgresKnowledgeSchemaSql` in the App's migrations) and versioned: every call first checks the
 *   version row once, and a missing or different schema is a {@link KnowledgeSchemaVersionError}.
 * - **Writes**: each `write` is one transaction that first takes a transaction-level advisory lock of
 *   its publication (so writers of one publication take turns; readers never wait), checks the expected
 *   revisions (`ConflictError`, nothing written), replaces the documents' rows and passages (each with its
 *   `tsvector`), adds the new vectors (the first one written for a hash is kept,
 *   `ON CONFLICT DO NOTHING`) and deletes the vectors no passage references any more. A search in another transaction
 *   sees all of a batch or none of it.
 * - **Loads**: one `REPEATABLE READ` read-only transaction, a consistent snapshot while others write.
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { Knowledge } from '@agent-core/kits/knowledge'
 * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = new PostgresKnowledgeStore(pool)
 * await store.createSchema({ vectors: 'pgvector' }) // once, or from a migration
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store })
 * await docs.publish({ materials: [{ id: 'a.md', text: 'Hello.' }] })
 * ```
 */
export class PostgresKnowledgeStore implements KnowledgeStore {
  /** The pool the App passed in (the store never ends it). */
  readonly pool: PostgresKnowledgePool
  /** The table prefix. */
  readonly tablePrefix: string
  readonly #tables: ReturnType<typeof tablesOf>
  #schema: Promise<PostgresKnowledgeSchema> | undefined

  constructor(pool: PostgresKnowledgePool, options: PostgresKnowledgeStoreOptions = {}) {
    if (
      typeof pool !== 'object' ||
      pool === null ||
      typeof (pool as PostgresKnowledgePool).connect !== 'function'
    ) {
      refuseField(
        'input',
        'pool',
        `must be a pg Pool (new pg.Pool(config)) or singleConnectionPool(connection), but got ${describeValue(pool)}`,
        pool,
        { prefix: `${WHERE}: ` },
      )
    }
    assertObject(options, 'options', { where: WHERE, arrays: false })
    this.pool = pool
    this.tablePrefix = checkPrefix(options.tablePrefix ?? 'agent_core_knowledge', WHERE)
    this.#tables = tablesOf(this.tablePrefix)
  }

  /**
   * Creates the tables (and, with `vectors: 'pgvector'`, the `vector` extension) when they are missing,
   * in one transaction under an advisory lock, so concurrent first calls do not race. Tables that exist
   * at this version are left as they are (their settings win over `options`, and are returned); tables
   * of another version are a {@link KnowledgeSchemaVersionError}.
   *
   * A server without pgvector (plain PostgreSQL, a managed database without the extension) takes the
   * default `vectors: 'array'`: full-text search as with pgvector, vectors (if any) searched by exact
   * scan. Asking it for `vectors: 'pgvector'` is an `InvalidStateError` that says so, and creates nothing.
   * @throws InvalidStateError with `vectors: 'pgvector'` on a server that has no `vector` extension
   * @example
   * ```ts no-run
   * import pg from 'pg'
   * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * const store = new PostgresKnowledgeStore(new pg.Pool())
   * const schema = await store.createSchema({ vectors: 'array', textSearchConfig: 'simple' })
   * console.log(schema.version) // 1
   * ```
   */
  async createSchema(options: PostgresKnowledgeSchemaOptions = {}): Promise<PostgresKnowledgeSchema> {
    const settings = checkSchemaOptions(options, `${WHERE}.createSchema`)
    const schema = await this.#transaction('open', undefined, 'BEGIN', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `agent-core-knowledge:${this.tablePrefix}`,
      ])
      const found = await this.#readSchema(client)
      if (found !== undefined) return found
      if (settings.vectors === 'pgvector') {
        const { rows } = await client.query(
          `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')
             OR EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`,
        )
        if (rows[0]?.available !== true) {
          throw new InvalidStateError(
            `${WHERE}.createSchema: options.vectors is "pgvector", but this PostgreSQL server has no "vector" extension (pg_available_extensions does not list it). Install pgvector on the server (https://github.com/pgvector/pgvector), or create a text-only schema with createSchema() (vectors: "array"): full-text search works the same, and vectors, if any, are searched by exact scan. Nothing was created.`,
            { details: { field: 'options.vectors', received: describeValue(settings.vectors) } },
          )
        }
        await client.query('CREATE EXTENSION IF NOT EXISTS vector')
      }
      for (const statement of schemaStatements(this.tablePrefix, settings)) await client.query(statement)
      return { version: POSTGRES_KNOWLEDGE_SCHEMA_VERSION, ...settings } satisfies PostgresKnowledgeSchema
    })
    this.#schema = Promise.resolve(schema)
    return schema
  }

  /**
   * The schema of the tables, checked against this release (read once, then remembered).
   * @throws KnowledgeSchemaVersionError when the tables are missing or of another version
   * @example
   * ```ts no-run
   * import pg from 'pg'
   * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * const store = new PostgresKnowledgeStore(new pg.Pool())
   * console.log((await store.checkSchema()).vectors) // "pgvector" or "array"
   * ```
   */
  checkSchema(): Promise<PostgresKnowledgeSchema> {
    const pending = (this.#schema ??= this.#transaction('open', undefined, 'BEGIN', async (client) => {
      const found = await this.#readSchema(client)
      if (found === undefined) {
        throw new KnowledgeSchemaVersionError(
          `${WHERE}: the tables "${this.tablePrefix}_*" do not exist. Call createSchema() once (or run postgresKnowledgeSchemaSql() in a migration) before using the store.`,
          {
            details: {
              tablePrefix: this.tablePrefix,
              expectedVersion: POSTGRES_KNOWLEDGE_SCHEMA_VERSION,
              foundVersion: 0,
            },
          },
        )
      }
      return found
    }))
    pending.catch(() => {
      if (this.#schema === pending) this.#schema = undefined
    })
    return pending
  }

  async #readSchema(client: PostgresKnowledgeClient): Promise<PostgresKnowledgeSchema | undefined> {
    const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [
      `${this.tablePrefix}_schema`,
    ])
    if (exists.rows[0]?.present !== true) return undefined
    const { rows } = await client.query(
      `SELECT version, vectors, text_search_config FROM ${this.#tables.schema}`,
    )
    const row = rows[0] as { version: number; vectors: string; text_search_config: string } | undefined
    const version = rows.length === 1 && row !== undefined ? Number(row.version) : -1
    if (version !== POSTGRES_KNOWLEDGE_SCHEMA_VERSION || row === undefined) {
      throw new KnowledgeSchemaVersionError(
        `${WHERE}: the tables "${this.tablePrefix}_*" are at schema version ${version}, but this release reads and writes version ${POSTGRES_KNOWLEDGE_SCHEMA_VERSION}. Upgrade @agent-core/kits (a newer schema) or migrate the tables; or use another tablePrefix.`,
        {
          details: {
            tablePrefix: this.tablePrefix,
            expectedVersion: POSTGRES_KNOWLEDGE_SCHEMA_VERSION,
            foundVersion: version,
          },
        },
      )
    }
    const settings: SchemaSettings = checkSchemaOptions(
      { vectors: row.vectors, textSearchConfig: row.text_search_config },
      WHERE,
    )
    return { version, ...settings }
  }

  /**
   * Everything one publication holds, read in one `REPEATABLE READ` transaction, with the vectors of
   * `space`.
   * @example
   * ```ts no-run
   * import pg from 'pg'
   * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * const store = new PostgresKnowledgeStore(new pg.Pool())
   * const contents = await store.load({ publicationId: 'docs', space: undefined }, { signal: AbortSignal.timeout(5_000) })
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
    await this.checkSchema()
    const t = this.#tables
    return this.#transaction(
      'load',
      publicationId,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      async (client) => {
        const documents = (
          await client.query(
            `SELECT document_id, revision, content_hash, title, metadata, passage_count, published_at_ms, retracted_at_ms
             FROM ${t.documents} WHERE publication_id = $1 ORDER BY document_id COLLATE "C"`,
            [publicationId],
          )
        ).rows.map((row) => recordOf(row as DocumentRow))
        const passages = (
          await client.query(
            `SELECT passage_id, document_id, revision, number, heading_path, body, start_offset, end_offset, start_line, end_line, hash
             FROM ${t.passages} WHERE publication_id = $1 ORDER BY document_id COLLATE "C", number`,
            [publicationId],
          )
        ).rows.map((row) => passageOf(row as PassageRow))
        const vectors = new Map<string, Float32Array>()
        if (space !== undefined) {
          const { rows } = await client.query(
            `SELECT hash, vector::real[] AS v FROM ${t.embeddings}
             WHERE publication_id = $1 AND identity = $2 AND dimensions = $3`,
            [publicationId, space.identity, space.dimensions],
          )
          for (const row of rows) vectors.set(row.hash, vectorOf(row.v, space.dimensions, row.hash, 'load'))
        }
        return { documents, passages, vectors }
      },
    )
  }

  /**
   * The stored vectors of `space` for these hashes (missing ones are left out).
   * @example
   * ```ts no-run
   * import pg from 'pg'
   * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * const store = new PostgresKnowledgeStore(new pg.Pool())
   * const found = await store.vectors(
   *   { publicationId: 'docs', space: { identity: 'toy', dimensions: 2 }, hashes: ['x'] },
   *   { signal: AbortSignal.timeout(5_000) },
   * )
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
    await this.checkSchema()
    return this.#transaction('vectors', publicationId, 'BEGIN READ ONLY', async (client) => {
      const out = new Map<string, Float32Array>()
      const { rows } = await client.query(
        `SELECT hash, vector::real[] AS v FROM ${this.#tables.embeddings}
         WHERE publication_id = $1 AND identity = $2 AND dimensions = $3 AND hash = ANY($4::text[])`,
        [publicationId, space.identity, space.dimensions, hashes],
      )
      for (const row of rows) out.set(row.hash, vectorOf(row.v, space.dimensions, row.hash, 'vectors'))
      return out
    })
  }

  /**
   * Applies one batch in one transaction (see the class): refuses it whole with a `ConflictError` when a
   * document's stored revision is not the expected one.
   * @example
   * ```ts no-run
   * import pg from 'pg'
   * import { PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * const store = new PostgresKnowledgeStore(new pg.Pool())
   * await store.write(
   *   { publicationId: 'docs', space: undefined, documents: [], vectors: [] },
   *   { signal: AbortSignal.timeout(5_000) },
   * )
   * ```
   */
  async write(batch: KnowledgeStoreBatch, options: KnowledgeStoreCallOptions): Promise<void> {
    const checked = checkBatch(batch, WHERE)
    const { publicationId, space } = checked
    checkCallOptions(options, `before writing publication "${publicationId}"`, WHERE)
    const schema = await this.checkSchema()
    checkCallOptions(options, `before writing publication "${publicationId}"`, WHERE)
    const t = this.#tables
    await this.#transaction('write', publicationId, 'BEGIN', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `agent-core-knowledge:${this.tablePrefix}:${publicationId}`,
      ])
      const ids = checked.documents.map((change) => change.record.id)
      if (ids.length > 0) {
        const { rows } = await client.query(
          `SELECT document_id, revision FROM ${t.documents} WHERE publication_id = $1 AND document_id = ANY($2::text[])`,
          [publicationId, ids],
        )
        const stored = new Map<string, number>(rows.map((row) => [row.document_id, Number(row.revision)]))
        for (const { expectedRevision, record } of checked.documents) {
          const revision = stored.get(record.id) ?? 0
          if (revision !== expectedRevision) {
            throw new ConflictError(
              `Document "${record.id}" of publication "${publicationId}" is at revision ${revision} in the database, but the writer expected ${expectedRevision}: another writer changed it. Nothing was written; publish again (the publication reloads from the store first).`,
              {
                details: { publicationId, documentId: record.id, expectedRevision, storedRevision: revision },
              },
            )
          }
        }
        const released = (
          await client.query(
            `DELETE FROM ${t.passages} WHERE publication_id = $1 AND document_id = ANY($2::text[]) RETURNING hash`,
            [publicationId, ids],
          )
        ).rows.map((row) => row.hash as string)
        await this.#insertPassages(client, publicationId, schema.textSearchConfig, checked)
        await client.query(
          `INSERT INTO ${t.documents} (publication_id, document_id, revision, content_hash, title, metadata, metadata_jsonb, passage_count, published_at_ms, retracted_at_ms)
           SELECT $1, d.id, d.revision, d.content_hash, d.title, d.metadata, d.metadata::jsonb, d.passage_count, d.published, d.retracted
           FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::float8[], $9::float8[])
             AS d(id, revision, content_hash, title, metadata, passage_count, published, retracted)
           ON CONFLICT (publication_id, document_id) DO UPDATE SET
             revision = excluded.revision, content_hash = excluded.content_hash, title = excluded.title,
             metadata = excluded.metadata, metadata_jsonb = excluded.metadata_jsonb,
             passage_count = excluded.passage_count, published_at_ms = excluded.published_at_ms,
             retracted_at_ms = excluded.retracted_at_ms`,
          [
            publicationId,
            ids,
            checked.documents.map((c) => c.record.revision),
            checked.documents.map((c) => c.record.contentHash),
            checked.documents.map((c) => c.record.title ?? null),
            checked.documents.map((c) =>
              c.record.metadata === undefined ? null : JSON.stringify(c.record.metadata),
            ),
            checked.documents.map((c) => c.record.passageCount),
            checked.documents.map((c) => c.record.publishedAtMs),
            checked.documents.map((c) => c.record.retractedAtMs ?? null),
          ],
        )
        if (space !== undefined) await this.#insertVectors(client, publicationId, space, checked)
        if (released.length > 0) {
          await client.query(
            `DELETE FROM ${t.embeddings} e WHERE e.publication_id = $1 AND e.hash = ANY($2::text[])
             AND NOT EXISTS (SELECT 1 FROM ${t.passages} p WHERE p.publication_id = $1 AND p.hash = e.hash)`,
            [publicationId, [...new Set(released)]],
          )
        }
      } else if (space !== undefined) await this.#insertVectors(client, publicationId, space, checked)
    })
  }

  async #insertPassages(
    client: PostgresKnowledgeClient,
    publicationId: string,
    config: string,
    batch: KnowledgeStoreBatch,
  ): Promise<void> {
    const columns: unknown[][] = Array.from({ length: 13 }, () => [])
    for (const { record, passages } of batch.documents) {
      for (const p of passages) {
        const values = [
          p.id,
          record.id,
          p.revision,
          p.number,
          record.title ?? null,
          JSON.stringify(p.headingPath),
          p.headingPath.join(' > '),
          p.text,
          p.start,
          p.end,
          p.startLine,
          p.endLine,
          p.hash,
        ]
        for (let i = 0; i < values.length; i++) columns[i]!.push(values[i])
      }
    }
    if (columns[0]!.length === 0) return
    await client.query(
      `INSERT INTO ${this.#tables.passages} (publication_id, passage_id, document_id, revision, number, title, heading_path, body, start_offset, end_offset, start_line, end_line, hash, search)
       SELECT $1, p.id, p.document_id, p.revision, p.number, p.title, p.heading_path, p.body, p.start_offset, p.end_offset, p.start_line, p.end_line, p.hash,
         ${searchVectorSql(config, 'p.title', 'p.headings', 'p.body')}
       FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::int[], $12::int[], $13::int[], $14::text[])
         AS p(id, document_id, revision, number, title, heading_path, headings, body, start_offset, end_offset, start_line, end_line, hash)`,
      [publicationId, ...columns],
    )
  }

  async #insertVectors(
    client: PostgresKnowledgeClient,
    publicationId: string,
    space: KnowledgeEmbeddingSpace,
    batch: KnowledgeStoreBatch,
  ): Promise<void> {
    if (batch.vectors.length === 0) return
    await client.query(
      `INSERT INTO ${this.#tables.embeddings} (publication_id, identity, dimensions, hash, vector)
       SELECT $1, $2, $3, v.hash, v.literal::real[] FROM unnest($4::text[], $5::text[]) AS v(hash, literal)
       ON CONFLICT DO NOTHING`,
      [
        publicationId,
        space.identity,
        space.dimensions,
        batch.vectors.map((v) => v.hash),
        batch.vectors.map((v) => realArrayLiteral(v.vector)),
      ],
    )
  }

  /** Runs `body` in one transaction on a pooled connection; failures become `KnowledgeStoreError`. */
  async #transaction<T>(
    operation: string,
    publicationId: string | undefined,
    begin: string,
    body: (client: PostgresKnowledgeClient) => Promise<T>,
  ): Promise<T> {
    return runTransaction(this.pool, begin, body, (error) => {
      if (AgentCoreError.isInstance(error)) return error
      const target =
        publicationId === undefined ? `its tables "${this.tablePrefix}_*"` : `publication "${publicationId}"`
      return new KnowledgeStoreError(
        `${WHERE} failed to ${operation} ${target}: ${error instanceof Error ? error.message : describeValue(error)}.${operation === 'write' ? ' Nothing was written.' : ''} Retry; if it persists, check the database.`,
        {
          cause: error,
          details: { ...(publicationId !== undefined ? { publicationId } : {}), operation },
        },
      )
    })
  }
}

/** Runs `body` between `begin` and COMMIT on a connection of `pool` (ROLLBACK on failure). */
export async function runTransaction<T>(
  pool: PostgresKnowledgePool,
  begin: string,
  body: (client: PostgresKnowledgeClient) => Promise<T>,
  convert: (error: unknown) => unknown,
): Promise<T> {
  let client: PostgresKnowledgeClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw convert(error)
  }
  let broken = false
  try {
    await client.query(begin)
    const result = await body(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    try {
      await client.query('ROLLBACK')
    } catch {
      broken = true
    }
    throw convert(error)
  } finally {
    client.release(broken)
  }
}

/**
 * A {@link PostgresKnowledgeStore} over the App's pool.
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { createPostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
 * const store = createPostgresKnowledgeStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }), { tablePrefix: 'kb' })
 * ```
 */
export function createPostgresKnowledgeStore(
  pool: PostgresKnowledgePool,
  options: PostgresKnowledgeStoreOptions = {},
): PostgresKnowledgeStore {
  return new PostgresKnowledgeStore(pool, options)
}
