import {
  AgentCoreError,
  assertFunction,
  describeValue,
  InvalidInputError,
  isAbortSignal,
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
import { DurableStoreError } from '@agent-core/kits/durable'
import Database from 'better-sqlite3'
import {
  assertExpectedVersion,
  assertTaskId,
  deserializeCheckpoint,
  newOwnerId,
  optionalPositiveInteger,
  serializeCheckpoint,
  versionConflict,
} from '../internal/store-support.js'

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

function isDatabase(value: unknown): value is SqliteDatabase {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SqliteDatabase).prepare === 'function' &&
    typeof (value as SqliteDatabase).exec === 'function' &&
    typeof (value as SqliteDatabase).pragma === 'function'
  )
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    typeof code === 'string' &&
    (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED')
  )
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

/**
 * A {@link DurableStore} in a SQLite file through better-sqlite3: the embedded default for Apps and
 * examples. Checkpoints are JSON text with a fencing version; `exclusive` is a lease row (owner + expiry)
 * taken with one atomic upsert, waited for with backoff, renewed while the operation runs and released at
 * the end, so it holds across processes sharing the file, and a crashed holder's lease simply expires.
 * When the store opens the file itself it enables WAL.
 *
 * @example
 * ```ts
 * import { SqliteDurableStore } from '@agent-core/kits/durable/sqlite'
 * const store = new SqliteDurableStore(':memory:')
 * await store.load('nothing') // undefined
 * store.close()
 * ```
 */
