import { describeValue, InvalidInputError, refuseField } from '@agent-core/core'

/**
 * What the knowledge store and index need of a connection: `query` with parameters, and `release` back
 * to its pool. A `pg` `PoolClient` is one.
 * @example
 * ```ts
 * import type { PostgresKnowledgeClient } from '@agent-core/kits/knowledge/postgres'
 * declare const client: PostgresKnowledgeClient
 * const { rows } = await client.query('SELECT 1 AS one')
 * client.release()
 * ```
 */
export interface PostgresKnowledgeClient {
  // biome-ignore lint/suspicious/noExplicitAny: rows of any shape, as pg types them
  query(text: string, values?: unknown[]): Promise<{ readonly rows: any[] }>
  release(error?: Error | boolean): void
}

/**
 * What the knowledge store and index need of a pool: `connect()` to a {@link PostgresKnowledgeClient}. A
 * `pg` `Pool` (opened by the App, with its own connection string, size and TLS) is one; so is
 * {@link singleConnectionPool} over one connection (a PGlite database, one `pg.Client`).
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import type { PostgresKnowledgePool } from '@agent-core/kits/knowledge/postgres'
 * const pool: PostgresKnowledgePool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * ```
 */
export interface PostgresKnowledgePool {
  connect(): Promise<PostgresKnowledgeClient>
}

/**
 * One connection with `query(text, values)`: a PGlite database, a connected `pg.Client`.
 * @example
 * ```ts
 * import type { PostgresKnowledgeConnection } from '@agent-core/kits/knowledge/postgres'
 * const rows = async (connection: PostgresKnowledgeConnection) => (await connection.query('SELECT 1 AS one')).rows
 * ```
 */
export interface PostgresKnowledgeConnection {
  // biome-ignore lint/suspicious/noExplicitAny: rows of any shape, as the driver types them
  query(text: string, values?: any[]): Promise<{ readonly rows: any[] }>
}

/**
 * A {@link PostgresKnowledgePool} over one connection that hands it to one caller at a time (the next
 * `connect()` waits for the `release()` of the previous one), so transactions never interleave on it.
 * For an in-process PGlite database (with its `vector` extension for pgvector), or one `pg.Client`.
 * @example
 * ```ts no-run
 * import { PGlite } from '@electric-sql/pglite'
 * import { vector } from '@electric-sql/pglite/vector'
 * import { PostgresKnowledgeStore, singleConnectionPool } from '@agent-core/kits/knowledge/postgres'
 *
 * const db = await PGlite.create({ extensions: { vector } })
 * const store = new PostgresKnowledgeStore(singleConnectionPool(db))
 * await store.createSchema({ vectors: 'pgvector' })
 * ```
 */
export function singleConnectionPool(connection: PostgresKnowledgeConnection): PostgresKnowledgePool {
  if (
    typeof connection !== 'object' ||
    connection === null ||
    typeof (connection as PostgresKnowledgeConnection).query !== 'function'
  ) {
    refuseField(
      'input',
      'connection',
      `must be a connection with query(text, values) (a PGlite database, a connected pg.Client), but got ${describeValue(connection)}`,
      connection,
      { prefix: 'singleConnectionPool: ' },
    )
  }
  let tail: Promise<void> = Promise.resolve()
  return {
    connect() {
      let release!: () => void
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      const previous = tail
      tail = previous.then(() => held)
      return previous.then(() => {
        let released = false
        return {
          query: (text: string, values?: unknown[]) => {
            if (released) {
              return Promise.reject(
                new InvalidInputError('This connection was released; connect() again.', {
                  details: { field: 'client' },
                }),
              )
            }
            return connection.query(text, values as unknown[])
          },
          release: () => {
            if (released) return
            released = true
            release()
          },
        }
      })
    },
  }
}
