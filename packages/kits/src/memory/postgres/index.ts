/**
 * Sessions and facts in PostgreSQL: {@link PostgresSessionStore} over the App's `pg` pool, shared by
 * processes on many machines (each write locks the session's row and checks its revision). The store
 * needs only `pool.connect()`, so it loads no driver itself.
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { runSession } from '@agent-core/kits/memory'
 * import { createPostgresSessionStore } from '@agent-core/kits/memory/postgres'
 *
 * const store = createPostgresSessionStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * await runSession(agent, { session: { store, id: 'chat-1' }, prompt: 'Hi' })
 * ```
 *
 * @module
 */
export {
  createPostgresSessionStore,
  type PostgresSessionClient,
  type PostgresSessionPool,
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js'
