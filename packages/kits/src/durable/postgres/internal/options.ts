import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  refuseField,
} from '@agent-core/core'
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

/**
 * Refuses options with both or neither of `pool` and `connectionString` (the store's and the suspension
 * ledger's rule); `prefix` names the owner.
 */
export function checkOnePool(pool: unknown, connectionString: unknown, prefix: string): void {
  if ((pool === undefined) === (connectionString === undefined)) {
    refuseField(
      'input',
      pool === undefined ? 'options.connectionString' : 'options.pool',
      `${pool === undefined ? 'is missing' : 'is given with options.connectionString'}: pass exactly one of \`pool\` (a pg.Pool) and \`connectionString\` (a postgresql:// URL)`,
      pool ?? connectionString,
      {
        prefix,
        received: `pool: ${describeValue(pool)}, connectionString: ${describeValue(connectionString)}`,
      },
    )
  }
}

/** Checks {@link PostgresDurableStoreOptions}; throws `InvalidInputError` naming the bad field. */
export function resolveOptions(options: PostgresDurableStoreOptions): ResolvedOptions {
  assertObject(options, 'options')
  const { pool, connectionString, tableName, createTable, lockWaitSliceMs } =
    options as PostgresDurableStoreOptions
  checkOnePool(pool, connectionString, 'PostgreSQL durable store: ')
  if (
    pool !== undefined &&
    (typeof pool !== 'object' || pool === null || typeof pool.connect !== 'function')
  ) {
    refuseField('input', 'options.pool', `must be a pg.Pool, but got ${describeValue(pool)}`, pool, {
      prefix: 'PostgreSQL durable store: ',
    })
  }
  if (connectionString !== undefined) assertNonEmptyString(connectionString, 'options.connectionString')
  if (createTable !== undefined && typeof createTable !== 'boolean') {
    refuseField(
      'input',
      'options.createTable',
      `must be a boolean, but got ${describeValue(createTable)}`,
      createTable,
      { prefix: 'PostgreSQL durable store: ' },
    )
  }
  if (lockWaitSliceMs !== undefined)
    assertSafeInteger(lockWaitSliceMs, 'options.lockWaitSliceMs', { min: 10, max: 60_000 })
  const table = parseTableName(tableName === undefined ? DEFAULT_TABLE_NAME : tableName)
  const base = { table, createTable: createTable ?? true, lockWaitSliceMs: lockWaitSliceMs ?? 1000 }
  if (pool !== undefined) return { ...base, pool, ownsPool: false }
  const owned = new pg.Pool({ connectionString, keepAlive: true })
  // Idle connections of a pool we own report server restarts here; the next checkout reconnects.
  owned.on('error', () => {})
  return { ...base, pool: owned, ownsPool: true }
}
