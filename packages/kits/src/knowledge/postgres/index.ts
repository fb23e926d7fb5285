/**
 * Knowledge in PostgreSQL, for a corpus or a team that has outgrown one process: {@link PostgresKnowledgeStore}
 * (the `KnowledgeStore` port over the App's `pg` pool: one transaction per batch, many writers and
 * readers on many machines, an explicit versioned schema) and {@link PostgresKnowledgeIndex} (hybrid
 * search inside the database: full-text `tsvector`/`ts_rank`, pgvector HNSW or an exact scan, and
 * reciprocal rank fusion in one SQL statement, with `HybridSearch`'s rules and hit shape, and a declared
 * `KnowledgeFilter` evaluated in SQL). `pg` is an optional peer; the store takes any pool with
 * `connect()`, and {@link singleConnectionPool} adapts one connection (PGlite with its `vector` extension).
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { Knowledge } from '@agent-core/kits/knowledge'
 * import { PostgresKnowledgeIndex, PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = new PostgresKnowledgeStore(pool)
 * await store.createSchema({ vectors: 'pgvector' })
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store })
 * await docs.publish({ materials: [{ id: 'leave.md', text: '# Leave\n\nAsk your manager two weeks ahead.\n' }] })
 * const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs' })
 * const [hit] = await index.search({ query: 'manager', limit: 1 })
 * ```
 *
 * @module
 */
export {
  type PostgresKnowledgeClient,
  type PostgresKnowledgeConnection,
  type PostgresKnowledgePool,
  singleConnectionPool,
} from './connection.js'
export {
  PostgresKnowledgeIndex,
  type PostgresKnowledgeIndexOptions,
  type PostgresKnowledgeSearchRequest,
  type PostgresVectorIndexOptions,
} from './postgres-knowledge-index.js'
export {
  createPostgresKnowledgeStore,
  type PostgresKnowledgeSchema,
  PostgresKnowledgeStore,
  type PostgresKnowledgeStoreOptions,
} from './postgres-knowledge-store.js'
export {
  KnowledgeSchemaVersionError,
  type KnowledgeSchemaVersionErrorDetails,
  POSTGRES_KNOWLEDGE_SCHEMA_VERSION,
  type PostgresKnowledgeSchemaOptions,
  postgresKnowledgeSchemaSql,
} from './schema.js'
