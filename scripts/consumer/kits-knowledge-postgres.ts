import assert from 'node:assert/strict'
import { AgentCoreError } from '@agent-core/core'
import {
  KnowledgeSchemaVersionError,
  PostgresKnowledgeStore,
  postgresKnowledgeSchemaSql,
} from '@agent-core/kits/knowledge/postgres'

// No server here: the migration SQL, a typed error for a pool whose connect fails, and bad input.
assert.match(postgresKnowledgeSchemaSql({ vectors: 'pgvector' }), /^CREATE EXTENSION IF NOT EXISTS vector/)
const store = new PostgresKnowledgeStore({
  connect: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9')
  },
})
await assert.rejects(
  store.load({ publicationId: 'docs', space: undefined }, { signal: new AbortController().signal }),
  (error) => AgentCoreError.isInstance(error) && error.code === 'knowledge-store-failed',
)
assert.equal(KnowledgeSchemaVersionError.code, 'knowledge-schema-version')
assert.throws(
  () => new PostgresKnowledgeStore({ connect: async () => ({}) as never }, { tablePrefix: 'bad name; drop' }),
  (error) => AgentCoreError.isInstance(error),
)
