import { AgentCoreError, InvalidStateError } from '@agent-core/core'
import type pg from 'pg'
import { createTableSql, REQUIRED_COLUMNS } from '../schema.js'
import type { TableName } from '../table-name.js'
import { storeFailure } from './failures.js'
import { checkout, type Session } from './sessions.js'

/**
 * Creates the checkpoint table when it is missing and checks the columns of an existing one. The DDL runs
 * in a transaction under a transaction-scoped advisory lock, so processes starting together do not race
 * (`CREATE TABLE IF NOT EXISTS` alone can fail on a concurrent create). An existing table is not touched,
 * so a role without `CREATE` privilege works with a migrated table.
 */
export async function ensureTable(pool: pg.Pool, table: TableName): Promise<void> {
  let session: Session
  try {
    session = await checkout(pool, undefined, 'ensure-schema')
  } catch (error) {
    throw storeFailure(error, 'connect')
  }
  const client = session.client
  let columns: pg.QueryResult<{ name: string; type: string }>
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `agent-core-durable-schema:${table.text}`,
    ])
    const exists = await client.query<{ oid: string | null }>('SELECT to_regclass($1)::oid AS oid', [
      table.sql,
    ])
    if (exists.rows[0]?.oid == null) await client.query(createTableSql(table))
    columns = await client.query<{ name: string; type: string }>(
      `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
      [table.sql],
    )
    await client.query('COMMIT')
    session.release()
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    if (AgentCoreError.isInstance(error)) session.release()
    else session.destroy(error)
    throw storeFailure(error, 'ensure-schema')
  }
  const found = new Map(columns.rows.map((row) => [row.name, row.type]))
  const wrong = Object.entries(REQUIRED_COLUMNS).filter(([name, type]) => found.get(name) !== type)
  if (wrong.length > 0) {
    throw new InvalidStateError(
      `PostgreSQL durable store: table ${table.text} exists but lacks the columns ${wrong
        .map(([name, type]) => `${name} ${type}`)
        .join(
          ', ',
        )}. Point tableName at another table, or migrate this one to the layout of postgresDurableTableSql().`,
      { details: { tableName: table.text, reason: 'foreign-table', missing: wrong.map(([name]) => name) } },
    )
  }
}
