import { assertFunction, assertObject, throwIfAborted } from '@agent-core/core'
import { compareTaskIds, parseListRequest } from './internal/list-request.js'
import {
  assertExpectedVersion,
  assertTaskId,
  deserializeCheckpoint,
  exclusiveOptions,
  leaseLost,
  newOwnerId,
  optionalPositiveInteger,
  reportWait,
  serializeCheckpoint,
  storedVersion,
  summaryColumns,
  versionConflict,
} from './internal/store-support.js'
import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableFencing,
  DurableLease,
  DurableLeaseHolder,
  DurableListRequest,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStore,
  DurableTaskListing,
  DurableTaskSummary,
  StoredCheckpoint,
} from './store.js'

/**
 * Options of {@link createMemoryDurableStore}.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore({ leaseMs: 50 })
 * ```
 */
export interface MemoryDurableStoreOptions {
  /**
   * When set, a lease lapses this many milliseconds after it was granted (the memory store never renews
   * it), as if its holder had stopped: its signal aborts and a waiter takes it over. Use it to test
   * superseded owners. Default: leases never lapse.
   */
  readonly leaseMs?: number | undefined
}

/**
 * One stored record of a {@link MemoryDurableStore}: the serialized checkpoint, its fencing token and when
 * it was saved.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore()
 * store.records.set('task-1', { text: '{"version":2,', version: 1 }) // a corrupt record, for a test
 * ```
 */
export interface MemoryDurableRecord {
  text: string
  version: number
  /** Epoch milliseconds of the save that wrote the record (0 when a test wrote it directly). */
  updatedAtMs?: number
}

interface Lease {
  readonly ownerId: string
  readonly expiresAtMs: number
  readonly controller: AbortController | undefined
  readonly timer: ReturnType<typeof setTimeout> | undefined
}

const WHERE = 'MemoryDurableStore'

/**
 * A {@link DurableStore} in process memory, for tests and examples. Checkpoints are kept as JSON text, so
 * they behave like a real store's (no shared references, JSON-only values). It declares version fencing,
 * reports lease waits and lists tasks by status.
 *
 * @example
 * ```ts
 * import { MemoryDurableStore } from '@agent-core/kits/durable'
 * const store = new MemoryDurableStore()
 * store.records.size // 0
 * ```
 */
export class MemoryDurableStore implements DurableStore, DurableTaskListing {
  /**
   * The raw records by task id. Tests may read them, or replace a record's `text` to simulate corruption.
   */
  readonly records = new Map<string, MemoryDurableRecord>()
  /** Version fencing: a versioned load and a compare-and-set save (see {@link DurableFencing}). */
  readonly fencing: DurableFencing
  /** `exclusive` reports waits through `options.onWait`. */
  readonly reportsLeaseWaits = true
  readonly #leaseMs: number
  readonly #leases = new Map<string, Lease>()
  readonly #waiters = new Map<string, Set<() => void>>()

  constructor(options: MemoryDurableStoreOptions = {}) {
    assertObject(options, 'options')
    this.#leaseMs = optionalPositiveInteger(options.leaseMs, 'options.leaseMs', Number.POSITIVE_INFINITY)
    this.fencing = Object.freeze({
      load: (taskId: string) => this.#loadVersioned(taskId),
      save: (taskId: string, checkpoint: CheckpointV2, saveOptions: DurableSaveOptions) =>
        this.#saveIfVersion(taskId, checkpoint, saveOptions),
    })
  }