export class SqliteDurableStore implements DurableStore {
  /** The underlying database (the one passed in, or the one the store opened). */
  readonly database: SqliteDatabase
  readonly #owned: boolean
  readonly #leaseMs: number
  readonly #renewMs: number
  readonly #pollMs: number
  readonly #maxPollMs: number
  readonly #queues = new Map<string, Promise<unknown>>()
  readonly #sql: {
    readonly load: Database.Statement<[string], { version: number; body: unknown }>
    readonly version: Database.Statement<[string], { version: number }>
    readonly insert: Database.Statement<[string, string, number]>
    readonly update: Database.Statement<[string, number, string, number]>
    readonly acquire: Database.Statement<[string, string, number, number]>
    readonly renew: Database.Statement<[number, string, string]>
    readonly release: Database.Statement<[string, string]>
  }

  constructor(source: string | SqliteDatabase, options: SqliteDurableStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidInputError(
        `SQLite durable store options must be an object, but got ${describeValue(options)}.`,
        { details: { name: 'options' } },
      )
    }
    this.#leaseMs = optionalPositiveInteger(options.leaseMs, 'leaseMs', 30_000)
    this.#renewMs = optionalPositiveInteger(
      options.renewIntervalMs,
      'renewIntervalMs',
      Math.max(1, Math.floor(this.#leaseMs / 3)),
    )
    this.#pollMs = optionalPositiveInteger(options.pollMs, 'pollMs', 5)
    this.#maxPollMs = Math.max(this.#pollMs, optionalPositiveInteger(options.maxPollMs, 'maxPollMs', 250))
    const busyTimeoutMs = optionalPositiveInteger(options.busyTimeoutMs, 'busyTimeoutMs', 5_000)
    const prefix = options.tablePrefix ?? 'agent_core_durable'
    if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
      throw new InvalidInputError(
        `tablePrefix must be a SQL identifier (letters, digits, underscores), but got ${describeValue(prefix)}.`,
        {
          details: { name: 'tablePrefix' },
        },
      )
    }
    const synchronous = options.synchronous ?? 'full'
    if (synchronous !== 'full' && synchronous !== 'normal') {
      throw new InvalidInputError(
        `synchronous must be 'full' or 'normal', but got ${describeValue(synchronous)}.`,
        { details: { name: 'synchronous' } },
      )
    }
    if (typeof source === 'string') {
      if (source.length === 0)
        throw new InvalidInputError(
          'The SQLite durable store needs a file path (or ":memory:"), but got an empty string.',
          { details: { name: 'source' } },
        )
      try {
        this.database = new Database(source)
        this.database.pragma('journal_mode = WAL')
        this.database.pragma(`synchronous = ${synchronous.toUpperCase()}`)
        this.database.pragma(`busy_timeout = ${busyTimeoutMs}`)
      } catch (error) {
        throw new DurableStoreError(
          `The SQLite durable store could not open ${JSON.stringify(source)}. Check the path and its permissions.`,
          {
            cause: error,
            details: { path: source },
          },
        )
      }
      this.#owned = true
    } else if (isDatabase(source)) {
      this.database = source
      this.#owned = false
    } else {
      throw new InvalidInputError(
        `The SQLite durable store needs a file path or a better-sqlite3 Database, but got ${describeValue(source)}.`,
        {
          details: { name: 'source', received: describeValue(source) },
        },
      )
    }
    const checkpoints = `${prefix}_checkpoints`
    const leases = `${prefix}_leases`
    try {
      this.database.exec(
        `CREATE TABLE IF NOT EXISTS ${checkpoints} (task_id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, updated_at_ms INTEGER NOT NULL);
         CREATE TABLE IF NOT EXISTS ${leases} (task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at_ms INTEGER NOT NULL);`,
      )
      const db = this.database
      this.#sql = {
        load: db.prepare<[string], { version: number; body: unknown }>(
          `SELECT version, body FROM ${checkpoints} WHERE task_id = ?`,
        ),
        version: db.prepare<[string], { version: number }>(
          `SELECT version FROM ${checkpoints} WHERE task_id = ?`,
        ),
        insert: db.prepare<[string, string, number]>(
          `INSERT INTO ${checkpoints} (task_id, version, body, updated_at_ms) VALUES (?, 1, ?, ?) ON CONFLICT (task_id) DO NOTHING`,
        ),
        update: db.prepare<[string, number, string, number]>(
          `UPDATE ${checkpoints} SET version = version + 1, body = ?, updated_at_ms = ? WHERE task_id = ? AND version = ?`,
        ),
        acquire: db.prepare<[string, string, number, number]>(
          `INSERT INTO ${leases} (task_id, owner, expires_at_ms) VALUES (?, ?, ?)
           ON CONFLICT (task_id) DO UPDATE SET owner = excluded.owner, expires_at_ms = excluded.expires_at_ms WHERE ${leases}.expires_at_ms <= ?`,
        ),
        renew: db.prepare<[number, string, string]>(
          `UPDATE ${leases} SET expires_at_ms = ? WHERE task_id = ? AND owner = ?`,
        ),
        release: db.prepare<[string, string]>(`DELETE FROM ${leases} WHERE task_id = ? AND owner = ?`),
      }
    } catch (error) {
      if (this.#owned) this.database.close()
      throw new DurableStoreError(
        `The SQLite durable store could not create its tables "${checkpoints}" and "${leases}". Check the database is writable.`,
        {
          cause: error,
          details: { tablePrefix: prefix },
        },
      )
    }
  }

  async exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options: DurableExclusiveOptions = {},
  ): Promise<T> {
    assertTaskId(taskId, 'SqliteDurableStore.exclusive')
    assertFunction(operation, 'SqliteDurableStore.exclusive operation')
    const signal = options?.signal
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new InvalidInputError('SqliteDurableStore.exclusive: options.signal must be an AbortSignal.', {
        details: { name: 'signal' },
      })
    }
    throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
    // Callers in this process queue here first, so only one of them polls the lease row.
    const previous = this.#queues.get(taskId) ?? Promise.resolve()
    let leave!: () => void
    const mine = new Promise<void>((resolve) => {
      leave = resolve
    })
    const tail = previous.then(() => mine)
    this.#queues.set(taskId, tail)
    try {
      await waitOrAbort(previous, signal, taskId)
      const ownerId = newOwnerId('sqlite')
      await this.#acquire(taskId, ownerId, signal)
      const renewal = setInterval(() => this.#renew(taskId, ownerId, renewal), this.#renewMs)
      renewal.unref?.()
      try {
        return await operation(Object.freeze({ taskId, ownerId }))
      } finally {
        clearInterval(renewal)
        this.#release(taskId, ownerId)
      }
    } finally {
      leave()
      if (this.#queues.get(taskId) === tail) this.#queues.delete(taskId)
    }
  }

  async load(taskId: string): Promise<StoredCheckpoint | undefined> {
    assertTaskId(taskId, 'SqliteDurableStore.load')
    const row = this.#run('load', taskId, () => this.#sql.load.get(taskId))
    if (row === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, row.body, 'SqliteDurableStore.load'),
      version: row.version,
    }
  }

  async save(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    assertTaskId(taskId, 'SqliteDurableStore.save')
    const expected = assertExpectedVersion(options, 'SqliteDurableStore.save')
    const body = serializeCheckpoint(taskId, checkpoint, 'SqliteDurableStore.save')
    const now = Date.now()
    const changes = this.#run('save', taskId, () =>
      expected === undefined
        ? this.#sql.insert.run(taskId, body, now).changes
        : this.#sql.update.run(body, now, taskId, expected).changes,
    )
    if (changes === 1) return { version: expected === undefined ? 1 : expected + 1 }
    const actual = this.#run('save', taskId, () => this.#sql.version.get(taskId))?.version
    throw versionConflict(taskId, expected, actual, 'SqliteDurableStore.save')
  }

  /** Closes the database when the store opened it; a database passed in stays open. */
  close(): void {
    if (this.#owned && this.database.open) this.database.close()
  }

  #run<T>(operation: string, taskId: string, body: () => T): T {
    try {
      return body()
    } catch (error) {
      throw storeFailure(operation, taskId, error)
    }
  }

  async #acquire(taskId: string, ownerId: string, signal: AbortSignal | undefined): Promise<void> {
    let delay = this.#pollMs
    for (;;) {
      throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
      const now = Date.now()
      let acquired: boolean
      try {
        acquired = this.#sql.acquire.run(taskId, ownerId, now + this.#leaseMs, now).changes === 1
      } catch (error) {
        if (!isBusy(error)) throw storeFailure('lock', taskId, error)
        acquired = false
      }
      if (acquired) return
      await sleep(delay / 2 + Math.random() * (delay / 2), signal)
      delay = Math.min(delay * 2, this.#maxPollMs)
    }
  }

  #renew(taskId: string, ownerId: string, renewal: ReturnType<typeof setInterval>): void {
    try {
      if (this.#sql.renew.run(Date.now() + this.#leaseMs, taskId, ownerId).changes === 0)
        clearInterval(renewal)
    } catch {
      // A busy or closed database: the next renewal tries again; a lapsed lease is caught by save fencing.
    }
  }

  #release(taskId: string, ownerId: string): void {
    try {
      this.#sql.release.run(taskId, ownerId)
    } catch {
      // The lease expires on its own; fencing protects the checkpoint meanwhile.
    }
  }
}

function storeFailure(operation: string, taskId: string, error: unknown): Error {
  if (AgentCoreError.isInstance(error)) return error
  return new DurableStoreError(
    `The SQLite durable store failed to ${operation} task "${taskId}": ${error instanceof Error ? error.message : describeValue(error)}. Retry the run; if it persists, check the database file.`,
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
