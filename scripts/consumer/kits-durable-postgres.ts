import assert from 'node:assert/strict'
import { AgentCoreError } from '@agent-core/core'
import { createPostgresDurableStore, postgresDurableTableSql } from '@agent-core/kits/durable/postgres'

// No server here: the store opens its pool lazily, so creating and closing it touches no network.
assert.match(postgresDurableTableSql(), /CREATE TABLE/i)
const store = createPostgresDurableStore({ connectionString: 'postgresql://agent:secret@127.0.0.1:9/none' })
await store.close()
assert.throws(
  () => createPostgresDurableStore({ tableName: 'bad name; drop' } as never),
  (error) => AgentCoreError.isInstance(error),
)
