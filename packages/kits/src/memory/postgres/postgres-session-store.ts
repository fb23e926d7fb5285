import { AgentCoreError, type ChatMessage, describeValue, refuseField } from '@agent-core/core'
import {
  type Fact,
  type FactStore,
  type SessionAppend,
  type SessionPop,
  type SessionReadOptions,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
  SessionStoreError,
  type SessionWrite,
  type SessionWriteOptions,
} from '@agent-core/kits/memory'
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
 * What the store needs of a connection: `query` with parameters, and `release` back to its pool. A `pg`
 * `PoolClient` is one.
 * @example
 * ```ts
 * import type { PostgresSessionClient } from '@agent-core/kits/memory/postgres'
 * declare const client: PostgresSessionClient
 * const { rows } = await client.query('SELECT 1 AS one')
 * client.release()
 * ```
 */
export interface PostgresSessionClient {
  // biome-ignore lint/suspicious/noExplicitAny: rows of any shape, as pg types them
  query(text: string, values?: unknown[]): Promise<{ readonly rows: any[]; readonly rowCount: number | null }>
  release(error?: Error | boolean): void
}

/**
 * What the store needs of a pool: `connect()` to a {@link PostgresSessionClient}. A `pg` `Pool` (opened by
 * the App, with its own connection string, size and TLS) is one.
 * @example
 * ```ts
 * import pg from 'pg'
 * import { createPostgresSessionStore, type PostgresSessionPool } from '@agent-core/kits/memory/postgres'
 * const pool: PostgresSessionPool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = createPostgresSessionStore(pool)
 * ```
 */
export interface PostgresSessionPool {
  connect(): Promise<PostgresSessionClient>
}

/**
 * Options of {@link createPostgresSessionStore}.
 * @example
 * ```ts
 * import pg from 'pg'
 * import { createPostgresSessionStore } from '@agent-core/kits/memory/postgres'
 * const store = createPostgresSessionStore(new pg.Pool(), { tablePrefix: 'chat' })
 * ```
 */
export interface PostgresSessionStoreOptions {
  /** Prefix of the tables (`<prefix>_sessions`, `<prefix>_messages`, `<prefix>_facts`). Default `agent_core_memory`. */
  readonly tablePrefix?: string | undefined
  /** The clock of facts' `updatedAtMs`. Default `Date.now`. */
  readonly now?: (() => number) | undefined
}

const WHERE = 'PostgresSessionStore'

/**
 * A {@link SessionStore} and {@link FactStore} in PostgreSQL over the App's pool (`pg`), so many processes
 * on many machines share sessions. One row per session (revision, next `seq`, state as JSON text), one
 * per message and one per fact; each write is one transaction that locks the session's row
 * (`SELECT ... FOR UPDATE`) and checks its revision, and an append inserts only the new messages. The
 * tables are created on first use (under an advisory lock, so concurrent first uses do not race).
 * @example
 * ```ts
 * import pg from 'pg'
 * import { PostgresSessionStore } from '@agent-core/kits/memory/postgres'
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = new PostgresSessionStore(pool)
 * await store.append('chat-1', { messages: [{ role: 'user', content: 'Hi' }], expectedRevision: 0 })
 * ```
 */
export class PostgresSessionStore implements SessionStore, FactStore {
  /** The pool the App passed in (the store never ends it). */
  readonly pool: PostgresSessionPool
  readonly #prefix: string
  readonly #now: () => number
  #ready: Promise<void> | undefined

  constructor(pool: PostgresSessionPool, options: PostgresSessionStoreOptions = {}) {
    if (
      typeof pool !== 'object' ||
      pool === null ||
      typeof (pool as PostgresSessionPool).connect !== 'function'
    )
      refuseField(
        'input',
        'pool',
        `must be a pg Pool (new pg.Pool(config)), but got ${describeValue(pool)}`,
        pool,
        {
          prefix: `${WHERE}: `,
        },
      )
    const { prefix, now } = readTableOptions(options)
    this.#now = now
    this.pool = pool
    this.#prefix = prefix
  }

