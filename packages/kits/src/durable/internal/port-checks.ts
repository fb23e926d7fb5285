import { describeValue, InvalidStateError } from '@agent-core/core'
import type { DurableSaveResult, StoredCheckpoint } from '../store.js'

/**
 * Wraps the clock so that a value that is not a finite, non-negative epoch millisecond count is refused
 * with an {@link InvalidStateError} instead of turning deadlines into NaN. Fractions are floored, so a
 * computed deadline stays a safe integer that the checkpoint format accepts.
 */
export function checkedClock(now: () => number, definitionId: string): () => number {
  return () => {
    const value: unknown = now()
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < 0 ||
      value > Number.MAX_SAFE_INTEGER
    ) {
      throw new InvalidStateError(
        `Durable task "${definitionId}": the clock (options.now or context.now) returned ${describeValue(value)}, not epoch milliseconds. Pass a now() that returns a finite non-negative number such as Date.now().`,
        { details: { definitionId, received: describeValue(value), reason: 'bad-clock' } },
      )
    }
    return Math.floor(value)
  }
}

/** Checks what `store.load` resolved to: `undefined` or `{ checkpoint, version }` with a safe-integer version. */
export function checkLoaded(stored: unknown, taskId: string): StoredCheckpoint | undefined {
  if (stored === undefined) return undefined
  const record = stored as Partial<StoredCheckpoint> | null
  if (
    typeof record !== 'object' ||
    record === null ||
    !('checkpoint' in record) ||
    typeof record.version !== 'number' ||
    !Number.isSafeInteger(record.version)
  ) {
    throw new InvalidStateError(
      `The store's load of task "${taskId}" returned ${describeValue(stored)}, not undefined or { checkpoint, version } with a safe-integer version. Nothing was written; fix the DurableStore implementation.`,
      { details: { taskId, received: describeValue(stored), reason: 'bad-load-result' } },
    )
  }
  return record as StoredCheckpoint
}

/** The version of a save result, or an {@link InvalidStateError} when the store answered something else. */
export function savedVersion(result: unknown, taskId: string): number {
  const version = (typeof result === 'object' && result !== null ? result : {}) as Partial<DurableSaveResult>
  if (typeof version.version !== 'number' || !Number.isSafeInteger(version.version)) {
    throw new InvalidStateError(
      `The store's save of task "${taskId}" returned ${describeValue(result)}, not { version } with a safe-integer version. The write may have happened; fix the DurableStore implementation and run the task again.`,
      { details: { taskId, received: describeValue(result), reason: 'bad-save-result' } },
    )
  }
  return version.version
}
