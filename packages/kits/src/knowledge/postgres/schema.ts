import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  describeValue,
  type ErrorDetails,
  FieldReader,
  refuseField,
} from '@agent-core/core'

/**
 * The version of the tables this release reads and writes.
 * @example
 * ```ts
 * import { POSTGRES_KNOWLEDGE_SCHEMA_VERSION } from '@agent-core/kits/knowledge/postgres'
 * console.log(`migrating to knowledge schema v${POSTGRES_KNOWLEDGE_SCHEMA_VERSION}`)
 * ```
 */
export const POSTGRES_KNOWLEDGE_SCHEMA_VERSION = 1

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/
const CONFIG_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/**
 * Details of {@link KnowledgeSchemaVersionError}.
 * @example
 * ```ts
 * import type { KnowledgeSchemaVersionErrorDetails } from '@agent-core/kits/knowledge/postgres'
 * const details: KnowledgeSchemaVersionErrorDetails = { tablePrefix: 'agent_core_knowledge', expectedVersion: 1, foundVersion: 0 }
 * ```
 */
export interface KnowledgeSchemaVersionErrorDetails extends ErrorDetails {
  /** The prefix of the tables that were checked. */
  readonly tablePrefix: string
  /** The schema version this release reads and writes. */
  readonly expectedVersion: number
  /** The version found in the database: 0 when there are no tables yet. */
  readonly foundVersion: number
}

/**
 * The database's knowledge tables are missing (`foundVersion` 0: call `createSchema()` once, or run
 * {@link postgresKnowledgeSchemaSql} as a migration) or were made by another version of the kit (upgrade
 * the kit, or migrate the tables; nothing is read or written until they agree).
 * @example
 * ```ts no-run
 * import { KnowledgeSchemaVersionError, PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
 * declare const store: PostgresKnowledgeStore
 * try {
 *   await store.checkSchema()
 * } catch (error) {
 *   if (KnowledgeSchemaVersionError.isInstance(error) && error.details.foundVersion === 0) await store.createSchema()
 *   else throw error
 * }
 * ```
 */
export class KnowledgeSchemaVersionError extends AgentCoreError<KnowledgeSchemaVersionErrorDetails> {
  static override readonly code = 'knowledge-schema-version'
  declare readonly code: 'knowledge-schema-version'
  constructor(message: string, options: AgentCoreErrorOptions<KnowledgeSchemaVersionErrorDetails>) {
    super('knowledge-schema-version', message, options)
  }
}

/**
 * Options of {@link postgresKnowledgeSchemaSql} and `createSchema`.
 * @example
 * ```ts
 * import type { PostgresKnowledgeSchemaOptions } from '@agent-core/kits/knowledge/postgres'
 * const schema: PostgresKnowledgeSchemaOptions = { vectors: 'pgvector', textSearchConfig: 'english' }
 * ```
 */
export interface PostgresKnowledgeSchemaOptions {
  /**
   * How vectors are stored: `"pgvector"` (a `vector` column; needs the extension, which
   * `createSchema` creates when missing, and enables HNSW indexes) or `"array"` (a `real[]` column: any
   * PostgreSQL, exact vector search only). Default `"array"`.
   */
  readonly vectors?: 'pgvector' | 'array' | undefined
  /**
   * The text search configuration every passage's `tsvector` and every query is analysed with (a
   * `regconfig` name: `english`, `simple`, `german`, ...). Default `english`. Fixed when the tables are
   * created; stored in the schema row.
   */
  readonly textSearchConfig?: string | undefined
}

/** The checked options of a schema. */
export interface SchemaSettings {
  readonly vectors: 'pgvector' | 'array'
  readonly textSearchConfig: string
}

/** Checks a table prefix (`where` names the caller in messages). */
export function checkPrefix(prefix: unknown, where: string): string {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    refuseField(
      'input',
      'options.tablePrefix',
      `must be a SQL identifier (a letter or underscore, then up to 40 letters, digits or underscores), but got ${describeValue(prefix)}`,
      prefix,
      { prefix: `${where}: ` },
    )
  }
  return prefix
}

/** Checks schema options (read with core's FieldReader: own data fields, each refused by its full name). */
export function checkSchemaOptions(options: unknown, where: string): SchemaSettings {
  const fields = new FieldReader(options, 'options', "an object such as { vectors: 'pgvector' }", 'input', {
    prefix: `${where}: `,
  })
  const vectors = fields.oneOf('vectors', ['pgvector', 'array'] as const) ?? 'array'
  const config = fields.get('textSearchConfig') ?? 'english'
  const textSearchConfig =
    typeof config === 'string' && CONFIG_PATTERN.test(config)
      ? config
      : fields.mustBe('textSearchConfig', 'the name of a text search configuration such as "english"', config)
  return { vectors, textSearchConfig }
}

