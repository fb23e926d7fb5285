import { AgentCoreError, type ChatMessage, describeValue, refuseField } from '@agent-core/core'
import {
  type Fact,
  type FactStore,
  type SessionAppend,
  type SessionMessage,
  type SessionPop,
  type SessionReadOptions,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
  SessionStoreError,
  type SessionWrite,
  type SessionWriteOptions,
} from '@agent-core/kits/memory'
import type Database from 'better-sqlite3'
import {
  checkAfterSeq,
  checkAppend,
  checkFactValue,
  checkId,
  checkWriteOptions,
  conflict,
  readTableOptions,
} from '../internal/checks.js'

/**
 * A better-sqlite3 database handle, opened by the App (`new Database(file)`).
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteSessionStore, type SqliteSessionDatabase } from '@agent-core/kits/memory/sqlite'
 * const database: SqliteSessionDatabase = new Database(':memory:')
 * const store = createSqliteSessionStore(database)
 * ```
 */
export type SqliteSessionDatabase = Database.Database

/**
 * Options of {@link createSqliteSessionStore}.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteSessionStore } from '@agent-core/kits/memory/sqlite'
 * const store = createSqliteSessionStore(new Database(':memory:'), { tablePrefix: 'chat' })
 * ```
 */
export interface SqliteSessionStoreOptions {
  /** Prefix of the tables (`<prefix>_sessions`, `<prefix>_messages`, `<prefix>_facts`). Default `agent_core_memory`. */
  readonly tablePrefix?: string | undefined
  /** The clock of facts' `updatedAtMs`. Default `Date.now`. */
  readonly now?: (() => number) | undefined
}

const WHERE = 'SqliteSessionStore'

interface SessionRow {
  revision: number
  next_seq: number
  state: string | null
}

function isDatabase(value: unknown): value is SqliteSessionDatabase {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SqliteSessionDatabase).prepare === 'function' &&
    typeof (value as SqliteSessionDatabase).exec === 'function' &&
    typeof (value as SqliteSessionDatabase).transaction === 'function'
  )
}

/**
 * A {@link SessionStore} and {@link FactStore} in a SQLite database through better-sqlite3 (the App opens
 * the database; WAL mode is the App's choice and recommended). One row per session (revision, next `seq`,
 * state as JSON), one row per message (keyed by session and `seq`) and one per fact. Every write is one
 * `BEGIN IMMEDIATE` transaction that checks the revision, so it holds across processes sharing the file;
 * an append writes the session row and one row per new message, whatever the session holds.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { SqliteSessionStore } from '@agent-core/kits/memory/sqlite'
 * const store = new SqliteSessionStore(new Database(':memory:'))
 * await store.append('chat-1', { messages: [{ role: 'user', content: 'Hi' }], expectedRevision: 0 })
 * ```
 */
export class SqliteSessionStore implements SessionStore, FactStore {
  /** The database the App passed in. */
  readonly database: SqliteSessionDatabase
  readonly #now: () => number
  readonly #sql: ReturnType<typeof prepare>
  readonly #appendTx: (sessionId: string, write: CheckedWrite) => SessionWrite
  readonly #popTx: (sessionId: string, expected: number | undefined) => SessionPop
  readonly #clearTx: (sessionId: string, expected: number | undefined) => { revision: number }
  readonly #readTx: (sessionId: string, afterSeq: number) => SessionSnapshot

