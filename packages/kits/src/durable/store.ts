/**
 * The storage contract of durable tasks: the checkpoint shape (format version 2), the {@link DurableStore}
 * port every store (memory, SQLite, PostgreSQL, an App's own) implements, and the optional capabilities a
 * store may declare on top of it (version fencing, lease-wait reporting, listing tasks by status).
 *
 * Two different "versions" appear here and must not be confused:
 * - `CheckpointV2.version` is the checkpoint *format* marker and is always `2`;
 * - `StoredCheckpoint.version` / `DurableSaveOptions.expectedVersion` is a fencing store's *fencing token*: a
 *   positive number the store changes on every successful save, used for compare-and-set.
 */

/**
 * How a step is treated when a task resumes at it after an interruption.
 * @example
 * ```ts
 * import type { DurableReplayPolicy } from '@agent-core/kits/durable'
 * const policy: DurableReplayPolicy = 'reconcile'
 * ```
 */
export type DurableReplayPolicy = 'safe' | 'reconcile'

/**
 * Where a checkpoint is in its life. `running` is the only non-terminal status; `completed`, `failed`
 * (attempts exhausted) and `expired` (deadline passed) are final.
 * @example
 * ```ts
 * import type { DurableStatus } from '@agent-core/kits/durable'
 * const isFinal = (status: DurableStatus) => status !== 'running'
 * ```
 */
export type DurableStatus = 'running' | 'completed' | 'failed' | 'expired'

/**
 * The model-call allowance of a task, persisted in its checkpoint. Every attempt reserves
 * `min(maxCallsPerAttempt, maxCalls - reservedCalls)` calls before it executes; reservations are never
 * refunded, so a crash cannot reset the quota.
 * @example
 * ```ts
 * import type { DurableModelBudget } from '@agent-core/kits/durable'
 * const budget: DurableModelBudget = { maxCalls: 10, reservedCalls: 4, maxCallsPerAttempt: 2 }
 * const left = budget.maxCalls - budget.reservedCalls // 6
 * ```
 */
export interface DurableModelBudget {
  /** Calls the task may reserve over its whole life. */
  readonly maxCalls: number
  /** Calls reserved so far by all attempts, used or not. */
  readonly reservedCalls: number
  /** The most one attempt may reserve. */
  readonly maxCallsPerAttempt: number
}

/**
 * The persisted progress of one durable task (checkpoint format 2).
 * @example
 * ```ts
 * import type { CheckpointV2 } from '@agent-core/kits/durable'
 * const checkpoint: CheckpointV2<{ count: number }> = {
 *   version: 2,
 *   definitionId: 'counter',
 *   revision: '1',
 *   nextStepIndex: 1,
 *   attemptCount: 1,
 *   maxAttempts: 3,
 *   deadlineAtMs: null,
 *   status: 'running',
 *   state: { count: 1 },
 * }
 * ```
 */
export interface CheckpointV2<State = unknown> {
  /** The format marker; always `2`. Any other value is refused on load. */
  readonly version: 2
  /** The `id` of the task definition that wrote the checkpoint. */
  readonly definitionId: string
  /** The definition's `revision`; another revision is refused on load. */
  readonly revision: string
  /** Index of the next step to execute; equals the number of steps once completed. */
  readonly nextStepIndex: number
  /** Attempts started so far (one per run that executes steps); never reset. */
  readonly attemptCount: number
  /** Attempts allowed in total; fixed when the task is created. */
  readonly maxAttempts: number
  /** Epoch milliseconds after which the task expires, or `null` for no deadline. Never moved. */
  readonly deadlineAtMs: number | null
  readonly status: DurableStatus
  /** The App state after the last completed step. */
  readonly state: State
  /** Present when the task was created with a model budget. */
  readonly modelBudget?: DurableModelBudget
}

/**
 * What a fencing store's {@link DurableFencing.load} returns for an existing task.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore()
 * const stored = await store.fencing.load('task-1') // { checkpoint, version } or undefined
 * ```
 */
