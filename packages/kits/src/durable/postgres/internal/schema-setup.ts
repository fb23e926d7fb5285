import { AgentCoreError, InvalidStateError } from '@agent-core/core'
import type pg from 'pg'
import { summaryColumns } from '../../internal/store-support.js'
import { ADDED_COLUMNS, createIndexSql, createTableSql, REQUIRED_COLUMNS } from '../schema.js'
import type { TableName } from '../table-name.js'
import { storeFailure } from './failures.js'
import { checkout, type Session } from './sessions.js'

/**
 * Creates the checkpoint table when it is missing and checks the columns of an existing one. The DDL runs
 * in a transaction under a transaction-scoped advisory lock, so processes starting together do not race
 * (`CREATE TABLE IF NOT EXISTS` alone can fail on a concurrent create). An existing table is not touched,
 * so a role without `CREATE` privilege works with a migrated table, with one exception: a table made by an
 * earlier version of the store, which lacks the listing columns, gains them (filled from each row's
 * checkpoint) and the listing index.
 */
export async function ensureTable(pool: pg.Pool, table: TableName): Promise<void> {
  let session: Session
  try {
    session = await checkout(pool, undefined, 'ensure-schema')
  } catch (error) {
    throw storeFailure(error, 'connect')
  }
  const client = session.client
  let found: Map<string, string>
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `agent-core-durable-schema:${table.text}`,
    ])
    const exists = await client.query<{ oid: string | null }>('SELECT to_regclass($1)::oid AS oid', [
      table.sql,
    ])
    if (exists.rows[0]?.oid == null) await client.query(createTableSql(table))
    found = await columnsOf(client, table)
    const missing = ADDED_COLUMNS.filter((name) => !found.has(name))
    const earlierLayout = Object.entries(REQUIRED_COLUMNS).every(
      ([name, type]) => ADDED_COLUMNS.includes(name) || found.get(name) === type,
    )
    // Only a table of the store's own earlier layout is altered; any other table is refused below.
    if (missing.length > 0 && earlierLayout) {
      await addListingColumns(client, table, missing)
      found = await columnsOf(client, table)
    }
    await client.query('COMMIT')
    session.release()
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    if (AgentCoreError.isInstance(error)) session.release()
    else session.destroy(error)
    throw storeFailure(error, 'ensure-schema')
  }
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

async function columnsOf(client: pg.PoolClient, table: TableName): Promise<Map<string, string>> {
  const columns = await client.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [table.sql],
  )
  return new Map(columns.rows.map((row) => [row.name, row.type]))
}

/** Adds `status` / `definition_id` to a table of an earlier version, fills them and creates the index. */
async function addListingColumns(
  client: pg.PoolClient,
  table: TableName,
  missing: readonly string[],
): Promise<void> {
  await client.query(
    `ALTER TABLE ${table.sql} ${missing.map((name) => `ADD COLUMN IF NOT EXISTS ${name} text`).join(', ')}`,
  )
  const rows = await client.query<{ task_id: string; checkpoint: string }>(
    `SELECT task_id, checkpoint FROM ${table.sql}`,
  )
  for (const row of rows.rows) {
    let parsed: unknown
    try {
      parsed = JSON.parse(row.checkpoint)
    } catch {
      continue
    }
    const { status, definitionId } = summaryColumns(parsed)
    await client.query(`UPDATE ${table.sql} SET status = $2, definition_id = $3 WHERE task_id = $1`, [
      row.task_id,
      status,
      definitionId,
    ])
  }
  await client.query(createIndexSql(table))
}
