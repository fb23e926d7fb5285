import {
  AgentCoreError,
  assertFunction,
  assertObject,
  describeValue,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableFencing,
  DurableLease,
  DurableLeaseHolder,
  DurableListRequest,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStatus,
  DurableStore,
  DurableTaskListing,
  DurableTaskSummary,
  StoredCheckpoint,
} from '@agent-core/kits/durable'
import { DurableStoreError } from '@agent-core/kits/durable'
import Database from 'better-sqlite3'
import { parseListRequest } from '../internal/list-request.js'
import {
  assertExpectedVersion,
  assertTaskId,
  deserializeCheckpoint,
  exclusiveOptions,
  newOwnerId,
  optionalPositiveInteger,
  reportWait,
  serializeCheckpoint,
  storedVersion,
  versionConflict,
} from '../internal/store-support.js'
import {
  acquireLease,
  HeldLease,
  type IdleLease,
  isBusy,
  type LeaseTiming,
  reuseIdleLease,
} from './sqlite-lease.js'
import { prepareSqliteSchema, type SqliteStatements } from './sqlite-schema.js'

/**
 * A better-sqlite3 database handle.
 * @example
 * ```ts
 * import Database from 'better-sqlite3'
 * import { createSqliteDurableStore, type SqliteDatabase } from '@agent-core/kits/durable/sqlite'
 * const database: SqliteDatabase = new Database(':memory:')
 * const store = createSqliteDurableStore(database)
 * ```
 */
export type SqliteDatabase = Database.Database

/**
 * Options of {@link createSqliteDurableStore}.
 * @example
 * ```ts
 * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
 * const store = createSqliteDurableStore('tasks.db', { leaseMs: 10_000, tablePrefix: 'jobs', synchronous: 'normal' })
 * ```
 */
export interface SqliteDurableStoreOptions {
  /** How long a lease lives without renewal; a crashed holder blocks its task at most this long. Default 30000. */
  readonly leaseMs?: number | undefined
  /** How often a live holder renews its lease. Default `leaseMs / 3`. */
  readonly renewIntervalMs?: number | undefined
  /** First wait between attempts to take a held lease; doubles up to `maxPollMs`. Default 5. */
  readonly pollMs?: number | undefined
  /** Longest wait between attempts to take a held lease. Default 250. */
  readonly maxPollMs?: number | undefined
  /** Prefix of the two tables (`<prefix>_checkpoints`, `<prefix>_leases`). Default `agent_core_durable`. */
  readonly tablePrefix?: string | undefined
  /** Only when the store opens the file: `PRAGMA synchronous`. Default `full` (a commit survives power loss). */
  readonly synchronous?: 'full' | 'normal' | undefined
  /** Only when the store opens the file: how long a statement waits for another connection's write lock. Default 5000. */
  readonly busyTimeoutMs?: number | undefined
}

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/

/** True for a better-sqlite3 Database (what the store and the suspension ledger accept as a source). */
export function isDatabase(value: unknown): value is SqliteDatabase {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SqliteDatabase).prepare === 'function' &&
    typeof (value as SqliteDatabase).exec === 'function' &&
    typeof (value as SqliteDatabase).pragma === 'function'
  )
}

/**
 * A {@link DurableStore} in a SQLite file through better-sqlite3: the embedded default for Apps and
 * examples. Checkpoints are JSON text with a fencing version (it declares version fencing); `exclusive` is a
 * lease row (owner, expiry, host and process id) taken with one atomic statement, waited for with backoff,
 * renewed while the operation runs and released at the end, so it holds across processes sharing the file.
 * A released row stays this store's until the next turn of the event loop: a hold that starts before then
 * takes it over with one write (a new owner, or the row moved to its task) instead of a delete and an
 * insert; then it is deleted. A waiter reports who holds the lease; a crashed holder's lease expires, and is taken over at once when
 * the holder was a process on this host that no longer exists. When the store opens the file itself it
 * enables WAL. It lists tasks by status.
 *
 * @example
 * ```ts
 * import { SqliteDurableStore } from '@agent-core/kits/durable/sqlite'
 * const store = new SqliteDurableStore(':memory:')
 * await store.load('nothing') // undefined
 * store.close()
 * ```
 */
