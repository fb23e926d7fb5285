import { assertObject, describeValue, refuseField } from '@agent-core/core'
import { DurableStoreError } from '@agent-core/kits/durable'
import type { SuspensionClaim, SuspensionLedger } from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import { optionalPositiveInteger } from '../internal/store-support.js'
import { checkClaimInput, checkKey, checkStoredClaim } from '../internal/suspension-claim.js'
import { isDatabase, type SqliteDatabase } from './sqlite-store.js'

/**
 * Options of {@link createSqliteSuspensionLedger}.
 * @example
 * ```ts
 * import type { SqliteSuspensionLedgerOptions } from '@agent-core/kits/durable/sqlite'
 * const options: SqliteSuspensionLedgerOptions = { tableName: 'desk_suspension_claims' }
 * ```
 */
export interface SqliteSuspensionLedgerOptions {
  /** The claims table. Default `agent_core_suspension_claims`. */
  readonly tableName?: string | undefined
  /** Only when the ledger opens the file: how long a statement waits for another connection's write lock. Default 5000. */
  readonly busyTimeoutMs?: number | undefined
}

const TABLE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

function storeError(what: string, error: unknown): DurableStoreError {
  return new DurableStoreError(
    `The SQLite suspension ledger could not ${what}: ${error instanceof Error ? error.message : String(error)}. Check the database file (its permissions, free space, and that nothing else holds a write lock for long).`,
    { cause: error },
  )
}

/**
 * A suspension ledger of the loop kit (`SuspensionLedger` of `@agent-core/kits/loop`) in a SQLite file:
 * processes that share the file resume each suspended run once. A claim is one insert that does nothing on
 * a conflict (`ON CONFLICT DO NOTHING`) on the suspension's key (SQLite serializes writers, so two processes that claim at once cannot
 * both win), read back in the same transaction. Give it the durable store's database
 * (`createSqliteSuspensionLedger(store.database)`) to keep claims beside the checkpoints.
 *
 * @example
 * ```ts
 * import { SqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
 * const ledger = new SqliteSuspensionLedger(':memory:')
 * await ledger.get('run_1/suspension_1') // undefined
 * ledger.close()
 * ```
 */
export class SqliteSuspensionLedger implements SuspensionLedger {
  /** The underlying database (the one passed in, or the one the ledger opened). */
  readonly database: SqliteDatabase
  readonly #owned: boolean
  readonly #claim: (claim: SuspensionClaim) => unknown
  readonly #get: Database.Statement<[string], { claim: unknown }>

