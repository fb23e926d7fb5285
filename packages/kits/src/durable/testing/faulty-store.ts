import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableLease,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStore,
  StoredCheckpoint,
} from '../store.js'

/** The points where {@link FaultyStore} can inject a failure. */
export type FaultBoundary = 'exclusive' | 'load-before' | 'load-after' | 'save-before' | 'save-after'

/** Decides, for the n-th call that reaches a boundary (counting all boundaries), whether it fails. */
export type FaultSchedule = (boundary: FaultBoundary, call: number) => boolean

/** A connection-reset error like a network driver throws. */
export function connectionReset(boundary: FaultBoundary): Error {
  return Object.assign(new Error(`read ECONNRESET (injected at ${boundary})`), {
    code: 'ECONNRESET',
    injected: boundary,
  })
}

/** True for an error {@link connectionReset} made. */
export function isInjected(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'injected' in error
}

/**
 * Wraps a store and fails chosen calls: before the inner call (nothing happened) or after it (it happened,
 * but the caller is told it failed). Records every committed checkpoint as the task's history.
 */
export class FaultyStore implements DurableStore {
  readonly history: CheckpointV2[] = []
  readonly injected: FaultBoundary[] = []
  #calls = 0
  constructor(
    readonly inner: DurableStore,
    readonly schedule: FaultSchedule,
  ) {}

  #fault(boundary: FaultBoundary): void {
    const call = this.#calls++
    if (this.schedule(boundary, call)) {
      this.injected.push(boundary)
      throw connectionReset(boundary)
    }
  }

  exclusive<T>(
    taskId: string,
    operation: (lease: DurableLease) => Promise<T>,
    options?: DurableExclusiveOptions,
  ): Promise<T> {
    return this.inner.exclusive(
      taskId,
      async (lease) => {
        this.#fault('exclusive')
        return operation(lease)
      },
      options,
    )
  }

  async load(taskId: string): Promise<StoredCheckpoint | undefined> {
    this.#fault('load-before')
    const stored = await this.inner.load(taskId)
    this.#fault('load-after')
    return stored
  }

  async save(
    taskId: string,
    checkpoint: CheckpointV2,
    options: DurableSaveOptions,
  ): Promise<DurableSaveResult> {
    this.#fault('save-before')
    const result = await this.inner.save(taskId, checkpoint, options)
    this.history.push(structuredClone(checkpoint))
    this.#fault('save-after')
    return result
  }
}