export class SqliteDurableStore implements DurableStore, DurableTaskListing {
  /** The underlying database (the one passed in, or the one the store opened). */
  readonly database: SqliteDatabase
  /** Version fencing: a versioned load and a compare-and-set save (see `DurableFencing`). */
  readonly fencing: DurableFencing
  /** `exclusive` reports waits through `options.onWait`. */
  readonly reportsLeaseWaits = true
  readonly #owned: boolean
  readonly #timing: LeaseTiming
  readonly #queues = new Map<string, Promise<unknown>>()
  /** The lease this store holds per task, and the callers of this store waiting for it. */
  readonly #active = new Map<string, HeldLease>()
  readonly #localWaiters = new Map<string, Set<(holder: DurableLeaseHolder) => void>>()
  /**
   * Lease rows of finished holds, by task: the next hold of this store takes one over with one write
   * instead of a delete and an insert; whatever is left is deleted at the next turn of the event loop.
   */
  readonly #idle = new Map<string, IdleLease>()
  #idleFlush: ReturnType<typeof setImmediate> | undefined
  readonly #sql: SqliteStatements

  constructor(source: string | SqliteDatabase, options: SqliteDurableStoreOptions = {}) {
    assertObject(options, 'options')
    const leaseMs = optionalPositiveInteger(options.leaseMs, 'options.leaseMs', 30_000)
    const renewMs = optionalPositiveInteger(
      options.renewIntervalMs,
      'options.renewIntervalMs',
      Math.max(1, Math.floor(leaseMs / 3)),
    )
    const pollMs = optionalPositiveInteger(options.pollMs, 'options.pollMs', 5)
    const maxPollMs = Math.max(pollMs, optionalPositiveInteger(options.maxPollMs, 'options.maxPollMs', 250))
    this.#timing = { leaseMs, renewMs, pollMs, maxPollMs }
    const busyTimeoutMs = optionalPositiveInteger(options.busyTimeoutMs, 'options.busyTimeoutMs', 5_000)
    const prefix = options.tablePrefix ?? 'agent_core_durable'
    if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
      refuseField(
        'input',
        'options.tablePrefix',
        `must be a SQL identifier (a letter or underscore, then up to 40 letters, digits or underscores), but got ${describeValue(prefix)}`,
        prefix,
      )
    }
    const synchronous = options.synchronous ?? 'full'
    if (synchronous !== 'full' && synchronous !== 'normal') {
      refuseField(
        'input',
        'options.synchronous',
        `must be 'full' or 'normal', but got ${describeValue(synchronous)}`,
        synchronous,
      )
    }
    if (typeof source === 'string') {
      if (source.length === 0)
        refuseField(
          'input',
          'source',
          'must be a file path (or ":memory:"), but got an empty string',
          source,
          { prefix: 'The SQLite durable store: ' },
        )
      try {
        this.database = new Database(source)
        this.database.pragma('journal_mode = WAL')
        this.database.pragma(`synchronous = ${synchronous.toUpperCase()}`)
        this.database.pragma(`busy_timeout = ${busyTimeoutMs}`)
      } catch (error) {
        throw new DurableStoreError(
          `The SQLite durable store could not open ${JSON.stringify(source)}. Check the path and its permissions.`,
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
        `must be a file path or a better-sqlite3 Database, but got ${describeValue(source)}`,
        source,
        { prefix: 'The SQLite durable store: ' },
      )
    }
    try {
      this.#sql = prepareSqliteSchema(this.database, prefix)
    } catch (error) {
      if (this.#owned) this.database.close()
      throw new DurableStoreError(
        `The SQLite durable store could not create or update its tables "${prefix}_checkpoints" and "${prefix}_leases". Check the database is writable.`,
        { cause: error, details: { tablePrefix: prefix } },
      )
    }
    this.fencing = Object.freeze({
      load: (taskId: string) => this.#loadVersioned(taskId, `${WHERE}.fencing.load`),
      save: (taskId: string, checkpoint: CheckpointV2, saveOptions: DurableSaveOptions) =>
        this.#saveIfVersion(taskId, checkpoint, saveOptions),
    })
  }

  /**
   * Runs `operation` under the task's lease row. The lease's signal aborts when a renewal finds the lease
   * taken over or cannot renew it; `options.onWait` hears who holds the lease while this call waits.
   * @example
   * ```ts
   * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
   * const store = createSqliteDurableStore(':memory:')
   * await store.exclusive('t1', async (lease) => lease.ownerId, { onWait: (wait) => console.log(wait.holder) })
   * store.close()
   * ```
   */
  async exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options?: DurableExclusiveOptions,
  ): Promise<T> {
    assertTaskId(taskId)
    assertFunction(operation, 'operation')
    const { signal, onWait } = exclusiveOptions(options)
    throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
    const report = waitReporter(taskId, onWait)
    // Callers in this process queue here first, so only one of them polls the lease row.
    const previous = this.#queues.get(taskId) ?? Promise.resolve()
    let leave!: () => void
    const mine = new Promise<void>((resolve) => {
      leave = resolve
    })
    const tail = previous.then(() => mine)
    this.#queues.set(taskId, tail)
    try {
      await this.#waitInProcess(taskId, previous, signal, report)
      const ownerId = newOwnerId('sqlite')
      const { takenOver } = this.#reuseIdle(taskId, ownerId)
        ? {}
        : await acquireLease(this.#sql, this.#timing, taskId, ownerId, signal, report ?? noReport, (error) =>
            storeFailure('lock', taskId, error),
          )
      const held = new HeldLease(this.#sql, this.#timing, taskId, ownerId, takenOver)
      this.#active.set(taskId, held)
      for (const waiter of this.#localWaiters.get(taskId) ?? []) waiter(held.holder())
      try {
        return await operation(held.lease)
      } finally {
        if (this.#active.get(taskId) === held) this.#active.delete(taskId)
        const idle = held.end()
        if (idle !== undefined) this.#keepIdle(idle)
      }
    } finally {
      leave()
      if (this.#queues.get(taskId) === tail) this.#queues.delete(taskId)
    }
  }

  /**
   * The stored checkpoint (parsed, unvalidated), or `undefined`.
   * @example
   * ```ts
   * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
   * const store = createSqliteDurableStore(':memory:')
   * await store.load('t1') // undefined
   * store.close()
   * ```
   */
  async load(taskId: string): Promise<unknown> {
    return (await this.#loadVersioned(taskId, `${WHERE}.load`))?.checkpoint
  }

  /**
   * Stores the checkpoint, replacing any earlier one (use {@link SqliteDurableStore.fencing} to
   * compare-and-set).
   * @example
   * ```ts
   * import type { CheckpointV2 } from '@agent-core/kits/durable'
   * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
   * declare const checkpoint: CheckpointV2
   * const store = createSqliteDurableStore(':memory:')
   * await store.save('t1', checkpoint)
   * store.close()
   * ```
   */
  async save(taskId: string, checkpoint: CheckpointV2): Promise<void> {
    assertTaskId(taskId)
    const body = serializeCheckpoint(taskId, checkpoint, `${WHERE}.save`)
    this.#run('save', taskId, () => this.#sql.upsert.run(taskId, body, Date.now()))
  }

  /**
   * Tasks by status, ordered by task id (see `DurableTaskListing`); served by an index on the status.
   * @example
   * ```ts
   * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
   * const store = createSqliteDurableStore(':memory:')
   * const unfinished = await store.list({ status: 'running' })
   * store.close()
   * ```
   */
  async list(request?: DurableListRequest): Promise<readonly DurableTaskSummary[]> {
    const { statuses, definitionId, after, limit } = parseListRequest(request)
    const rows = this.#run('list', '*', () =>
      this.#sql.list.all({
        statuses: JSON.stringify(statuses),
        definitionId: definitionId ?? null,
        after: after ?? null,
        limit,
      }),
    )
    return rows.map((row) => ({
      taskId: row.task_id,
      status: row.status as DurableStatus,
      definitionId: row.definition_id,
      updatedAtMs: row.updated_at_ms,
    }))
  }

  /**
   * Deletes the lease rows of finished holds, then closes the database when the store opened it; a
   * database passed in stays open.
   */
  close(): void {
    this.#flushIdle()
    if (this.#owned && this.database.open) this.database.close()
  }

  /**
   * Takes the lease of `taskId` with a row of a finished hold (the task's own first, else the oldest):
   * one write. False when there is none or none could be moved (the caller then takes the lease anew).
   */
  #reuseIdle(taskId: string, ownerId: string): boolean {
    const idle = this.#idle.get(taskId) ?? this.#idle.values().next().value
    if (idle === undefined) return false
    try {
      if (!reuseIdleLease(this.#sql, this.#timing, idle, taskId, ownerId)) return false
    } catch (error) {
      if (isBusy(error)) return false
      throw storeFailure('lock', taskId, error)
    }
    this.#idle.delete(idle.taskId)
    return true
  }

  /** Keeps the row of a finished hold for the next hold, and schedules the deletion of what is left. */
  #keepIdle(idle: IdleLease): void {
    this.#idle.set(idle.taskId, idle)
    if (this.#idleFlush === undefined) this.#idleFlush = setImmediate(() => this.#flushIdle())
  }

  /** Deletes the idle rows still this store's (a failed delete leaves the row to expire on its own). */
  #flushIdle(): void {
    if (this.#idleFlush !== undefined) clearImmediate(this.#idleFlush)
    this.#idleFlush = undefined
    if (!this.database.open) {
      this.#idle.clear()
      return
    }
    for (const idle of this.#idle.values()) {
      try {
        this.#sql.release.run(idle.taskId, idle.ownerId)
      } catch {
        // The lease expires on its own; fencing protects the checkpoint meanwhile.
      }
    }
    this.#idle.clear()
  }

  async #loadVersioned(taskId: string, where: string): Promise<StoredCheckpoint | undefined> {
    assertTaskId(taskId)
    const row = this.#run('load', taskId, () => this.#sql.load.get(taskId))
    if (row === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, row.body, where),
      version: storedVersion(row.version, taskId, where),
    }
  }

  async #saveIfVersion(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    assertTaskId(taskId)
    const expected = assertExpectedVersion(options)
    const body = serializeCheckpoint(taskId, checkpoint, `${WHERE}.fencing.save`)
    const now = Date.now()
    const changes = this.#run('save', taskId, () =>
      expected === undefined
        ? this.#sql.insert.run(taskId, body, now).changes
        : this.#sql.update.run(body, now, taskId, expected).changes,
    )
    if (changes === 1) return { version: expected === undefined ? 1 : expected + 1 }
    const actual = this.#run('save', taskId, () => this.#sql.version.get(taskId))?.version
    throw versionConflict(taskId, expected, actual, `${WHERE}.fencing.save`)
  }

