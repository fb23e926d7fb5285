import {
  AgentCoreError,
  assertNonEmptyString,
  assertObject,
  describeValue,
  refuseField,
} from '@agent-core/core'
import { DurableStoreError } from '@agent-core/kits/durable'
import type { SuspensionClaim, SuspensionLedger } from '@agent-core/kits/loop'
import pg from 'pg'
import { checkClaimInput, checkKey, checkStoredClaim } from '../internal/suspension-claim.js'
import { checkOnePool } from './internal/options.js'
import { parseTableName, type TableName } from './table-name.js'

/**
 * Options of {@link createPostgresSuspensionLedger}. Pass exactly one of `pool` and `connectionString`.
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import type { PostgresSuspensionLedgerOptions } from '@agent-core/kits/durable/postgres'
 * const options: PostgresSuspensionLedgerOptions = { pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }
 * ```
 */
export interface PostgresSuspensionLedgerOptions {
  /** The `pg` pool to use; the ledger never ends it. */
  readonly pool?: pg.Pool | undefined
  /** A `postgresql://` URL; the ledger then creates and owns its pool (`close()` ends it). */
  readonly connectionString?: string | undefined
  /** `name` or `schema.name` of the claims table. Default `agent_core_suspension_claims`. */
  readonly tableName?: string | undefined
}

const DEFAULT_TABLE = 'agent_core_suspension_claims'

