import type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableFencing,
  DurableLease,
  DurableStore,
} from '../../store.js'

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
 * but the caller is told it failed). Records every committed checkpoint as the task's history. It declares
 * what the inner store declares: with `fenced: false` it hides the inner fencing, as a contract-shaped
 * store would.
 */
export class FaultyStore implements DurableStore {
  readonly history: CheckpointV2[] = []
  readonly injected: FaultBoundary[] = []
  readonly fencing: DurableFencing | undefined
  readonly reportsLeaseWaits: boolean | undefined
  #calls = 0
  constructor(
    readonly inner: DurableStore,
    readonly schedule: FaultSchedule,
    options: { readonly fenced?: boolean } = {},
  ) {
    this.reportsLeaseWaits = inner.reportsLeaseWaits
    const fencing = options.fenced === false ? undefined : inner.fencing
    this.fencing = fencing && {
      load: (taskId) => this.#faulty('load', () => fencing.load(taskId)),
      save: (taskId, checkpoint, saveOptions) =>
        this.#faulty('save', () => fencing.save(taskId, checkpoint, saveOptions), checkpoint),
    }
  }

  #fault(boundary: FaultBoundary): void {
    const call = this.#calls++
    if (this.schedule(boundary, call)) {
      this.injected.push(boundary)
      throw connectionReset(boundary)
    }
  }

  async #faulty<T>(kind: 'load' | 'save', call: () => Promise<T>, saved?: CheckpointV2): Promise<T> {
    this.#fault(`${kind}-before`)
    const result = await call()
    if (saved !== undefined) this.history.push(structuredClone(saved))
    this.#fault(`${kind}-after`)
    return result
  }

  exclusive<T>(
    taskId: string,
    operation: (lease?: DurableLease) => Promise<T>,
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

  load(taskId: string): Promise<unknown> {
    return this.#faulty('load', () => this.inner.load(taskId))
  }

  save(taskId: string, checkpoint: CheckpointV2): Promise<unknown> {
    return this.#faulty('save', () => this.inner.save(taskId, checkpoint), checkpoint)
  }
}