  /** Waits for the earlier callers of this store, reporting each lease they take while this call waits. */
  async #waitInProcess(
    taskId: string,
    previous: Promise<unknown>,
    signal: AbortSignal | undefined,
    report: ((holder: DurableLeaseHolder) => void) | undefined,
  ): Promise<void> {
    if (report === undefined) return waitOrAbort(previous, signal, taskId)
    let waiters = this.#localWaiters.get(taskId)
    if (waiters === undefined) {
      waiters = new Set()
      this.#localWaiters.set(taskId, waiters)
    }
    waiters.add(report)
    const active = this.#active.get(taskId)
    if (active !== undefined) report(active.holder())
    try {
      await waitOrAbort(previous, signal, taskId)
    } finally {
      waiters.delete(report)
      if (waiters.size === 0) this.#localWaiters.delete(taskId)
    }
  }

  #run<T>(operation: string, taskId: string, body: () => T): T {
    try {
      return body()
    } catch (error) {
      throw storeFailure(operation, taskId, error)
    }
  }
}

const WHERE = 'SqliteDurableStore'

function noReport(): void {}

/** Reports each new holder to `onWait` once (or nothing, without `onWait`). */
function waitReporter(
  taskId: string,
  onWait: DurableExclusiveOptions['onWait'],
): ((holder: DurableLeaseHolder) => void) | undefined {
  if (onWait === undefined) return undefined
  let reported: string | undefined
  return (holder) => {
    if (holder.ownerId === reported) return
    reported = holder.ownerId
    reportWait(onWait, { taskId, holder })
  }
}