export interface StoredCheckpoint {
  /**
   * The deserialized checkpoint exactly as stored, not yet validated: the task runner checks its format,
   * definition, revision, counts and state before using it.
   */
  readonly checkpoint: unknown
  /** The fencing token of this stored value (a positive safe integer); pass it as `expectedVersion` to the next save. */
  readonly version: number
}

/**
 * Options of {@link DurableFencing.save}.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
 * declare const checkpoint: CheckpointV2
 * const store = createMemoryDurableStore()
 * const created = await store.fencing.save('task-1', checkpoint, { expectedVersion: undefined })
 * await store.fencing.save('task-1', checkpoint, { expectedVersion: created.version })
 * ```
 */
export interface DurableSaveOptions {
  /**
   * The fencing token the caller last loaded, or `undefined` to create the task. The save is refused with
   * `ConflictError` when the stored token differs (including: a checkpoint exists but `undefined` was
   * passed, or none exists but a number was passed).
   */
  readonly expectedVersion: number | undefined
}

/**
 * What {@link DurableFencing.save} returns.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
 * declare const checkpoint: CheckpointV2
 * const { version } = await createMemoryDurableStore().fencing.save('task-1', checkpoint, { expectedVersion: undefined })
 * ```
 */
export interface DurableSaveResult {
  /** The new fencing token: a positive safe integer that differs from every earlier token of the same task. */
  readonly version: number
}

/**
 * The version-fencing capability of a store: a versioned read and a compare-and-set write. A store that
 * declares it (as `store.fencing`) lets the task runner stop a superseded owner, one whose lease lapsed
 * while it was paused, from overwriting newer progress. The memory, SQLite and PostgreSQL stores declare it.
 *
 * - `load(taskId)` reads what {@link DurableStore.load} reads, with the stored fencing token.
 * - `save(taskId, checkpoint, { expectedVersion })` writes only when the stored token equals
 *   `expectedVersion` (`undefined`: nothing is stored), otherwise it throws `ConflictError` and writes
 *   nothing. It returns the new token.
 *
 * @example
 * ```ts
 * import { ConflictError } from '@agent-core/core'
 * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
 * declare const checkpoint: CheckpointV2
 *
 * const { fencing } = createMemoryDurableStore()
 * const first = await fencing.save('t1', checkpoint, { expectedVersion: undefined })
 * await fencing.save('t1', checkpoint, { expectedVersion: first.version })
 * await fencing.save('t1', checkpoint, { expectedVersion: first.version }).catch((error) => ConflictError.isInstance(error)) // true
 * ```
 */
export interface DurableFencing {
  /** The stored checkpoint with its fencing version, or `undefined` when the task does not exist. */
  load(taskId: string): Promise<StoredCheckpoint | undefined>
  /** Writes only when the stored version equals `options.expectedVersion`; resolves the new version. */
  save(taskId: string, checkpoint: CheckpointV2, options: DurableSaveOptions): Promise<DurableSaveResult>
}

/**
 * Who holds a lease, as a store that reports lease waits sees it.
 * @example
 * ```ts
 * import type { DurableLeaseHolder } from '@agent-core/kits/durable'
 * const holder: DurableLeaseHolder = { ownerId: 'sqlite:4f1c', expiresAtMs: 1_700_000_030_000, host: 'worker-1', pid: 4242 }
 * ```
 */
export interface DurableLeaseHolder {
  /** The holder's {@link DurableLease.ownerId}. */
  readonly ownerId: string
  /**
   * When the holder's lease lapses unless it is renewed (epoch milliseconds), or `null` when it never
   * lapses on its own (it is held until released, or until the holder's connection ends).
   */
  readonly expiresAtMs: number | null
  /** The holder's host, when the store records it. */
  readonly host?: string | undefined
  /** The holder's process id on its host, when the store records it. */
  readonly pid?: number | undefined
}

/**
 * What a store reports through {@link DurableExclusiveOptions.onWait}: the lease is held by another owner
 * and the call waits for it.
 * @example
 * ```ts
 * import type { DurableLeaseWait } from '@agent-core/kits/durable'
 * const onWait = (wait: DurableLeaseWait) =>
 *   console.log(`task ${wait.taskId} is held by ${wait.holder.ownerId} until ${wait.holder.expiresAtMs ?? 'released'}`)
 * ```
 */
