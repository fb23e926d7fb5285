import { DEFAULT_TABLE_NAME, parseTableName, type TableName } from './table-name.js'

/** The columns the store reads and writes, with the type `format_type` reports for each. */
export const REQUIRED_COLUMNS: Readonly<Record<string, string>> = {
  task_id: 'text',
  version: 'bigint',
  checkpoint: 'text',
}

/** The DDL of the checkpoint table for an already validated name. */
export function createTableSql(table: TableName): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${table.sql} (`,
    '  task_id text PRIMARY KEY,',
    '  version bigint NOT NULL,',
    '  checkpoint text NOT NULL,',
    '  updated_at timestamptz NOT NULL DEFAULT now()',
    ')',
  ].join('\n')
}

/**
 * The `CREATE TABLE IF NOT EXISTS` statement of the checkpoint table, for Apps that create tables with
 * their own migrations and run the store with `createTable: false`.
 *
 * The table has one row per task: `task_id` (primary key), `version` (the fencing token, 1 on creation and
 * incremented by every save), `checkpoint` (the checkpoint as JSON text, stored exactly as serialized) and
 * `updated_at`. Extra columns of your own are allowed.
 *
 * @param tableName - `name` or `schema.name` (default `agent_core_durable_checkpoints`)
 * @throws `InvalidInputError` for a name that is not a plain identifier
 * @example
 * ```ts
 * import { postgresDurableTableSql } from '@agent-core/kits/durable/postgres'
 *
 * const migration = postgresDurableTableSql('jobs.durable_checkpoints')
 * // CREATE TABLE IF NOT EXISTS "jobs"."durable_checkpoints" ( task_id text PRIMARY KEY, ... )
 * ```
 */
export function postgresDurableTableSql(tableName: string = DEFAULT_TABLE_NAME): string {
  return createTableSql(parseTableName(tableName))
}