function storeFailure(operation: string, taskId: string, error: unknown): Error {
  if (AgentCoreError.isInstance(error)) return error
  const what = taskId === '*' ? 'list tasks' : `${operation} task "${taskId}"`
  return new DurableStoreError(
    `The SQLite durable store failed to ${what}: ${error instanceof Error ? error.message : describeValue(error)}. Retry the run; if it persists, check the database file.`,
    { cause: error, details: { taskId, operation } },
  )
}

async function waitOrAbort(
  previous: Promise<unknown>,
  signal: AbortSignal | undefined,
  taskId: string,
): Promise<void> {
  if (signal === undefined) {
    await previous
    return
  }
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      try {
        throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
      } catch (error) {
        reject(error)
      }
    }
    signal.addEventListener('abort', onAbort, { once: true })
    previous.then(
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      },
      () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      },
    )
  })
}

/**
 * Opens a {@link SqliteDurableStore} on a file path (created if missing; WAL is enabled) or on an existing
 * better-sqlite3 Database (left configured as it is; enable WAL and a busy timeout yourself for
 * multi-process use).
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
 *
 * const store = createSqliteDurableStore(join(mkdtempSync(join(tmpdir(), 'durable-')), 'tasks.db'), { leaseMs: 10_000 })
 * store.close()
 * ```
 */
export function createSqliteDurableStore(
  source: string | SqliteDatabase,
  options: SqliteDurableStoreOptions = {},
): SqliteDurableStore {
  return new SqliteDurableStore(source, options)
}