export interface DurableLeaseWait {
  /** The task whose lease the call waits for. */
  readonly taskId: string
  /** Who holds the lease now. */
  readonly holder: DurableLeaseHolder
}

/**
 * How a lease was obtained from another holder instead of found free: `expired` (the holder stopped
 * renewing it and its lease lapsed) or `holder-gone` (the holder is a process on this host that no longer
 * exists, so the lease was taken at once).
 * @example
 * ```ts
 * import type { DurableLeaseTakeover } from '@agent-core/kits/durable'
 * const takeover: DurableLeaseTakeover = { reason: 'holder-gone', previous: { ownerId: 'sqlite:9a', expiresAtMs: 0, pid: 77 } }
 * ```
 */
export interface DurableLeaseTakeover {
  /** Why the lease could be taken: it lapsed, or its holder's process is gone. */
  readonly reason: 'expired' | 'holder-gone'
  /** The holder the lease was taken from, as recorded. */
  readonly previous: DurableLeaseHolder
}

/**
 * Options of {@link DurableStore.exclusive}.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const controller = new AbortController()
 * await createMemoryDurableStore().exclusive('task-1', async () => 'work', {
 *   signal: controller.signal,
 *   onWait: (wait) => console.log('waiting for', wait.holder.ownerId),
 * })
 * ```
 */
export interface DurableExclusiveOptions {
  /** Stops waiting for the lease; an operation that already started is not interrupted by the store. */
  readonly signal?: AbortSignal | undefined
  /**
   * Called, by a store that declares {@link DurableStore.reportsLeaseWaits}, when the lease is held by
   * another owner and the call starts waiting, and again whenever the holder changes. It must return
   * quickly; a throw is ignored.
   */
  readonly onWait?: ((wait: DurableLeaseWait) => void) | undefined
}

/**
 * The lease an {@link DurableStore.exclusive} operation holds.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * await createMemoryDurableStore({ leaseMs: 5_000 }).exclusive('task-1', async (lease) => {
 *   lease.signal?.addEventListener('abort', () => console.log('lost the lease of', lease.taskId))
 * })
 * ```
 */
export interface DurableLease {
  /** The task the lease is for. */
  readonly taskId: string
  /** Identifies this holder (unique per `exclusive` call), for diagnostics. */
  readonly ownerId: string
  /**
   * Aborts as soon as the store knows the lease is lost: it lapsed, a renewal failed, another owner took
   * it, or the connection that held it closed. The reason is a `ConflictError` whose
   * `details.reason` is `'lease-lost'`. Absent when the store cannot tell.
   */
  readonly signal?: AbortSignal | undefined
  /** Present when the lease was taken over from another holder rather than found free. */
  readonly takenOver?: DurableLeaseTakeover | undefined
}

/**
 * The storage port of durable tasks, in the contract's words: `exclusive(taskId, operation)`,
 * `load(taskId)` and `save(taskId, checkpoint)`. The App chooses the store (there is no default database)
 * and owns retention and user ownership; the task runner owns validation.
 *
 * - `exclusive(taskId, operation)` runs `operation` while holding a lease on `taskId` that no other
 *   `exclusive` call on the same task (in this process or, for shared stores, any other) holds at the same
 *   time. It waits for the lease (honouring `options.signal` while waiting), releases it when the operation
 *   settles and returns or rethrows the operation's outcome. It may hand the operation a {@link DurableLease}.
 * - `load(taskId)` returns the stored checkpoint (deserialized, unvalidated), or `undefined` when the task
 *   does not exist. Stored data that cannot be deserialized is an `InvalidStateError`, never `undefined`.
 * - `save(taskId, checkpoint)` stores the checkpoint, replacing any earlier one. Its result is ignored.
 * - A `taskId` that is not a non-empty string is an `InvalidInputError`.
 *
 * A store with only these three methods runs tasks; its safety then rests on `exclusive`. Optional
 * capabilities a store declares on top: {@link DurableStore.fencing} (compare-and-set saves, so a holder
 * whose lease lapsed cannot overwrite newer progress) and {@link DurableStore.reportsLeaseWaits}. The
 * conformance suite (`@agent-core/kits/durable/testing`) checks the contract and each declared capability.
 *
 * @example
 * ```ts
 * import type { CheckpointV2, DurableStore } from '@agent-core/kits/durable'
 *
 * // A contract-shaped store: a Map and a promise chain per task as the lease.
 * const rows = new Map<string, string>()
 * const tails = new Map<string, Promise<unknown>>()
 * const store: DurableStore = {
 *   exclusive(taskId, operation) {
 *     const run = (tails.get(taskId) ?? Promise.resolve()).then(() => operation())
 *     tails.set(taskId, run.catch(() => undefined))
 *     return run
 *   },
 *   async load(taskId) {
 *     const text = rows.get(taskId)
 *     return text === undefined ? undefined : JSON.parse(text)
 *   },
 *   async save(taskId, checkpoint: CheckpointV2) {
 *     rows.set(taskId, JSON.stringify(checkpoint))
 *   },
 * }
 * ```
 */
