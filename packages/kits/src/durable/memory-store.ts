import { assertFunction, InvalidInputError, isAbortSignal, throwIfAborted } from '@agent-core/core'
import {
  assertExpectedVersion,
  assertTaskId,
  deserializeCheckpoint,
  newOwnerId,
  serializeCheckpoint,
  versionConflict,
} from './internal/store-support.js'
import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableLease,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStore,
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
   * it), as if its holder had stopped. Use it to test superseded owners. Default: leases never lapse.
   */
  readonly leaseMs?: number | undefined
}

/**
 * One stored record of a {@link MemoryDurableStore}: the serialized checkpoint and its fencing token.
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
}

interface Lease {
  readonly ownerId: string
  readonly expiresAtMs: number
}

/**
 * A {@link DurableStore} in process memory, for tests and examples. Checkpoints are kept as JSON text, so
 * they behave like a real store's (no shared references, JSON-only values).
 *
 * @example
 * ```ts
 * import { MemoryDurableStore } from '@agent-core/kits/durable'
 * const store = new MemoryDurableStore()
 * store.records.size // 0
 * ```
 */
export class MemoryDurableStore implements DurableStore {
  /**
   * The raw records by task id. Tests may read them, or replace a record's `text` to simulate corruption.
   */
  readonly records = new Map<string, MemoryDurableRecord>()
  readonly #leaseMs: number
  readonly #leases = new Map<string, Lease>()
  readonly #waiters = new Map<string, Set<() => void>>()

  constructor(options: MemoryDurableStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidInputError(
        'Memory durable store options must be an object, such as { leaseMs: 1000 }.',
      )
    }
    const { leaseMs } = options
    if (
      leaseMs !== undefined &&
      (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 1)
    ) {
      throw new InvalidInputError(
        `leaseMs must be a safe integer of at least 1, or omitted for leases that never lapse.`,
        {
          details: { name: 'leaseMs', received: String(leaseMs) },
        },
      )
    }
    this.#leaseMs = leaseMs ?? Number.POSITIVE_INFINITY
  }

  async exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options: DurableExclusiveOptions = {},
  ): Promise<T> {
    assertTaskId(taskId, 'MemoryDurableStore.exclusive')
    assertFunction(operation, 'MemoryDurableStore.exclusive operation')
    const signal = options?.signal
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new InvalidInputError('MemoryDurableStore.exclusive: options.signal must be an AbortSignal.', {
        details: { name: 'signal' },
      })
    }
    const ownerId = newOwnerId('memory')
    await this.#acquire(taskId, ownerId, signal)
    try {
      return await operation(Object.freeze({ taskId, ownerId }))
    } finally {
      this.#release(taskId, ownerId)
    }
  }

  async load(taskId: string): Promise<StoredCheckpoint | undefined> {
    assertTaskId(taskId, 'MemoryDurableStore.load')
    await Promise.resolve()
    const record = this.records.get(taskId)
    if (record === undefined) return undefined
    return {
      checkpoint: deserializeCheckpoint(taskId, record.text, 'MemoryDurableStore.load'),
      version: record.version,
    }
  }

  async save(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    assertTaskId(taskId, 'MemoryDurableStore.save')
    const expected = assertExpectedVersion(options, 'MemoryDurableStore.save')
    const text = serializeCheckpoint(taskId, checkpoint, 'MemoryDurableStore.save')
    await Promise.resolve()
    const current = this.records.get(taskId)
    if (current?.version !== expected)
      throw versionConflict(taskId, expected, current?.version, 'MemoryDurableStore.save')
    const version = (current?.version ?? 0) + 1
    this.records.set(taskId, { text, version })
    return { version }
  }

  async #acquire(taskId: string, ownerId: string, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
      const now = Date.now()
      const held = this.#leases.get(taskId)
      if (held === undefined || held.expiresAtMs <= now) {
        this.#leases.set(taskId, { ownerId, expiresAtMs: now + this.#leaseMs })
        return
      }
      await new Promise<void>((resolve) => {
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
  }

  #release(taskId: string, ownerId: string): void {
    if (this.#leases.get(taskId)?.ownerId === ownerId) this.#leases.delete(taskId)
    const waiters = this.#waiters.get(taskId)
    if (waiters === undefined) return
    this.#waiters.delete(taskId)
    for (const wake of [...waiters]) wake()
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
