/**
 * Sessions and facts in SQLite: {@link SqliteSessionStore} over a better-sqlite3 database the App opens,
 * shared safely by processes using the same file (every write is one transaction that checks the
 * session's revision). Appending a run costs what the run added, not what the session holds.
 *
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { runSession } from '@agent-core/kits/memory'
 * import { createSqliteSessionStore } from '@agent-core/kits/memory/sqlite'
 *
 * const store = createSqliteSessionStore(new Database(':memory:'))
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * await runSession(agent, { session: { store, id: 'chat-1' }, prompt: 'Hi' })
 * ```
 *
 * @module
 */
export {
  createSqliteSessionStore,
  type SqliteSessionDatabase,
  SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from './sqlite-session-store.js'