function failure(error: unknown, what: string): AgentCoreError {
  if (AgentCoreError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  return new DurableStoreError(
    `PostgreSQL suspension ledger: ${what} failed: ${message}. Check the connection, the table and the privileges of the connecting role, then resume again (a claim is one statement: it either holds or was not made).`,
    { cause: error, details: { store: 'postgres', operation: what } },
  )
}

/**
 * A suspension ledger of the loop kit (`SuspensionLedger` of `@agent-core/kits/loop`) in PostgreSQL: workers
 * on many machines resume each suspended run once. A claim is one insert that does nothing on a conflict
 * (`ON CONFLICT DO NOTHING RETURNING`) on the suspension's primary key (a concurrent claim of the same key waits for the first to
 * commit, then inserts nothing), and the losing claim reads the winner back. The table is created on first
 * use when missing.
 *
 * @example
 * ```ts no-run
 * import { PostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
 * const ledger = new PostgresSuspensionLedger({ connectionString: process.env.DATABASE_URL })
 * await ledger.get('run_1/suspension_1') // undefined
 * await ledger.close()
 * ```
 */
export class PostgresSuspensionLedger implements SuspensionLedger {
  /** The claims table, as given. */
  readonly tableName: string
  readonly #table: TableName
  readonly #pool: pg.Pool
  readonly #ownsPool: boolean
  #schema: Promise<void> | undefined
  #closed = false

  constructor(options: PostgresSuspensionLedgerOptions) {
    assertObject(options, 'options')
    const { pool, connectionString, tableName } = options
    for (const key of Object.keys(options)) {
      if (!['pool', 'connectionString', 'tableName'].includes(key)) {
        refuseField(
          'input',
          `options.${key}`,
          `is not an option of the PostgreSQL suspension ledger; the options are pool, connectionString and tableName`,
          (options as Record<string, unknown>)[key],
        )
      }
    }
    checkOnePool(pool, connectionString, 'PostgreSQL suspension ledger: ')
    if (
      pool !== undefined &&
      (typeof pool !== 'object' || pool === null || typeof (pool as { query?: unknown }).query !== 'function')
    ) {
      refuseField('input', 'options.pool', `must be a pg.Pool, but got ${describeValue(pool)}`, pool, {
        prefix: 'PostgreSQL suspension ledger: ',
      })
    }
    if (connectionString !== undefined) assertNonEmptyString(connectionString, 'options.connectionString')
    this.#table = parseTableName(tableName ?? DEFAULT_TABLE)
    this.tableName = this.#table.text
    if (pool !== undefined) {
      this.#pool = pool as pg.Pool
      this.#ownsPool = false
    } else {
      this.#pool = new pg.Pool({ connectionString, keepAlive: true })
      // Idle connections of a pool we own report server restarts here; the next query reconnects.
      this.#pool.on('error', () => {})
      this.#ownsPool = true
    }
  }

  /**
   * Creates the claims table when missing (once per ledger; concurrent creators are fine). Claims call it
   * first; call it at startup to surface connection or privilege problems early.
   * @throws `DurableStoreError` when PostgreSQL fails (the next call tries again)
   * @example
   * ```ts no-run
   * import { createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
   * await createPostgresSuspensionLedger({ connectionString: process.env.DATABASE_URL }).ensureSchema()
   * ```
   */
  ensureSchema(): Promise<void> {
    this.#schema ??= this.#create().catch((error: unknown) => {
      this.#schema = undefined
      throw failure(error, 'ensure-schema')
    })
    return this.#schema
  }

  async #create(): Promise<void> {
    const client = await this.#pool.connect()
    try {
      await client.query('BEGIN')
      // Two processes creating the same table at once would collide on the catalog: serialize them.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agent-core:${this.#table.text}`])
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#table.sql} (
          suspension_key text PRIMARY KEY,
          run_id text NOT NULL,
          claim_id text NOT NULL,
          task_id text,
          claimed_at_ms bigint NOT NULL,
          claim jsonb NOT NULL
        )`,
      )
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release()
    }
  }

  #open(): void {
    if (this.#closed) {
      refuseField('input', 'ledger', 'was closed; create a new one to claim suspensions again', this, {
        prefix: 'PostgreSQL suspension ledger: ',
        received: 'a closed ledger',
      })
    }
  }

  /**
   * Stores `claim` unless its key was claimed; resolves with the claim that holds.
   * @throws `InvalidInputError` for a malformed claim, `DurableStoreError` when PostgreSQL fails,
   *   `InvalidOutputError` for a stored row that is not a claim
   * @example
   * ```ts no-run
   * import { createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
   * const ledger = createPostgresSuspensionLedger({ connectionString: process.env.DATABASE_URL })
   * const held = await ledger.claim({ key: 'run_1/s_1', runId: 'run_1', claimId: 'c_1', outcomes: {}, claimedAtMs: 0 })
   * ```
   */
  async claim(claim: SuspensionClaim): Promise<SuspensionClaim> {
    this.#open()
    checkClaimInput(claim)
    await this.ensureSchema()
    try {
      const inserted = await this.#pool.query<{ claim: unknown }>(
        `INSERT INTO ${this.#table.sql} (suspension_key, run_id, claim_id, task_id, claimed_at_ms, claim)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (suspension_key) DO NOTHING RETURNING claim`,
        [
          claim.key,
          claim.runId,
          claim.claimId,
          claim.taskId ?? null,
          claim.claimedAtMs,
          JSON.stringify(claim),
        ],
      )
      const row =
        inserted.rows[0] ??
        (
          await this.#pool.query<{ claim: unknown }>(
            `SELECT claim FROM ${this.#table.sql} WHERE suspension_key = $1`,
            [claim.key],
          )
        ).rows[0]
      return readBack(row?.claim, claim.key)
    } catch (error) {
      throw failure(error, 'claim')
    }
  }

  /**
   * The claim of `key`, or `undefined`.
   * @throws `InvalidInputError` for a malformed key, `DurableStoreError` when PostgreSQL fails
   * @example
   * ```ts no-run
   * import { createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
   * await createPostgresSuspensionLedger({ connectionString: process.env.DATABASE_URL }).get('run_1/s_1')
   * ```
   */
  async get(key: string): Promise<SuspensionClaim | undefined> {
    this.#open()
    checkKey(key)
    await this.ensureSchema()
    try {
      const result = await this.#pool.query<{ claim: unknown }>(
        `SELECT claim FROM ${this.#table.sql} WHERE suspension_key = $1`,
        [key],
      )
      const row = result.rows[0]
      return row === undefined ? undefined : readBack(row.claim, key)
    } catch (error) {
      throw failure(error, 'get')
    }
  }

  /**
   * Stops accepting calls and ends the pool if the ledger created it; a pool passed in stays open.
   * @example
   * ```ts no-run
   * import { createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
   * await createPostgresSuspensionLedger({ connectionString: process.env.DATABASE_URL }).close()
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#ownsPool) await this.#pool.end()
  }
}

function readBack(stored: unknown, key: string): SuspensionClaim {
  if (stored === undefined) {
    refuseField(
      'output',
      'claim',
      `of "${key}" could not be read back after the insert; was its row deleted? Claims must never be deleted`,
      stored,
      {
        prefix: 'PostgreSQL suspension ledger: ',
        received: 'no row',
        details: { hook: 'SuspensionLedger', returned: 'no row' },
      },
    )
  }
  return checkStoredClaim(stored, key, 'PostgreSQL')
}

/**
 * Creates a {@link PostgresSuspensionLedger} over a `pg` pool or a connection string; use the pool of the
 * PostgreSQL durable store so claims live in the same database as the checkpoints.
 * @throws `InvalidInputError` for options that are not exactly one of `pool` and `connectionString`, or a
 *   bad table name
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { createPostgresDurableStore, createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
 * import { defineAgent } from '@agent-core/kits/loop'
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = createPostgresDurableStore({ pool })
 * const agent = defineAgent({ model, tools, suspensionLedger: createPostgresSuspensionLedger({ pool }) })
 * ```
 */
export function createPostgresSuspensionLedger(
  options: PostgresSuspensionLedgerOptions,
): PostgresSuspensionLedger {
  return new PostgresSuspensionLedger(options)
}
