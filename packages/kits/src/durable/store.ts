/**
 * The storage contract of durable tasks: the checkpoint shape (format version 2) and the
 * {@link DurableStore} port every store (memory, SQLite, PostgreSQL, an App's own) implements.
 *
 * Two different "versions" appear here and must not be confused:
 * - `CheckpointV2.version` is the checkpoint *format* marker and is always `2`;
 * - `StoredCheckpoint.version` / `SaveOptions.expectedVersion` is the store's *fencing token*: a number the
 *   store changes on every successful save, used for compare-and-set.
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
 * What {@link DurableStore.load} returns for an existing task.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore()
 * const stored = await store.load('task-1') // { checkpoint, version } or undefined
 * ```
 */
export interface StoredCheckpoint {
  /**
   * The deserialized checkpoint exactly as stored, not yet validated: the task runner checks its format,
   * definition, revision, counts and state before using it.
   */
  readonly checkpoint: unknown
  /** The fencing token of this stored value; pass it as `expectedVersion` to the next save. */
  readonly version: number
}

/**
 * Options of {@link DurableStore.save}.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
 * declare const checkpoint: CheckpointV2
 * const store = createMemoryDurableStore()
 * const created = await store.save('task-1', checkpoint, { expectedVersion: undefined })
 * await store.save('task-1', checkpoint, { expectedVersion: created.version })
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
 * What {@link DurableStore.save} returns.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
 * declare const checkpoint: CheckpointV2
 * const { version } = await createMemoryDurableStore().save('task-1', checkpoint, { expectedVersion: undefined })
 * ```
 */
export interface DurableSaveResult {
  /** The new fencing token; differs from every earlier token of the same task. */
  readonly version: number
}

/**
 * Options of {@link DurableStore.exclusive}.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const controller = new AbortController()
 * await createMemoryDurableStore().exclusive('task-1', async () => 'work', { signal: controller.signal })
 * ```
 */
export interface DurableExclusiveOptions {
  /** Stops waiting for the lease; an operation that already started is not interrupted by the store. */
  readonly signal?: AbortSignal | undefined
}

/**
 * The lease an {@link DurableStore.exclusive} operation holds.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * await createMemoryDurableStore().exclusive('task-1', async (lease) => console.log(lease.taskId, lease.ownerId))
 * ```
 */
export interface DurableLease {
  readonly taskId: string
  /** Identifies this holder (unique per `exclusive` call), for diagnostics. */
  readonly ownerId: string
}

/**
 * The storage port of durable tasks. The App chooses the store (there is no default database) and owns
 * retention and user ownership; the task runner owns validation.
 *
 * Contract, checked by the conformance suite every store passes:
 * - `exclusive(taskId, operation)` runs `operation` while holding a lease on `taskId` that no other
 *   `exclusive` call on the same task (in this process or, for shared stores, any other) holds at the same
 *   time. It waits for the lease (honouring `signal` while waiting), releases it when the operation settles
 *   and returns or rethrows the operation's outcome. A lease held by a crashed process expires. A lease is an
 *   efficiency guarantee; correctness comes from fencing: a holder whose lease lapsed is stopped by `save`.
 * - `load(taskId)` returns the stored checkpoint and its fencing token, or `undefined` when the task does
 *   not exist. Stored data that cannot be deserialized is an `InvalidStateError`, never `undefined`.
 * - `save(taskId, checkpoint, { expectedVersion })` is an atomic compare-and-set: it writes only when the
 *   stored token equals `expectedVersion` (`undefined`: nothing stored), otherwise it throws
 *   `ConflictError` and writes nothing. It returns the new token.
 * - A `taskId` that is not a non-empty string is an `InvalidInputError`.
 *
 * @example
 * ```ts
 * import type { DurableStore } from '@agent-core/kits/durable'
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 *
 * const store: DurableStore = createMemoryDurableStore()
 * const saved = await store.exclusive('task-1', async () => {
 *   const current = await store.load('task-1')
 *   return current?.version
 * })
 * ```
 */
export interface DurableStore {
  exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options?: DurableExclusiveOptions,
  ): Promise<T>
  load(taskId: string): Promise<StoredCheckpoint | undefined>
  save(taskId: string, checkpoint: CheckpointV2, options: DurableSaveOptions): Promise<DurableSaveResult>
}
