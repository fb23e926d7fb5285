import {
  AgentCoreError,
  assertFunction,
  ConflictError,
  describeValue,
  InvalidInputError,
  InvalidStateError,
  isAbortSignal,
  raceSignal,
  throwIfAborted,
} from '@agent-core/core'
import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableLease,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStore,
  StoredCheckpoint,
} from '@agent-core/kits/durable'
import type pg from 'pg'
import {
  assertExpectedVersion,
  deserializeCheckpoint,
  newOwnerId,
  serializeCheckpoint,
  versionConflict,
} from '../internal/store-support.js'
import { acquireAdvisoryLock, releaseAdvisoryLock } from './internal/advisory-lock.js'
import { type PostgresStoreOperation, storeFailure } from './internal/failures.js'
import { resolveOptions } from './internal/options.js'
import { ensureTable } from './internal/schema-setup.js'
import { checkout, LocalQueue, type Session } from './internal/sessions.js'
import { assertTextTaskId, parseVersion } from './internal/values.js'
import type { TableName } from './table-name.js'

/**
 * Options of {@link createPostgresDurableStore}. Pass exactly one of `pool` and `connectionString`.
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { createPostgresDurableStore, type PostgresDurableStoreOptions } from '@agent-core/kits/durable/postgres'
 *
 * const options: PostgresDurableStoreOptions = {
 *   pool: new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 }),
 *   tableName: 'jobs.durable_checkpoints',
 *   createTable: false,
 * }
 * const store = createPostgresDurableStore(options)
 * ```
 */
export interface PostgresDurableStoreOptions {
  /**
   * The `pg` pool to use. The store never ends it (`close()` leaves it open) and does not listen to its
   * `'error'` event: as with any `pg` pool, the App does. Each running `exclusive` operation holds one of
   * its connections, so size it for the number of tasks one process runs at once (plus one).
   */
  readonly pool?: pg.Pool | undefined
  /** A `postgresql://` URL; the store then creates and owns its pool (`close()` ends it). */
  readonly connectionString?: string | undefined
  /**
   * The checkpoint table: `name` or `schema.name` of ASCII letters, digits and underscores. Default
   * `agent_core_durable_checkpoints`. It also namespaces the advisory locks, so stores on different
   * tables never block each other.
   */
  readonly tableName?: string | undefined
  /**
   * Create the table (if missing) before the first load or save. Default `true`. Set `false` when the
   * connecting role may not run DDL and the table comes from a migration ({@link postgresDurableTableSql}).
   */
  readonly createTable?: boolean | undefined
  /**
   * How long one server-side wait for a task's lock lasts before the store checks in again, in
   * milliseconds (10 to 60000, default 1000). Waiting itself continues until the lock is granted or the
   * signal aborts; this only bounds how long an abandoned wait can linger on the server.
   */
  readonly lockWaitSliceMs?: number | undefined
}

interface Holder {
  readonly session: Session
  readonly ownerId: string
}

/**
 * A {@link DurableStore} in PostgreSQL (through `pg`), for many workers on many machines sharing one
 * database.
 *
 * - **Storage**: one row per task in a table it creates on first use (see {@link PostgresDurableStoreOptions.createTable}
 *   and {@link PostgresDurableStore.ensureSchema}); the checkpoint is JSON text, stored exactly as serialized.
 * - **Exclusive**: a session-level advisory lock keyed by table and task id, taken on a pooled connection
 *   that stays checked out while the operation runs. Other processes wait on the server; calls of this
 *   store wait in a local queue first. If the connection dies the server drops the lock, so a crashed
 *   worker never keeps a task locked. The connection goes back to the pool only after a confirmed unlock;
 *   otherwise it is closed.
 * - **Fencing**: a save is a compare-and-set on the `version` column (`UPDATE ... WHERE version =
 *   expected`), refused with `ConflictError`. While this store holds a task's lock, that task's loads and
 *   saves run on the lock's own connection, so a save can only commit while the lock is held; once that
 *   connection is lost, the holder's saves are refused with `ConflictError` too.
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { PostgresDurableStore } from '@agent-core/kits/durable/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = new PostgresDurableStore({ pool, tableName: 'durable_checkpoints' })
 * await store.ensureSchema()
 * const stored = await store.exclusive('order-7', () => store.load('order-7'))
 * ```
 */
export class PostgresDurableStore implements DurableStore {
  /** The checkpoint table as configured (`name` or `schema.name`), unquoted. */
  readonly tableName: string
  readonly #table: TableName
  readonly #pool: pg.Pool
  readonly #ownsPool: boolean
  readonly #createTable: boolean
  readonly #sliceMs: number
  readonly #queue = new LocalQueue()
  readonly #held = new Map<string, Holder>()
  #schema: Promise<void> | undefined
  #closed = false