  constructor(database: SqliteSessionDatabase, options: SqliteSessionStoreOptions = {}) {
    if (!isDatabase(database))
      refuseField(
        'input',
        'database',
        `must be a better-sqlite3 Database (new Database(file)), but got ${describeValue(database)}`,
        database,
        { prefix: `${WHERE}: ` },
      )
    const { prefix, now } = readTableOptions(options)
    this.#now = now
    this.database = database
    try {
      this.#sql = prepare(database, prefix)
    } catch (error) {
      throw new SessionStoreError(
        `${WHERE} could not create or open its tables "${prefix}_sessions", "${prefix}_messages" and "${prefix}_facts". Check the database is writable.`,
        { cause: error, details: { tablePrefix: prefix } },
      )
    }
    const sql = this.#sql
    const row = (sessionId: string) => sql.session.get(sessionId) as SessionRow | undefined
    this.#readTx = database.transaction((sessionId: string, afterSeq: number): SessionSnapshot => {
      const session = row(sessionId)
      if (!session) return { sessionId, revision: 0, messages: [], state: undefined }
      const rows = sql.messages.all(sessionId, afterSeq) as { seq: number; message: string }[]
      return {
        sessionId,
        revision: session.revision,
        messages: rows.map((r) => ({ seq: r.seq, message: JSON.parse(r.message) as ChatMessage })),
        state: session.state === null ? undefined : (JSON.parse(session.state) as SessionState),
      }
    })
    const begin = (sessionId: string, expected: number | undefined): SessionRow => {
      const session = row(sessionId) ?? { revision: 0, next_seq: 1, state: null }
      if (expected !== undefined && session.revision !== expected)
        throw conflict(sessionId, expected, session.revision)
      return session
    }
    this.#appendTx = database.transaction((sessionId: string, write: CheckedWrite): SessionWrite => {
      const session = begin(sessionId, write.expectedRevision)
      let seq = session.next_seq
      for (const text of write.messages) sql.insert.run(sessionId, seq++, text)
      const state = write.state === undefined ? session.state : write.state
      sql.upsert.run(sessionId, session.revision + 1, seq, state)
      return { revision: session.revision + 1, firstSeq: session.next_seq, lastSeq: seq - 1 }
    }).immediate as unknown as (sessionId: string, write: CheckedWrite) => SessionWrite
    this.#popTx = database.transaction((sessionId: string, expected: number | undefined): SessionPop => {
      const session = begin(sessionId, expected)
      const last = sql.last.get(sessionId) as { seq: number; message: string } | undefined
      if (!last) return { revision: session.revision, removed: undefined }
      sql.remove.run(sessionId, last.seq)
      sql.upsert.run(sessionId, session.revision + 1, session.next_seq, session.state)
      const removed: SessionMessage = { seq: last.seq, message: JSON.parse(last.message) as ChatMessage }
      return { revision: session.revision + 1, removed }
    }).immediate as unknown as (sessionId: string, expected: number | undefined) => SessionPop
    this.#clearTx = database.transaction((sessionId: string, expected: number | undefined) => {
      const session = begin(sessionId, expected)
      sql.removeAll.run(sessionId)
      sql.upsert.run(sessionId, session.revision + 1, session.next_seq, null)
      return { revision: session.revision + 1 }
    }).immediate as unknown as (sessionId: string, expected: number | undefined) => { revision: number }
  }

  async read(sessionId: string, options?: SessionReadOptions): Promise<SessionSnapshot> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.read`)
    const afterSeq = checkAfterSeq(options, `${WHERE}.read`)
    return this.#run('read', id, () => this.#readTx(id, afterSeq))
  }

  async append(sessionId: string, write: SessionAppend): Promise<SessionWrite> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.append`)
    const checked = checkAppend(write, `${WHERE}.append`)
    const texts = checked.messages.map((message) => JSON.stringify(message))
    const state =
      checked.state === undefined ? undefined : checked.state === null ? null : JSON.stringify(checked.state)
    return this.#run('append', id, () =>
      this.#appendTx(id, { messages: texts, expectedRevision: checked.expectedRevision, state }),
    )
  }

  async pop(sessionId: string, options?: SessionWriteOptions): Promise<SessionPop> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.pop`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.pop`)
    return this.#run('pop', id, () => this.#popTx(id, expectedRevision))
  }

  async clear(sessionId: string, options?: SessionWriteOptions): Promise<{ readonly revision: number }> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.clear`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.clear`)
    return this.#run('clear', id, () => this.#clearTx(id, expectedRevision))
  }

  async remember(scope: string, key: string, value: string): Promise<Fact> {
    checkId(scope, 'scope', `${WHERE}.remember`)
    checkId(key, 'key', `${WHERE}.remember`)
    checkFactValue(value, `${WHERE}.remember`)
    const updatedAtMs = this.#now()
    return this.#run('remember', scope, () => {
      this.#sql.putFact.run(scope, key, value, updatedAtMs)
      return { key, value, updatedAtMs }
    })
  }

  async recall(scope: string, key: string): Promise<Fact | undefined> {
    checkId(scope, 'scope', `${WHERE}.recall`)
    checkId(key, 'key', `${WHERE}.recall`)
    return this.#run('recall', scope, () => {
      const row = this.#sql.getFact.get(scope, key) as FactRow | undefined
      return row ? factOf(row) : undefined
    })
  }

  async recallAll(scope: string): Promise<readonly Fact[]> {
    checkId(scope, 'scope', `${WHERE}.recallAll`)
    return this.#run('recallAll', scope, () => (this.#sql.listFacts.all(scope) as FactRow[]).map(factOf))
  }

  async forget(scope: string, key: string): Promise<boolean> {
    checkId(scope, 'scope', `${WHERE}.forget`)
    checkId(key, 'key', `${WHERE}.forget`)
    return this.#run('forget', scope, () => this.#sql.deleteFact.run(scope, key).changes > 0)
  }

  #run<T>(operation: string, id: string, body: () => T): T {
    try {
      return body()
    } catch (error) {
      if (error instanceof AgentCoreError) throw error
      throw new SessionStoreError(
        `${WHERE} could not ${operation} ${JSON.stringify(id)}: ${error instanceof Error ? error.message : String(error)}. Check the database (busy, closed or read-only).`,
        { cause: error, details: { sessionId: id, operation } },
      )
    }
  }
}