  /**
   * Runs `operation` under the task's lease. With `leaseMs`, the lease has a signal that aborts when it
   * lapses; without, it never lapses and has none.
   * @example
   * ```ts
   * import { createMemoryDurableStore } from '@agent-core/kits/durable'
   * const result = await createMemoryDurableStore().exclusive('t1', async (lease) => lease.ownerId)
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
    const ownerId = newOwnerId('memory')
    const lease = await this.#acquire(taskId, ownerId, signal, onWait)
    try {
      return await operation(lease)
    } finally {
      this.#release(taskId, ownerId)
    }
  }

  /**
   * The stored checkpoint (parsed, unvalidated), or `undefined`.
   * @example
   * ```ts
   * import { createMemoryDurableStore } from '@agent-core/kits/durable'
   * const checkpoint = await createMemoryDurableStore().load('t1') // undefined
   * ```
   */
  async load(taskId: string): Promise<unknown> {
    return (await this.#loadVersioned(taskId))?.checkpoint
  }

  /**
   * Stores the checkpoint, replacing any earlier one (use {@link MemoryDurableStore.fencing} to
   * compare-and-set).
   * @example
   * ```ts
   * import { createMemoryDurableStore, type CheckpointV2 } from '@agent-core/kits/durable'
   * declare const checkpoint: CheckpointV2
   * await createMemoryDurableStore().save('t1', checkpoint)
   * ```
   */
  async save(taskId: string, checkpoint: CheckpointV2): Promise<void> {
    assertTaskId(taskId)
    const text = serializeCheckpoint(taskId, checkpoint, `${WHERE}.save`)
    await Promise.resolve()
    const previous = this.records.get(taskId)?.version
    const version = Number.isSafeInteger(previous) && (previous as number) >= 1 ? (previous as number) + 1 : 1
    this.records.set(taskId, { text, version, updatedAtMs: Date.now() })
  }

  /**
   * Tasks by status (see {@link DurableTaskListing}).
   * @example
   * ```ts
   * import { createMemoryDurableStore } from '@agent-core/kits/durable'
   * const running = await createMemoryDurableStore().list({ status: 'running' })
   * ```
   */
  async list(request?: DurableListRequest): Promise<readonly DurableTaskSummary[]> {
    const { statuses, definitionId, after, limit } = parseListRequest(request)
    await Promise.resolve()
    const found: DurableTaskSummary[] = []
    for (const [taskId, record] of this.records) {
      if (after !== undefined && compareTaskIds(taskId, after) <= 0) continue
      let checkpoint: unknown
      try {
        checkpoint = JSON.parse(record.text)
      } catch {
        continue
      }
      const columns = summaryColumns(checkpoint)
      if (columns.status === null || columns.definitionId === null) continue
      if (!statuses.includes(columns.status)) continue
      if (definitionId !== undefined && columns.definitionId !== definitionId) continue
      found.push({
        taskId,
        status: columns.status,
        definitionId: columns.definitionId,
        updatedAtMs: record.updatedAtMs ?? 0,
      })
    }
    return found.sort((a, b) => compareTaskIds(a.taskId, b.taskId)).slice(0, limit)
  }

  async #loadVersioned(taskId: string): Promise<StoredCheckpoint | undefined> {
    assertTaskId(taskId)
    await Promise.resolve()
    const record = this.records.get(taskId)
    if (record === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, record.text, `${WHERE}.load`),
      version: storedVersion(record.version, taskId, `${WHERE}.load`),
    }
  }

  async #saveIfVersion(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    assertTaskId(taskId)
    const expected = assertExpectedVersion(options)
    const text = serializeCheckpoint(taskId, checkpoint, `${WHERE}.fencing.save`)
    await Promise.resolve()
    const current = this.records.get(taskId)
    if (current?.version !== expected)
      throw versionConflict(taskId, expected, current?.version, `${WHERE}.fencing.save`)
    const version = (current?.version ?? 0) + 1
    this.records.set(taskId, { text, version, updatedAtMs: Date.now() })
    return { version }
  }

  async #acquire(
    taskId: string,
    ownerId: string,
    signal: AbortSignal | undefined,
    onWait: DurableExclusiveOptions['onWait'],
  ): Promise<DurableLease> {
    let reported: string | undefined
    for (;;) {
      throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
      const now = Date.now()
      const held = this.#leases.get(taskId)
      if (held === undefined || held.expiresAtMs <= now) {
        const lease = this.#grant(taskId, ownerId, now)
        if (held === undefined) return lease
        // The holder's lease lapsed: its signal aborts now, even if its own timer has not fired yet.
        if (held.timer !== undefined) clearTimeout(held.timer)
        held.controller?.abort(leaseLost(taskId, held.ownerId, `it lapsed after ${this.#leaseMs} ms`))
        return { ...lease, takenOver: { reason: 'expired', previous: holderOf(held) } }
      }
      if (reported !== held.ownerId) {
        reported = held.ownerId
        reportWait(onWait, { taskId, holder: holderOf(held) })
      }
      await this.#sleepUntilReleased(taskId, held, now, signal)
    }
  }

  #grant(taskId: string, ownerId: string, now: number): DurableLease {
    const expiresAtMs = now + this.#leaseMs
    if (!Number.isFinite(expiresAtMs)) {
      // A lease that never lapses is never lost: it has no signal.
      this.#leases.set(taskId, { ownerId, expiresAtMs, controller: undefined, timer: undefined })
      return Object.freeze({ taskId, ownerId })
    }
    const controller = new AbortController()
    const timer = setTimeout(
      () => controller.abort(leaseLost(taskId, ownerId, `it lapsed after ${this.#leaseMs} ms`)),
      this.#leaseMs,
    )
    timer.unref?.()
    this.#leases.set(taskId, { ownerId, expiresAtMs, controller, timer })
    return Object.freeze({ taskId, ownerId, signal: controller.signal })
  }

  #sleepUntilReleased(
    taskId: string,
    held: Lease,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    return new Promise<void>((resolve) => {
      let waiters = this.#waiters.get(taskId)
      if (waiters === undefined) {
        waiters = new Set()
        this.#waiters.set(taskId, waiters)
      }
      const set = waiters
      const timer = Number.isFinite(held.expiresAtMs)
        ? setTimeout(wake, Math.max(1, held.expiresAtMs - now))
        : undefined
      function wake(): void {
        if (timer !== undefined) clearTimeout(timer)
        set.delete(wake)
        signal?.removeEventListener('abort', wake)
        resolve()
      }
      set.add(wake)
      signal?.addEventListener('abort', wake, { once: true })
    })
  }

  #release(taskId: string, ownerId: string): void {
    const held = this.#leases.get(taskId)
    if (held?.ownerId === ownerId) {
      if (held.timer !== undefined) clearTimeout(held.timer)
      this.#leases.delete(taskId)
    }
    const waiters = this.#waiters.get(taskId)
    if (waiters === undefined) return
    this.#waiters.delete(taskId)
    for (const wake of [...waiters]) wake()
  }
}

function holderOf(lease: Lease): DurableLeaseHolder {
  return {
    ownerId: lease.ownerId,
    expiresAtMs: Number.isFinite(lease.expiresAtMs) ? lease.expiresAtMs : null,
  }
}

/**
 * Creates a {@link MemoryDurableStore}.
 * @example
 * ```ts
 * import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
 * const store = createMemoryDurableStore()
 * const task = defineDurableTask({
 *   id: 'count',
 *   revision: '1',
 *   isState: (value): value is number => typeof value === 'number',
 *   steps: [{ id: 'add', replayPolicy: 'safe', run: (n) => n + 1 }],
 * })
 * await task.run({ taskId: 't1', store, input: 1 }) // 2
 * ```
 */
export function createMemoryDurableStore(options: MemoryDurableStoreOptions = {}): MemoryDurableStore {
  return new MemoryDurableStore(options)
}
