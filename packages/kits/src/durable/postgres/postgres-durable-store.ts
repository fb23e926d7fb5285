import {
  AgentCoreError,
  assertFunction,
  ConflictError,
  InvalidStateError,
  raceSignal,
  throwIfAborted,
} from '@agent-core/core'
import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableFencing,
  DurableLease,
  DurableListRequest,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStatus,
  DurableStore,
  DurableTaskListing,
  DurableTaskSummary,
  StoredCheckpoint,
} from '@agent-core/kits/durable'
import type pg from 'pg'
import { parseListRequest } from '../internal/list-request.js'
import {
  assertExpectedVersion,
  deserializeCheckpoint,
  exclusiveOptions,
  leaseLost,
  newOwnerId,
  serializeCheckpoint,
  storedVersion,
  summaryColumns,
  versionConflict,
} from '../internal/store-support.js'
import { acquireAdvisoryLock, releaseAdvisoryLock } from './internal/advisory-lock.js'
import { type PostgresStoreOperation, storeFailure } from './internal/failures.js'
import { resolveOptions } from './internal/options.js'
import { ensureTable } from './internal/schema-setup.js'
import { checkout, LocalQueue, type Session } from './internal/sessions.js'
import { assertTextTaskId } from './internal/values.js'
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
 * - **Fencing** (declared as `fencing`): a fenced save is a compare-and-set on the `version` column
 *   (`UPDATE ... WHERE version = expected`), refused with `ConflictError`. While this store holds a task's
 *   lock, that task's loads and saves run on the lock's own connection, so a save can only commit while the
 *   lock is held; once that connection is lost, the lease's signal aborts and the holder's saves are
 *   refused with `ConflictError` too.
 * - **Listing**: every save copies the checkpoint's `status` and `definitionId` into indexed columns, so
 *   `list({ status: 'running' })` finds what a crash left unfinished.
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
export class PostgresDurableStore implements DurableStore, DurableTaskListing {
  /** The checkpoint table as configured (`name` or `schema.name`), unquoted. */
  readonly tableName: string
  /** Version fencing: a versioned load and a compare-and-set save (see `DurableFencing`). */
  readonly fencing: DurableFencing
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
    this.fencing = Object.freeze({
      load: (taskId: string) => this.#loadVersioned(taskId, `${WHERE}.fencing.load`),
      save: (taskId: string, checkpoint: CheckpointV2, saveOptions: DurableSaveOptions) =>
        this.#saveIfVersion(taskId, checkpoint, saveOptions),
    })
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
    options?: DurableExclusiveOptions,
  ): Promise<T> {
    const where = `${WHERE}.exclusive`
    assertTextTaskId(taskId)
    assertFunction(operation, 'operation')
    const { signal } = exclusiveOptions(options)
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
    const lost = new AbortController()
    const onLost = () =>
      lost.abort(
        leaseLost(
          taskId,
          ownerId,
          `its PostgreSQL connection closed (${describeLoss(session.lost)})`,
          session.lost,
        ),
      )
    if (session.lostSignal.aborted) onLost()
    else session.lostSignal.addEventListener('abort', onLost, { once: true })
    this.#held.set(taskId, { session, ownerId })
    try {
      throwIfAborted(signal, point)
      return await operation(Object.freeze({ taskId, ownerId, signal: lost.signal }))
    } finally {
      session.lostSignal.removeEventListener('abort', onLost)
      this.#held.delete(taskId)
      await releaseAdvisoryLock(session, this.#lockKey(taskId))
      leave()
    }
  }

  /**
   * Reads the task's checkpoint (the stored JSON parsed, unvalidated: the task runner validates it), or
   * `undefined` for an unknown task.
   *
   * @throws `InvalidStateError` when the stored text is not JSON; `DurableStoreError` when PostgreSQL fails
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * const checkpoint = await store.load('order-7')
   * ```
   */
  async load(taskId: string): Promise<unknown> {
    return (await this.#loadVersioned(taskId, `${WHERE}.load`))?.checkpoint
  }

  /**
   * Stores the checkpoint, replacing any earlier one (use `fencing.save` to compare-and-set). Under this
   * store's lock of the task it runs on the lock's connection, and is refused once that connection is lost.
   *
   * @throws `InvalidInputError` for a checkpoint JSON cannot carry; `ConflictError` (`lease-lost`) after the
   *   lock's connection was lost; `DurableStoreError` when PostgreSQL fails
   * @example
   * ```ts no-run
   * import type { CheckpointV2 } from '@agent-core/kits/durable'
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * declare const checkpoint: CheckpointV2
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * await store.save('order-7', checkpoint)
   * ```
   */
  async save(taskId: string, checkpoint: CheckpointV2): Promise<void> {
    const where = `${WHERE}.save`
    assertTextTaskId(taskId)
    const text = serializeCheckpoint(taskId, checkpoint, where)
    const { status, definitionId } = summaryColumns(checkpoint)
    this.#assertOpen(where)
    await this.#ready('save', taskId)
    const held = this.#held.get(taskId)
    if (held !== undefined && held.session.lost !== undefined) throw heldLeaseLost(taskId, held, where)
    await this.#run('save', taskId, held, (client) =>
      client.query(
        `INSERT INTO ${this.#table.sql} AS stored (task_id, version, checkpoint, status, definition_id) VALUES ($1, 1, $2, $3, $4)
         ON CONFLICT (task_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = GREATEST(stored.version, 0) + 1,
           status = EXCLUDED.status, definition_id = EXCLUDED.definition_id, updated_at = now()`,
        [taskId, text, status, definitionId],
      ),
    )
  }

  /**
   * Tasks by status, ordered by task id (byte order), from the indexed `status` column (see
   * `DurableTaskListing`).
   *
   * @throws `InvalidInputError` for a bad request; `DurableStoreError` when PostgreSQL fails
   * @example
   * ```ts no-run
   * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
   * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
   * const unfinished = await store.list({ status: 'running', definitionId: 'fulfil-order' })
   * ```
   */
  async list(request?: DurableListRequest): Promise<readonly DurableTaskSummary[]> {
    const { statuses, definitionId, after, limit } = parseListRequest(request)
    this.#assertOpen(`${WHERE}.list`)
    await this.#ready('list')
    const result = await this.#run('list', undefined, undefined, (client) =>
      client.query<{ task_id: string; status: string; definition_id: string; updated_at_ms: string }>(
        `SELECT task_id, status, definition_id, (extract(epoch FROM updated_at) * 1000)::bigint AS updated_at_ms
         FROM ${this.#table.sql}
         WHERE status = ANY($1::text[]) AND definition_id IS NOT NULL
           AND ($2::text IS NULL OR definition_id = $2) AND ($3::text IS NULL OR task_id COLLATE "C" > $3)
         ORDER BY task_id COLLATE "C" LIMIT $4`,
        [statuses, definitionId ?? null, after ?? null, limit],
      ),
    )
    return result.rows.map((row) => ({
      taskId: row.task_id,
      status: row.status as DurableStatus,
      definitionId: row.definition_id,
      updatedAtMs: Number(row.updated_at_ms),
    }))
  }

  async #loadVersioned(taskId: string, where: string): Promise<StoredCheckpoint | undefined> {
    assertTextTaskId(taskId)
    this.#assertOpen(where)
    await this.#ready('load', taskId)
    const held = this.#held.get(taskId)
    const row = await this.#run('load', taskId, held, async (client) => {
      const result = await client.query<{ checkpoint: string; version: string }>(
        `SELECT checkpoint, version FROM ${this.#table.sql} WHERE task_id = $1`,
        [taskId],
      )
      return result.rows[0]
    })
    if (row === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, row.checkpoint, where),
      version: storedVersion(row.version, taskId, where),
    }
  }

  async #saveIfVersion(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    const where = `${WHERE}.fencing.save`
    assertTextTaskId(taskId)
    const expected = assertExpectedVersion(options)
    const text = serializeCheckpoint(taskId, checkpoint, where)
    const { status, definitionId } = summaryColumns(checkpoint)
    this.#assertOpen(where)
    await this.#ready('save', taskId)
    const held = this.#held.get(taskId)
    if (held !== undefined && held.session.lost !== undefined) throw heldLeaseLost(taskId, held, where)
    const write = async (client: pg.PoolClient) => {
      const result =
        expected === undefined
          ? await client.query<{ version: string }>(
              `INSERT INTO ${this.#table.sql} (task_id, version, checkpoint, status, definition_id) VALUES ($1, 1, $2, $3, $4)
               ON CONFLICT (task_id) DO NOTHING RETURNING version`,
              [taskId, text, status, definitionId],
            )
          : await client.query<{ version: string }>(
              `UPDATE ${this.#table.sql} SET checkpoint = $2, version = version + 1, status = $4, definition_id = $5, updated_at = now()
               WHERE task_id = $1 AND version = $3 RETURNING version`,
              [taskId, text, expected, status, definitionId],
            )
      const written = result.rows[0]
      if (written !== undefined) return { version: storedVersion(written.version, taskId, where) }
      const current = await client.query<{ version: string }>(
        `SELECT version FROM ${this.#table.sql} WHERE task_id = $1`,
        [taskId],
      )
      const actual = current.rows[0] === undefined ? undefined : Number(current.rows[0].version)
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

  async #ready(operation: PostgresStoreOperation, taskId?: string): Promise<void> {
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
    taskId: string | undefined,
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

const WHERE = 'PostgresDurableStore'

function describeLoss(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason)
}

function heldLeaseLost(taskId: string, held: Holder, where: string): ConflictError {
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
