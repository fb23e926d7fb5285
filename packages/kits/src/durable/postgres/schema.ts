import { DEFAULT_TABLE_NAME, parseTableName, type TableName } from './table-name.js'

/** The columns the store reads and writes, with the type `format_type` reports for each. */
export const REQUIRED_COLUMNS: Readonly<Record<string, string>> = {
  task_id: 'text',
  version: 'bigint',
  checkpoint: 'text',
  status: 'text',
  definition_id: 'text',
}

/** The columns a table made by an earlier version of the store lacks, which the store adds itself. */
export const ADDED_COLUMNS: readonly string[] = ['status', 'definition_id']

/** FNV-1a of a string, as 8 hex digits: a short, stable suffix for derived identifiers. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/** The name of the listing index: `<table>_status`, shortened with a hash when it would pass 63 bytes. */
export function statusIndexName(table: TableName): string {
  const name = table.text.split('.').at(-1) as string
  const plain = `${name}_status`
  return plain.length <= 63 ? plain : `${name.slice(0, 46)}_${shortHash(table.text)}_status`
}

/** The DDL of the listing index for an already validated name. */
export function createIndexSql(table: TableName): string {
  return `CREATE INDEX IF NOT EXISTS "${statusIndexName(table)}" ON ${table.sql} (status, task_id COLLATE "C")`
}

/** The DDL of the checkpoint table and its listing index for an already validated name. */
export function createTableSql(table: TableName): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${table.sql} (`,
    '  task_id text PRIMARY KEY,',
    '  version bigint NOT NULL,',
    '  checkpoint text NOT NULL,',
    '  status text,',
    '  definition_id text,',
    '  updated_at timestamptz NOT NULL DEFAULT now()',
    ');',
    `${createIndexSql(table)};`,
  ].join('\n')
}

/**
 * The `CREATE TABLE IF NOT EXISTS` and `CREATE INDEX IF NOT EXISTS` statements of the checkpoint table, for
 * Apps that create tables with their own migrations and run the store with `createTable: false`.
 *
 * The table has one row per task: `task_id` (primary key), `version` (the fencing token, 1 on creation and
 * incremented by every save), `checkpoint` (the checkpoint as JSON text, stored exactly as serialized),
 * `status` and `definition_id` (copied from the checkpoint by every save, for listing tasks by status) and
 * `updated_at`. The index serves `list`. Extra columns of your own are allowed.
 *
 * @param tableName - `name` or `schema.name` (default `agent_core_durable_checkpoints`)
 * @throws `InvalidInputError` for a name that is not a plain identifier
 * @example
 * ```ts
 * import { postgresDurableTableSql } from '@agent-core/kits/durable/postgres'
 *
 * const migration = postgresDurableTableSql('jobs.durable_checkpoints')
 * // CREATE TABLE IF NOT EXISTS "jobs"."durable_checkpoints" ( task_id text PRIMARY KEY, ... );
 * // CREATE INDEX IF NOT EXISTS "durable_checkpoints_status" ON "jobs"."durable_checkpoints" (status, task_id COLLATE "C");
 * ```
 */
export function postgresDurableTableSql(tableName: string = DEFAULT_TABLE_NAME): string {
  return createTableSql(parseTableName(tableName))
}
