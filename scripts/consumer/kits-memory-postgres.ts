import assert from 'node:assert/strict'
import { AgentCoreError } from '@agent-core/core'
import { createPostgresSessionStore } from '@agent-core/kits/memory/postgres'

// No server here: the store takes the App's pool; one whose connect fails gives a typed store error.
const store = createPostgresSessionStore({
  connect: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9')
  },
})
await assert.rejects(
  store.read('chat-1'),
  (error) => AgentCoreError.isInstance(error) && error.code === 'session-store-failed',
)
assert.throws(
  () => createPostgresSessionStore({ connect: async () => ({}) as never }, { tablePrefix: 'bad name; drop' }),
  (error) => AgentCoreError.isInstance(error),
)