  constructor(source: string | SqliteDatabase, options: SqliteSuspensionLedgerOptions = {}) {
    assertObject(options, 'options')
    const table = options.tableName ?? 'agent_core_suspension_claims'
    if (typeof table !== 'string' || !TABLE_PATTERN.test(table)) {
      refuseField(
        'input',
        'options.tableName',
        `must be a SQL identifier (a letter or underscore, then up to 62 letters, digits or underscores), but got ${describeValue(table)}`,
        table,
      )
    }
    const busyTimeoutMs = optionalPositiveInteger(options.busyTimeoutMs, 'options.busyTimeoutMs', 5_000)
    if (typeof source === 'string') {
      if (source.length === 0) {
        refuseField(
          'input',
          'source',
          'must be a file path (or ":memory:"), but got an empty string',
          source,
          { prefix: 'The SQLite suspension ledger: ' },
        )
      }
      try {
        this.database = new Database(source)
        this.database.pragma('journal_mode = WAL')
        this.database.pragma(`busy_timeout = ${busyTimeoutMs}`)
      } catch (error) {
        throw new DurableStoreError(
          `The SQLite suspension ledger could not open ${JSON.stringify(source)}. Check the path and its permissions.`,
          { cause: error, details: { path: source } },
        )
      }
      this.#owned = true
    } else if (isDatabase(source)) {
      this.database = source
      this.#owned = false
    } else {
      refuseField(
        'input',
        'source',
        `must be a file path or a better-sqlite3 Database (a SQLite durable store's \`database\`), but got ${describeValue(source)}`,
        source,
        { prefix: 'The SQLite suspension ledger: ' },
      )
    }
    try {
      this.database.exec(
        `CREATE TABLE IF NOT EXISTS ${table} (
          suspension_key TEXT PRIMARY KEY,
          run_id TEXT NOT NULL,
          claim_id TEXT NOT NULL,
          task_id TEXT,
          claimed_at_ms INTEGER NOT NULL,
          claim TEXT NOT NULL
        ) WITHOUT ROWID`,
      )
      const insert = this.database.prepare<[string, string, string, string | null, number, string]>(
        `INSERT INTO ${table} (suspension_key, run_id, claim_id, task_id, claimed_at_ms, claim)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (suspension_key) DO NOTHING`,
      )
      this.#get = this.database.prepare<[string], { claim: unknown }>(
        `SELECT claim FROM ${table} WHERE suspension_key = ?`,
      )
      const read = this.#get
      this.#claim = this.database.transaction((claim: SuspensionClaim) => {
        insert.run(
          claim.key,
          claim.runId,
          claim.claimId,
          claim.taskId ?? null,
          claim.claimedAtMs,
          JSON.stringify(claim),
        )
        return read.get(claim.key)?.claim
      })
    } catch (error) {
      if (this.#owned) this.database.close()
      throw storeError(`prepare its table "${table}"`, error)
    }
  }

  /**
   * Stores `claim` unless its key was claimed; resolves with the claim that holds.
   * @throws `InvalidInputError` for a malformed claim, `DurableStoreError` when the database fails,
   *   `InvalidOutputError` for a stored row that is not a claim
   * @example
   * ```ts
   * import { SqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
   * const ledger = new SqliteSuspensionLedger(':memory:')
   * const held = await ledger.claim({ key: 'run_1/s_1', runId: 'run_1', claimId: 'c_1', outcomes: {}, claimedAtMs: 0 })
   * held.claimId // 'c_1'
   * ```
   */
  async claim(claim: SuspensionClaim): Promise<SuspensionClaim> {
    checkClaimInput(claim)
    let stored: unknown
    try {
      stored = this.#claim(claim)
    } catch (error) {
      throw storeError(`claim suspension "${claim.key}"`, error)
    }
    return readBack(stored, claim.key)
  }

  /**
   * The claim of `key`, or `undefined`.
   * @throws `InvalidInputError` for a malformed key, `DurableStoreError` when the database fails
   * @example
   * ```ts
   * import { SqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
   * await new SqliteSuspensionLedger(':memory:').get('run_1/s_1') // undefined
   * ```
   */
  async get(key: string): Promise<SuspensionClaim | undefined> {
    checkKey(key)
    let stored: unknown
    try {
      stored = this.#get.get(key)?.claim
    } catch (error) {
      throw storeError(`read suspension "${key}"`, error)
    }
    return stored === undefined ? undefined : readBack(stored, key)
  }

  /**
   * Closes the database if the ledger opened it; a database passed in is left open.
   * @example
   * ```ts
   * import { SqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
   * new SqliteSuspensionLedger(':memory:').close()
   * ```
   */
  close(): void {
    if (this.#owned && this.database.open) this.database.close()
  }
}

function readBack(stored: unknown, key: string): SuspensionClaim {
  let claim: unknown
  try {
    claim = typeof stored === 'string' ? JSON.parse(stored) : undefined
  } catch {
    claim = undefined
  }
  if (claim === undefined) {
    refuseField(
      'output',
      'claim',
      `of "${key}" is stored as ${describeValue(stored)}, not JSON; its table was written by something else or damaged. Check it`,
      stored,
      {
        prefix: 'The SQLite suspension ledger: ',
        details: { hook: 'SuspensionLedger', returned: describeValue(stored) },
      },
    )
  }
  return checkStoredClaim(claim, key, 'SQLite')
}

/**
 * Creates a {@link SqliteSuspensionLedger} over a file path or a better-sqlite3 Database (for instance a
 * SQLite durable store's `database`, so claims live beside the checkpoints). The table is created when
 * missing.
 * @throws `InvalidInputError` for a bad source or options, `DurableStoreError` when the file cannot be opened
 * @example
 * ```ts
 * import { createSqliteDurableStore, createSqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
 * import { defineAgent } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * import type { AgentToolEntry } from '@agent-core/kits/loop'
 * declare const model: ChatModel
 * declare const tools: readonly AgentToolEntry[]
 * const store = createSqliteDurableStore('runs.db')
 * const agent = defineAgent({ model, tools, suspensionLedger: createSqliteSuspensionLedger(store.database) })
 * ```
 */
export function createSqliteSuspensionLedger(
  source: string | SqliteDatabase,
  options: SqliteSuspensionLedgerOptions = {},
): SqliteSuspensionLedger {
  return new SqliteSuspensionLedger(source, options)
}
