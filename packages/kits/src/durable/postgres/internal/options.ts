import { describeValue, InvalidInputError } from '@agent-core/core'
import pg from 'pg'
import type { PostgresDurableStoreOptions } from '../postgres-durable-store.js'
import { DEFAULT_TABLE_NAME, parseTableName, type TableName } from '../table-name.js'

/** The options of a store, checked, with defaults applied and the pool made when a URL was given. */
export interface ResolvedOptions {
  readonly pool: pg.Pool
  /** True when the store made the pool (from `connectionString`) and so must end it. */
  readonly ownsPool: boolean
  readonly table: TableName
  readonly createTable: boolean
  readonly lockWaitSliceMs: number
}

/** Checks {@link PostgresDurableStoreOptions}; throws `InvalidInputError` naming the bad field. */
export function resolveOptions(options: PostgresDurableStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidInputError(
      `PostgreSQL durable store options must be an object such as { pool } or { connectionString }, but got ${describeValue(options)}.`,
      { details: { name: 'options', received: describeValue(options) } },
    )
  }
  const { pool, connectionString, tableName, createTable, lockWaitSliceMs } = options
  if ((pool === undefined) === (connectionString === undefined)) {
    throw new InvalidInputError(
      'PostgreSQL durable store: pass exactly one of `pool` (a pg.Pool) and `connectionString` (a postgresql:// URL).',
      {
        details: {
          name: 'pool',
          pool: describeValue(pool),
          connectionString: describeValue(connectionString),
        },
      },
    )
  }
  if (
    pool !== undefined &&
    (typeof pool !== 'object' || pool === null || typeof pool.connect !== 'function')
  ) {
    throw new InvalidInputError(
      `PostgreSQL durable store: pool must be a pg.Pool, but got ${describeValue(pool)}.`,
      {
        details: { name: 'pool', received: describeValue(pool) },
      },
    )
  }
  if (
    connectionString !== undefined &&
    (typeof connectionString !== 'string' || connectionString.length === 0)
  ) {
    throw new InvalidInputError(
      `PostgreSQL durable store: connectionString must be a non-empty postgresql:// URL, but got ${describeValue(connectionString)}.`,
      { details: { name: 'connectionString', received: describeValue(connectionString) } },
    )
  }
  if (createTable !== undefined && typeof createTable !== 'boolean') {
    throw new InvalidInputError(
      `PostgreSQL durable store: createTable must be a boolean, but got ${describeValue(createTable)}.`,
      {
        details: { name: 'createTable', received: describeValue(createTable) },
      },
    )
  }
  if (
    lockWaitSliceMs !== undefined &&
    (typeof lockWaitSliceMs !== 'number' ||
      !Number.isSafeInteger(lockWaitSliceMs) ||
      lockWaitSliceMs < 10 ||
      lockWaitSliceMs > 60_000)
  ) {
    throw new InvalidInputError(
      `PostgreSQL durable store: lockWaitSliceMs must be a safe integer from 10 to 60000, but got ${describeValue(lockWaitSliceMs)}.`,
      {
        details: {
          name: 'lockWaitSliceMs',
          min: 10,
          max: 60_000,
          received: describeValue(lockWaitSliceMs),
        },
      },
    )
  }
  const table = parseTableName(tableName === undefined ? DEFAULT_TABLE_NAME : tableName)
  const base = { table, createTable: createTable ?? true, lockWaitSliceMs: lockWaitSliceMs ?? 1000 }
  if (pool !== undefined) return { ...base, pool, ownsPool: false }
  const owned = new pg.Pool({ connectionString, keepAlive: true })
  // Idle connections of a pool we own report server restarts here; the next checkout reconnects.
  owned.on('error', () => {})
  return { ...base, pool: owned, ownsPool: true }
}