  async read(sessionId: string, options?: SessionReadOptions): Promise<SessionSnapshot> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.read`)
    const afterSeq = checkAfterSeq(options, `${WHERE}.read`)
    const p = this.#prefix
    return this.#transaction(
      'read',
      id,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      async (client) => {
        const session = await client.query(
          `SELECT revision, state FROM ${p}_sessions WHERE session_id = $1`,
          [id],
        )
        const row = session.rows[0] as { revision: string | number; state: string | null } | undefined
        if (!row) return { sessionId: id, revision: 0, messages: [], state: undefined }
        const messages = await client.query(
          `SELECT seq, message FROM ${p}_messages WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
          [id, afterSeq],
        )
        return {
          sessionId: id,
          revision: Number(row.revision),
          messages: (messages.rows as { seq: string | number; message: string }[]).map((r) => ({
            seq: Number(r.seq),
            message: JSON.parse(r.message) as ChatMessage,
          })),
          state: row.state === null ? undefined : (JSON.parse(row.state) as SessionState),
        }
      },
    )
  }

  async append(sessionId: string, write: SessionAppend): Promise<SessionWrite> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.append`)
    const checked = checkAppend(write, `${WHERE}.append`)
    const texts = checked.messages.map((message) => JSON.stringify(message))
    const p = this.#prefix
    return this.#transaction('append', id, 'BEGIN', async (client) => {
      const session = await this.#lock(client, id, checked.expectedRevision)
      if (texts.length > 0) {
        await client.query(
          `INSERT INTO ${p}_messages (session_id, seq, message)
           SELECT $1, $2::bigint + t.ord - 1, t.message FROM unnest($3::text[]) WITH ORDINALITY AS t(message, ord)`,
          [id, session.nextSeq, texts],
        )
      }
      const state =
        checked.state === undefined
          ? session.state
          : checked.state === null
            ? null
            : JSON.stringify(checked.state)
      await client.query(
        `UPDATE ${p}_sessions SET revision = $2, next_seq = $3, state = $4 WHERE session_id = $1`,
        [id, session.revision + 1, session.nextSeq + texts.length, state],
      )
      return {
        revision: session.revision + 1,
        firstSeq: session.nextSeq,
        lastSeq: session.nextSeq + texts.length - 1,
      }
    })
  }

  async pop(sessionId: string, options?: SessionWriteOptions): Promise<SessionPop> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.pop`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.pop`)
    const p = this.#prefix
    return this.#transaction('pop', id, 'BEGIN', async (client) => {
      const session = await this.#lock(client, id, expectedRevision)
      const removed = await client.query(
        `DELETE FROM ${p}_messages WHERE session_id = $1
           AND seq = (SELECT max(seq) FROM ${p}_messages WHERE session_id = $1)
         RETURNING seq, message`,
        [id],
      )
      const row = removed.rows[0] as { seq: string | number; message: string } | undefined
      if (!row) {
        // nothing to remove: leave the session exactly as it was (a new one is not kept)
        await client.query('ROLLBACK')
        return { revision: session.revision, removed: undefined, rolledBack: true }
      }
      await client.query(`UPDATE ${p}_sessions SET revision = $2 WHERE session_id = $1`, [
        id,
        session.revision + 1,
      ])
      return {
        revision: session.revision + 1,
        removed: { seq: Number(row.seq), message: JSON.parse(row.message) as ChatMessage },
      }
    }).then(({ revision, removed }) => ({ revision, removed }))
  }

  async clear(sessionId: string, options?: SessionWriteOptions): Promise<{ readonly revision: number }> {
    const id = checkId(sessionId, 'sessionId', `${WHERE}.clear`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.clear`)
    const p = this.#prefix
    return this.#transaction('clear', id, 'BEGIN', async (client) => {
      const session = await this.#lock(client, id, expectedRevision)
      await client.query(`DELETE FROM ${p}_messages WHERE session_id = $1`, [id])
      await client.query(`UPDATE ${p}_sessions SET revision = $2, state = NULL WHERE session_id = $1`, [
        id,
        session.revision + 1,
      ])
      return { revision: session.revision + 1 }
    })
  }

  async remember(scope: string, key: string, value: string): Promise<Fact> {
    checkId(scope, 'scope', `${WHERE}.remember`)
    checkId(key, 'key', `${WHERE}.remember`)
    checkFactValue(value, `${WHERE}.remember`)
    const updatedAtMs = this.#now()
    return this.#query('remember', scope, async (client) => {
      await client.query(
        `INSERT INTO ${this.#prefix}_facts (scope, key, value, updated_at_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms`,
        [scope, key, value, updatedAtMs],
      )
      return { key, value, updatedAtMs }
    })
  }

  async recall(scope: string, key: string): Promise<Fact | undefined> {
    checkId(scope, 'scope', `${WHERE}.recall`)
    checkId(key, 'key', `${WHERE}.recall`)
    return this.#query('recall', scope, async (client) => {
      const { rows } = await client.query(
        `SELECT key, value, updated_at_ms FROM ${this.#prefix}_facts WHERE scope = $1 AND key = $2`,
        [scope, key],
      )
      return rows[0] ? factOf(rows[0]) : undefined
    })
  }

  async recallAll(scope: string): Promise<readonly Fact[]> {
    checkId(scope, 'scope', `${WHERE}.recallAll`)
    return this.#query('recallAll', scope, async (client) => {
      const { rows } = await client.query(
        `SELECT key, value, updated_at_ms FROM ${this.#prefix}_facts WHERE scope = $1 ORDER BY key COLLATE "C"`,
        [scope],
      )
      return rows.map(factOf)
    })
  }

  async forget(scope: string, key: string): Promise<boolean> {
    checkId(scope, 'scope', `${WHERE}.forget`)
    checkId(key, 'key', `${WHERE}.forget`)
    return this.#query('forget', scope, async (client) => {
      const result = await client.query(`DELETE FROM ${this.#prefix}_facts WHERE scope = $1 AND key = $2`, [
        scope,
        key,
      ])
      return (result.rowCount ?? 0) > 0
    })
  }

  /** Takes the session's row lock (creating the row when needed) and checks the revision. */
  async #lock(
    client: PostgresSessionClient,
    id: string,
    expected: number | undefined,
  ): Promise<{ revision: number; nextSeq: number; state: string | null }> {
    const p = this.#prefix
    await client.query(
      `INSERT INTO ${p}_sessions (session_id, revision, next_seq, state) VALUES ($1, 0, 1, NULL) ON CONFLICT (session_id) DO NOTHING`,
      [id],
    )
    const { rows } = await client.query(
      `SELECT revision, next_seq, state FROM ${p}_sessions WHERE session_id = $1 FOR UPDATE`,
      [id],
    )
    const row = rows[0] as { revision: string | number; next_seq: string | number; state: string | null }
    const session = { revision: Number(row.revision), nextSeq: Number(row.next_seq), state: row.state }
    if (expected !== undefined && session.revision !== expected)
      throw conflict(id, expected, session.revision)
    return session
  }

  #schema(client: PostgresSessionClient): Promise<void> {
    const p = this.#prefix
    this.#ready ??= (async () => {
      await client.query('BEGIN')
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agent-core-memory:${p}`])
        await client.query(`
          CREATE TABLE IF NOT EXISTS ${p}_sessions (
            session_id TEXT PRIMARY KEY,
            revision BIGINT NOT NULL,
            next_seq BIGINT NOT NULL,
            state TEXT
          );
          CREATE TABLE IF NOT EXISTS ${p}_messages (
            session_id TEXT NOT NULL,
            seq BIGINT NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
          );
          CREATE TABLE IF NOT EXISTS ${p}_facts (
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at_ms BIGINT NOT NULL,
            PRIMARY KEY (scope, key)
          );`)
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        this.#ready = undefined
        throw error
      }
    })()
    return this.#ready
  }

  async #query<T>(
    operation: string,
    id: string,
    body: (client: PostgresSessionClient) => Promise<T>,
  ): Promise<T> {
    let client: PostgresSessionClient | undefined
    try {
      client = await this.pool.connect()
      await this.#schema(client)
      const value = await body(client)
      client.release()
      return value
    } catch (error) {
      client?.release(error instanceof Error ? error : true)
      throw this.#failure(operation, id, error)
    }
  }

  async #transaction<T>(
    operation: string,
    id: string,
    begin: string,
    body: (client: PostgresSessionClient) => Promise<T & { rolledBack?: boolean }>,
  ): Promise<T> {
    return this.#query(operation, id, async (client) => {
      await client.query(begin)
      try {
        const value = await body(client)
        if (!value.rolledBack) await client.query('COMMIT')
        return value
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      }
    })
  }

  #failure(operation: string, id: string, error: unknown): unknown {
    if (error instanceof AgentCoreError) return error
    return new SessionStoreError(
      `${WHERE} could not ${operation} ${JSON.stringify(id)}: ${error instanceof Error ? error.message : String(error)}. Check the database is reachable and the tables are ours.`,
      { cause: error, details: { sessionId: id, operation } },
    )
  }
}

const factOf = (row: { key: string; value: string; updated_at_ms: string | number }): Fact => ({
  key: row.key,
  value: row.value,
  updatedAtMs: Number(row.updated_at_ms),
})

/**
 * Creates a {@link PostgresSessionStore} over the App's pool.
 * @example
 * ```ts
 * import pg from 'pg'
 * import { createPostgresSessionStore } from '@agent-core/kits/memory/postgres'
 * const store = createPostgresSessionStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * ```
 */
export function createPostgresSessionStore(
  pool: PostgresSessionPool,
  options: PostgresSessionStoreOptions = {},
): PostgresSessionStore {
  return new PostgresSessionStore(pool, options)
}
