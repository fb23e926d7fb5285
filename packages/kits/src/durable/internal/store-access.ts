import { raceSignal } from '@agent-core/core'
import type { CheckpointV2, DurableFencing, DurableStore } from '../store.js'
import { checkFencedLoad, checkPlainLoad, type LoadedRecord, savedVersion } from './port-checks.js'

/**
 * The runner's view of a store: reads and writes through the store's version fencing when it declares it,
 * and through the contract's `load` / `save` otherwise. Every answer is checked before it is used.
 */
export class StoreAccess {
  readonly store: DurableStore
  readonly taskId: string
  readonly #fencing: DurableFencing | undefined

  constructor(store: DurableStore, taskId: string) {
    this.store = store
    this.taskId = taskId
    this.#fencing = store.fencing
  }

  /** True when saves are compare-and-set on a fencing version. */
  get fenced(): boolean {
    return this.#fencing !== undefined
  }

  /** Reads the task (racing `signal` when given); `undefined` when it does not exist. */
  async read(signal?: AbortSignal, point = ''): Promise<LoadedRecord | undefined> {
    const fencing = this.#fencing
    const reading = fencing ? fencing.load(this.taskId) : this.store.load(this.taskId)
    const answer: unknown = signal ? await raceSignal(Promise.resolve(reading), signal, point) : await reading
    return fencing ? checkFencedLoad(answer, this.taskId) : checkPlainLoad(answer, this.taskId)
  }

  /**
   * Writes `checkpoint`: a compare-and-set on `expectedVersion` (resolving the new version) when fenced,
   * the contract's `save` (resolving `undefined`) otherwise. The store's errors pass through unchanged.
   */
  async write(checkpoint: CheckpointV2, expectedVersion: number | undefined): Promise<number | undefined> {
    const fencing = this.#fencing
    if (fencing === undefined) {
      await this.store.save(this.taskId, checkpoint)
      return undefined
    }
    return savedVersion(await fencing.save(this.taskId, checkpoint, { expectedVersion }), this.taskId)
  }
}