export interface DurableStore {
  /** Runs `operation` while holding the task's lease, and settles with its outcome. */
  exclusive<T>(
    taskId: string,
    operation: (lease?: DurableLease) => Promise<T>,
    options?: DurableExclusiveOptions,
  ): Promise<T>
  /** The stored checkpoint (deserialized, unvalidated), or `undefined` when the task does not exist. */
  load(taskId: string): Promise<unknown>
  /** Stores the checkpoint, replacing the earlier one; the result is ignored. */
  save(taskId: string, checkpoint: CheckpointV2): Promise<unknown>
  /**
   * Declares version fencing (see {@link DurableFencing}): when present, the runner reads and writes
   * through it, so every save is a compare-and-set on the version it loaded.
   */
  readonly fencing?: DurableFencing | undefined
  /** Declares that `exclusive` reports waits through {@link DurableExclusiveOptions.onWait}. */
  readonly reportsLeaseWaits?: boolean | undefined
}

/**
 * Which tasks {@link DurableTaskListing.list} returns.
 * @example
 * ```ts
 * import type { DurableListRequest } from '@agent-core/kits/durable'
 * const unfinished: DurableListRequest = { status: 'running', definitionId: 'fulfil-order', limit: 100 }
 * ```
 */
export interface DurableListRequest {
  /** One status or several. Default: every status. */
  readonly status?: DurableStatus | readonly DurableStatus[] | undefined
  /** Only tasks of this definition. */
  readonly definitionId?: string | undefined
  /** Only task ids after this one (in the store's order of task ids): the last id of the previous page. */
  readonly after?: string | undefined
  /** The most tasks to return, from 1 to 10000. Default 100. */
  readonly limit?: number | undefined
}

/**
 * One task in a {@link DurableTaskListing.list} answer.
 * @example
 * ```ts
 * import type { DurableTaskSummary } from '@agent-core/kits/durable'
 * const summary: DurableTaskSummary = { taskId: 'order-7', status: 'running', definitionId: 'fulfil-order', updatedAtMs: 1_700_000_000_000 }
 * ```
 */
export interface DurableTaskSummary {
  /** The task id, to pass to `run` or `inspect`. */
  readonly taskId: string
  /** The stored status. */
  readonly status: DurableStatus
  /** The `definitionId` of the stored checkpoint: which task definition resumes it. */
  readonly definitionId: string
  /** When the checkpoint was last saved (epoch milliseconds). */
  readonly updatedAtMs: number
}

/**
 * A store that can list its tasks by status, so an App can find what a crash left unfinished and resume
 * it. The memory, SQLite and PostgreSQL stores implement it. Records that are not readable checkpoints
 * are never listed (`load` reports them).
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore()
 * for (const task of await store.list({ status: 'running' })) console.log(task.taskId, task.definitionId)
 * ```
 */
export interface DurableTaskListing {
  /** Tasks ordered by task id; page with `after` (the last task id of the previous page). */
  list(request?: DurableListRequest): Promise<readonly DurableTaskSummary[]>
}