  constructor(options: PostgresDurableStoreOptions) {
    const resolved = resolveOptions(options)
    this.#table = resolved.table
    this.tableName = resolved.table.text
    this.#createTable = resolved.createTable
    this.#sliceMs = resolved.lockWaitSliceMs
    this.#pool = resolved.pool
    this.#ownsPool = resolved.ownsPool
  }

  /**
   * Creates the checkpoint table if it does not exist and checks that an existing one has the columns the
   * store needs. Concurrent calls from many processes are safe (they take a transaction-scoped advisory
   * lock around the DDL). With `createTable` (the default) the first load or save calls it; calling it
   * at startup surfaces permission or connection problems early. Resolves once per store.
   *
   * @throws `InvalidStateError` when the table exists with other columns; `DurableStoreError` when
   *   PostgreSQL fails (the next call tries again)
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * await store.ensureSchema()
   * ```
   */
  ensureSchema(): Promise<void> {
    this.#schema ??= ensureTable(this.#pool, this.#table).catch((error: unknown) => {
      this.#schema = undefined
      throw error
    })
    return this.#schema
  }

  /**
   * Runs `operation` while holding the task's advisory lock, which no other `exclusive` call on the same
   * table and task holds at the same time, in any process sharing the database. Waits for the lock until it
   * is granted or `options.signal` aborts (`AbortedError`); an operation that started is never interrupted.
   * Returns or rethrows the operation's outcome, then releases the lock (or closes the connection when the
   * release cannot be confirmed). Calls of one store on one task queue in process, so each running
   * operation holds exactly one pooled connection, loads and saves of that task included.
   *
   * @throws `InvalidInputError` for a bad task id, operation or signal; `DurableStoreError` when the lock
   *   cannot be taken (connection failure)
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * const version = await store.exclusive('order-7', async (lease) => (await store.load(lease.taskId))?.version, {
   *   signal: AbortSignal.timeout(5000),
   * })
   * ```
   */
  async exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options: DurableExclusiveOptions = {},
  ): Promise<T> {
    const where = 'PostgresDurableStore.exclusive'
    assertTextTaskId(taskId, where)
    assertFunction(operation, `${where} operation`)
    if (typeof options !== 'object' || options === null) {
      throw new InvalidInputError(
        `${where}: options must be an object such as { signal }, but got ${describeValue(options)}.`,
        {
          details: { name: 'options', received: describeValue(options) },
        },
      )
    }
    const signal = options.signal
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new InvalidInputError(
        `${where}: options.signal must be an AbortSignal, but got ${describeValue(signal)}.`,
        {
          details: { name: 'signal', received: describeValue(signal) },
        },
      )
    }
    const point = `waiting for the lease of task "${taskId}"`
    throwIfAborted(signal, point)
    this.#assertOpen(where)
    // The table is made before the lock connection is taken, so a pool of one connection is enough.
    await raceSignal(this.#ready('lock', taskId), signal, point)
    const leave = await this.#queue.enter(taskId, signal, point)
    let session: Session
    try {
      session = await acquireAdvisoryLock({
        pool: this.#pool,
        key: this.#lockKey(taskId),
        taskId,
        sliceMs: this.#sliceMs,
        signal,
        point,
      })
    } catch (error) {
      leave()
      throw error
    }
    const ownerId = newOwnerId('postgres')
    this.#held.set(taskId, { session, ownerId })
    try {
      throwIfAborted(signal, point)
      return await operation(Object.freeze({ taskId, ownerId }))
    } finally {
      this.#held.delete(taskId)
      await releaseAdvisoryLock(session, this.#lockKey(taskId))
      leave()
    }
  }

  /**
   * Reads the task's checkpoint and fencing token, or `undefined` for an unknown task. The checkpoint is the
   * stored JSON parsed, unvalidated (the task runner validates it).
   *
   * @throws `InvalidStateError` when the stored text is not JSON; `DurableStoreError` when PostgreSQL fails
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * const stored = await store.load('order-7')
   * console.log(stored?.version, stored?.checkpoint)
   * ```
   */
  async load(taskId: string): Promise<StoredCheckpoint | undefined> {
    const where = 'PostgresDurableStore.load'
    assertTextTaskId(taskId, where)
    this.#assertOpen(where)
    await this.#ready('load', taskId)
    const held = this.#held.get(taskId)
    const read = async (client: pg.PoolClient) => {
      const result = await client.query<{ checkpoint: string; version: string }>(
        `SELECT checkpoint, version FROM ${this.#table.sql} WHERE task_id = $1`,
        [taskId],
      )
      return result.rows[0]
    }
    const row = await this.#run('load', taskId, held, read)
    if (row === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, row.checkpoint, where),
      version: parseVersion(row.version, taskId, where),
    }
  }

  async save(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    const where = 'PostgresDurableStore.save'
    assertTextTaskId(taskId, where)
    const expected = assertExpectedVersion(options, where)
    const text = serializeCheckpoint(taskId, checkpoint, where)
    this.#assertOpen(where)
    await this.#ready('save', taskId)
    const held = this.#held.get(taskId)
    if (held !== undefined && held.session.lost !== undefined) throw leaseLost(taskId, held, where)
    const write = async (client: pg.PoolClient) => {
      const result =
        expected === undefined
          ? await client.query<{ version: string }>(
              `INSERT INTO ${this.#table.sql} (task_id, version, checkpoint) VALUES ($1, 1, $2)
               ON CONFLICT (task_id) DO NOTHING RETURNING version`,
              [taskId, text],
            )
          : await client.query<{ version: string }>(
              `UPDATE ${this.#table.sql} SET checkpoint = $2, version = version + 1, updated_at = now()
               WHERE task_id = $1 AND version = $3 RETURNING version`,
              [taskId, text, expected],
            )
      const written = result.rows[0]
      if (written !== undefined) return { version: parseVersion(written.version, taskId, where) }
      const current = await client.query<{ version: string }>(
        `SELECT version FROM ${this.#table.sql} WHERE task_id = $1`,
        [taskId],
      )
      const actual =
        current.rows[0] === undefined ? undefined : parseVersion(current.rows[0].version, taskId, where)
      return versionConflict(taskId, expected, actual, where)
    }
    const outcome = await this.#run('save', taskId, held, write)
    if (outcome instanceof ConflictError) throw outcome
    return outcome
  }

  /**
   * Stops accepting calls and ends the pool if the store created it (from `connectionString`); a pool
   * passed in stays open. Operations already running finish first only if you await them before closing.
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * try {
   *   await store.ensureSchema()
   * } finally {
   *   await store.close()
   * }
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (!this.#ownsPool) return
    try {
      await this.#pool.end()
    } catch (error) {
      throw storeFailure(error, 'close')
    }
  }

  #assertOpen(where: string): void {
    if (this.#closed) {
      throw new InvalidStateError(`${where}: the store was closed. Create a new store to keep working.`, {
        details: { reason: 'closed' },
      })
    }
  }

  async #ready(operation: PostgresStoreOperation, taskId: string): Promise<void> {
    if (!this.#createTable) return
    try {
      await this.ensureSchema()
    } catch (error) {
      throw storeFailure(error, operation, taskId)
    }
  }

  /**
   * Runs `work` on the lock connection when this store holds the task's lock and the connection is alive,
   * otherwise on a connection of its own from the pool.
   */
  async #run<T>(
    operation: PostgresStoreOperation,
    taskId: string,
    held: Holder | undefined,
    work: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    if (held !== undefined && held.session.lost === undefined) {
      try {
        return await work(held.session.client)
      } catch (error) {
        throw storeFailure(error, operation, taskId)
      }
    }
    let session: Session
    try {
      session = await checkout(this.#pool, undefined, operation)
    } catch (error) {
      throw storeFailure(error, 'connect', taskId)
    }
    try {
      const result = await work(session.client)
      session.release()
      return result
    } catch (error) {
      if (AgentCoreError.isInstance(error)) session.release()
      else session.destroy(error)
      throw storeFailure(error, operation, taskId)
    }
  }

  /** The advisory lock's name: table and task, so stores on different tables never block each other. */
  #lockKey(taskId: string): string {
    return `${this.#table.text}:${taskId}`
  }
}

