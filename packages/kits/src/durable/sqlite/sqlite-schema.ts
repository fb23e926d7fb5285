import type Database from 'better-sqlite3'

/** A lease row as read back from the database. */
export interface LeaseRow {
  readonly owner: string
  readonly expires_at_ms: number
  readonly host: string | null
  readonly pid: number | null
}

/** A row of a `list` answer. */
export interface SummaryRow {
  readonly task_id: string
  readonly status: string
  readonly definition_id: string
  readonly updated_at_ms: number
}

/** The parameters of the `list` statement. */
export interface ListParameters {
  /** The wanted statuses as a JSON array. */
  readonly statuses: string
  readonly definitionId: string | null
  readonly after: string | null
  readonly limit: number
}

/** The prepared statements of one store. */
export interface SqliteStatements {
  readonly load: Database.Statement<[string], { version: unknown; body: unknown }>
  readonly version: Database.Statement<[string], { version: number }>
  readonly insert: Database.Statement<[string, string, number]>
  readonly update: Database.Statement<[string, number, string, number]>
  readonly upsert: Database.Statement<[string, string, number]>
  readonly list: Database.Statement<[ListParameters], SummaryRow>
  readonly acquire: Database.Statement<[string, string, number, string, number]>
  readonly holder: Database.Statement<[string], LeaseRow>
  readonly takeOver: Database.Statement<[string, number, string, number, string, string]>
  readonly renew: Database.Statement<[number, string, string]>
  readonly release: Database.Statement<[string, string]>
  /** Moves an idle row of this store to a task (new key, owner, expiry, host, pid) unless that task has a row. */
  readonly reassign: Database.Statement<[string, string, number, string, number, string, string]>
}

function columnsOf(database: Database.Database, table: string): Set<string> {
  const rows = database.prepare(`PRAGMA table_xinfo(${table})`).all() as { name: string }[]
  return new Set(rows.map((row) => row.name))
}

/**
 * Adds `column` to `table` unless it is there. Another process opening the same file may add it at the same
 * moment: a failure is fine when the column exists afterwards.
 */
function addColumn(database: Database.Database, table: string, column: string, definition: string): void {
  if (columnsOf(database, table).has(column)) return
  try {
    database.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`)
  } catch (error) {
    if (!columnsOf(database, table).has(column)) throw error
  }
}

/**
 * Creates the two tables when missing and brings tables made by an earlier version up to date: the
 * checkpoint table gains `status` and `definition_id` (virtual columns computed from the JSON body, so they
 * are right even for rows written by hand) with an index for listing, the lease table gains the holder's
 * `host` and `pid`. Then prepares every statement.
 */
export function prepareSqliteSchema(database: Database.Database, prefix: string): SqliteStatements {
  const checkpoints = `${prefix}_checkpoints`
  const leases = `${prefix}_leases`
  const field = (name: string) => `CASE WHEN json_valid(body) THEN json_extract(body, '$.${name}') END`
  database.exec(
    `CREATE TABLE IF NOT EXISTS ${checkpoints} (task_id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, updated_at_ms INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS ${leases} (task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at_ms INTEGER NOT NULL);`,
  )
  addColumn(database, checkpoints, 'status', `TEXT GENERATED ALWAYS AS (${field('status')}) VIRTUAL`)
  addColumn(
    database,
    checkpoints,
    'definition_id',
    `TEXT GENERATED ALWAYS AS (${field('definitionId')}) VIRTUAL`,
  )
  database.exec(`CREATE INDEX IF NOT EXISTS ${prefix}_checkpoints_status ON ${checkpoints} (status, task_id)`)
  addColumn(database, leases, 'host', 'TEXT')
  addColumn(database, leases, 'pid', 'INTEGER')
  return {
    load: database.prepare(`SELECT version, body FROM ${checkpoints} WHERE task_id = ?`),
    version: database.prepare(`SELECT version FROM ${checkpoints} WHERE task_id = ?`),
    insert: database.prepare(
      `INSERT INTO ${checkpoints} (task_id, version, body, updated_at_ms) VALUES (?, 1, ?, ?) ON CONFLICT (task_id) DO NOTHING`,
    ),
    update: database.prepare(
      `UPDATE ${checkpoints} SET version = version + 1, body = ?, updated_at_ms = ? WHERE task_id = ? AND version = ?`,
    ),
    upsert: database.prepare(
      `INSERT INTO ${checkpoints} (task_id, version, body, updated_at_ms) VALUES (?, 1, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET version = max(version, 0) + 1, body = excluded.body, updated_at_ms = excluded.updated_at_ms`,
    ),
    list: database.prepare(
      `SELECT task_id, status, definition_id, updated_at_ms FROM ${checkpoints}
       WHERE status IN (SELECT value FROM json_each(@statuses)) AND definition_id IS NOT NULL
         AND (@definitionId IS NULL OR definition_id = @definitionId) AND (@after IS NULL OR task_id > @after)
       ORDER BY task_id LIMIT @limit`,
    ),
    acquire: database.prepare(
      `INSERT INTO ${leases} (task_id, owner, expires_at_ms, host, pid) VALUES (?, ?, ?, ?, ?) ON CONFLICT (task_id) DO NOTHING`,
    ),
    holder: database.prepare(`SELECT owner, expires_at_ms, host, pid FROM ${leases} WHERE task_id = ?`),
    takeOver: database.prepare(
      `UPDATE ${leases} SET owner = ?, expires_at_ms = ?, host = ?, pid = ? WHERE task_id = ? AND owner = ?`,
    ),
    renew: database.prepare(`UPDATE ${leases} SET expires_at_ms = ? WHERE task_id = ? AND owner = ?`),
    release: database.prepare(`DELETE FROM ${leases} WHERE task_id = ? AND owner = ?`),
    reassign: database.prepare(
      `UPDATE OR IGNORE ${leases} SET task_id = ?, owner = ?, expires_at_ms = ?, host = ?, pid = ? WHERE task_id = ? AND owner = ?`,
    ),
  }
}