interface CheckedWrite {
  readonly messages: readonly string[]
  readonly expectedRevision: number | undefined
  readonly state: string | null | undefined
}

interface FactRow {
  key: string
  value: string
  updated_at_ms: number
}

const factOf = (row: FactRow): Fact => ({ key: row.key, value: row.value, updatedAtMs: row.updated_at_ms })

function prepare(database: SqliteSessionDatabase, prefix: string) {
  database.exec(`
    CREATE TABLE IF NOT EXISTS ${prefix}_sessions (
      session_id TEXT PRIMARY KEY,
      revision INTEGER NOT NULL,
      next_seq INTEGER NOT NULL,
      state TEXT
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${prefix}_messages (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${prefix}_facts (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      updated_at_ms INTEGER NOT NULL,
      PRIMARY KEY (scope, key)
    ) WITHOUT ROWID;
  `)
  return {
    session: database.prepare(
      `SELECT revision, next_seq, state FROM ${prefix}_sessions WHERE session_id = ?`,
    ),
    messages: database.prepare(
      `SELECT seq, message FROM ${prefix}_messages WHERE session_id = ? AND seq > ? ORDER BY seq`,
    ),
    last: database.prepare(
      `SELECT seq, message FROM ${prefix}_messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1`,
    ),
    insert: database.prepare(`INSERT INTO ${prefix}_messages (session_id, seq, message) VALUES (?, ?, ?)`),
    remove: database.prepare(`DELETE FROM ${prefix}_messages WHERE session_id = ? AND seq = ?`),
    removeAll: database.prepare(`DELETE FROM ${prefix}_messages WHERE session_id = ?`),
    upsert: database.prepare(
      `INSERT INTO ${prefix}_sessions (session_id, revision, next_seq, state) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, next_seq = excluded.next_seq, state = excluded.state`,
    ),
    putFact: database.prepare(
      `INSERT INTO ${prefix}_facts (scope, key, value, updated_at_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms`,
    ),
    getFact: database.prepare(
      `SELECT key, value, updated_at_ms FROM ${prefix}_facts WHERE scope = ? AND key = ?`,
    ),
    listFacts: database.prepare(
      `SELECT key, value, updated_at_ms FROM ${prefix}_facts WHERE scope = ? ORDER BY key`,
    ),
    deleteFact: database.prepare(`DELETE FROM ${prefix}_facts WHERE scope = ? AND key = ?`),
  }
}

/**
 * Creates a {@link SqliteSessionStore} over a better-sqlite3 database the App opened.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteSessionStore } from '@agent-core/kits/memory/sqlite'
 * const database = new Database('chat.db')
 * database.pragma('journal_mode = WAL')
 * const store = createSqliteSessionStore(database)
 * ```
 */
export function createSqliteSessionStore(
  database: SqliteSessionDatabase,
  options: SqliteSessionStoreOptions = {},
): SqliteSessionStore {
  return new SqliteSessionStore(database, options)
}