function leaseLost(taskId: string, held: Holder, where: string): ConflictError {
  const reason = held.session.lost instanceof Error ? held.session.lost.message : String(held.session.lost)
  return new ConflictError(
    `${where}: the lease of task "${taskId}" was lost (its PostgreSQL connection closed: ${reason}), so another worker may own the task now. Nothing was written; run the task again to continue from the stored checkpoint.`,
    { cause: held.session.lost, details: { taskId, ownerId: held.ownerId, reason: 'lease-lost' } },
  )
}

/**
 * Creates a {@link PostgresDurableStore} over a `pg` pool or a connection string.
 *
 * @throws `InvalidInputError` for options that are not exactly one of `pool` and `connectionString`, a
 *   table name that is not a plain identifier, or a `lockWaitSliceMs` out of range
 * @example
 * ```ts no-run
 * import { defineDurableTask } from '@agent-core/kits/durable'
 * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
 * import pg from 'pg'
 *
 * const store = createPostgresDurableStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
 * const task = defineDurableTask({
 *   id: 'count',
 *   revision: '1',
 *   isState: (value): value is number => typeof value === 'number',
 *   steps: [{ id: 'add', replayPolicy: 'safe', run: (n) => n + 1 }],
 * })
 * await task.run({ taskId: 'count-1', store, input: 1 })
 * ```
 */
export function createPostgresDurableStore(options: PostgresDurableStoreOptions): PostgresDurableStore {
  return new PostgresDurableStore(options)
}