/** The tables of one prefix. */
export function tablesOf(prefix: string) {
  return {
    schema: `"${prefix}_schema"`,
    documents: `"${prefix}_documents"`,
    passages: `"${prefix}_passages"`,
    embeddings: `"${prefix}_embeddings"`,
  }
}

/** The DDL of the tables (no extension): one statement per entry. */
export function schemaStatements(prefix: string, settings: SchemaSettings): string[] {
  const t = tablesOf(prefix)
  const vectorType = settings.vectors === 'pgvector' ? 'vector' : 'real[]'
  return [
    `CREATE TABLE ${t.schema} (
  version integer NOT NULL,
  vectors text NOT NULL,
  text_search_config text NOT NULL
)`,
    `INSERT INTO ${t.schema} (version, vectors, text_search_config) VALUES (${POSTGRES_KNOWLEDGE_SCHEMA_VERSION}, '${settings.vectors}', '${settings.textSearchConfig}')`,
    `CREATE TABLE ${t.documents} (
  publication_id text NOT NULL,
  document_id text NOT NULL,
  revision integer NOT NULL,
  content_hash text NOT NULL,
  title text,
  metadata text,
  metadata_jsonb jsonb,
  passage_count integer NOT NULL,
  published_at_ms double precision NOT NULL,
  retracted_at_ms double precision,
  PRIMARY KEY (publication_id, document_id)
)`,
    `CREATE TABLE ${t.passages} (
  publication_id text NOT NULL,
  passage_id text NOT NULL,
  document_id text NOT NULL,
  revision integer NOT NULL,
  number integer NOT NULL,
  title text,
  heading_path text NOT NULL,
  body text NOT NULL,
  start_offset integer NOT NULL,
  end_offset integer NOT NULL,
  start_line integer NOT NULL,
  end_line integer NOT NULL,
  hash text NOT NULL,
  search tsvector NOT NULL,
  PRIMARY KEY (publication_id, passage_id)
)`,
    `CREATE INDEX "${prefix}_passages_document" ON ${t.passages} (publication_id, document_id, number)`,
    `CREATE INDEX "${prefix}_passages_hash" ON ${t.passages} (publication_id, hash)`,
    `CREATE INDEX "${prefix}_passages_search" ON ${t.passages} USING gin (search)`,
    `CREATE TABLE ${t.embeddings} (
  publication_id text NOT NULL,
  identity text NOT NULL,
  dimensions integer NOT NULL,
  hash text NOT NULL,
  vector ${vectorType} NOT NULL,
  PRIMARY KEY (publication_id, identity, dimensions, hash)
)`,
  ]
}

/**
 * The SQL that creates the knowledge tables (schema version {@link POSTGRES_KNOWLEDGE_SCHEMA_VERSION}),
 * for Apps that run their own migrations instead of `createSchema()`. With `vectors: 'pgvector'` it
 * starts with `CREATE EXTENSION IF NOT EXISTS vector`.
 *
 * The tables (`<prefix>_*`, default prefix `agent_core_knowledge`): `_schema` (one row: version, vector
 * storage, text search configuration), `_documents` (one row per document and publication, retracted
 * ones included), `_passages` (the passages of published revisions, each with its `tsvector` and a GIN
 * index), `_embeddings` (one vector per publication, embedding space and passage hash).
 * @example
 * ```ts
 * import { postgresKnowledgeSchemaSql } from '@agent-core/kits/knowledge/postgres'
 * const migration = postgresKnowledgeSchemaSql({ tablePrefix: 'kb', vectors: 'pgvector' })
 * console.log(migration.startsWith('CREATE EXTENSION IF NOT EXISTS vector')) // true
 * ```
 */
export function postgresKnowledgeSchemaSql(
  options: PostgresKnowledgeSchemaOptions & { readonly tablePrefix?: string | undefined } = {},
): string {
  const settings = checkSchemaOptions(options, 'postgresKnowledgeSchemaSql')
  const prefix = checkPrefix(options.tablePrefix ?? 'agent_core_knowledge', 'postgresKnowledgeSchemaSql')
  const statements = schemaStatements(prefix, settings)
  if (settings.vectors === 'pgvector') statements.unshift('CREATE EXTENSION IF NOT EXISTS vector')
  return `${statements.join(';\n')};\n`
}
