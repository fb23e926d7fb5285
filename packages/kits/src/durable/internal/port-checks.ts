import { describeValue, InvalidStateError, isAbortSignal } from '@agent-core/core'
import type { DurableLease, DurableLeaseHolder, DurableLeaseTakeover } from '../store.js'

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

/** What a store read answered, once checked: the raw checkpoint and, from a fencing store, its version. */
export interface LoadedRecord {
  readonly checkpoint: unknown
  readonly version: number | undefined
}

function badLoad(taskId: string, stored: unknown, expected: string): InvalidStateError {
  return new InvalidStateError(
    `The store's load of task "${taskId}" returned ${describeValue(stored)}, not ${expected}. Nothing was written; fix the DurableStore implementation.`,
    { details: { taskId, received: describeValue(stored), reason: 'bad-load-result' } },
  )
}

/** Checks what a contract `load` resolved to: `undefined` (no task) or the stored checkpoint (never `null`). */
export function checkPlainLoad(stored: unknown, taskId: string): LoadedRecord | undefined {
  if (stored === undefined) return undefined
  if (stored === null)
    throw badLoad(taskId, null, 'undefined for a task that does not exist, or its checkpoint')
  return { checkpoint: stored, version: undefined }
}

/**
 * Checks what `fencing.load` resolved to: `undefined` or `{ checkpoint, version }`. A version that is not a
 * positive safe integer makes the record corrupt, refused like any other corrupt checkpoint.
 */
export function checkFencedLoad(stored: unknown, taskId: string): LoadedRecord | undefined {
  if (stored === undefined) return undefined
  if (typeof stored !== 'object' || stored === null || !('checkpoint' in stored)) {
    throw badLoad(taskId, stored, 'undefined or { checkpoint, version }')
  }
  const { checkpoint, version } = stored as { checkpoint: unknown; version?: unknown }
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new InvalidStateError(
      `The stored checkpoint of task "${taskId}" is refused: its fencing version is ${describeValue(version)}, not a positive safe integer. Nothing was written; repair or delete the stored record.`,
      { details: { taskId, field: 'version', received: describeValue(version), reason: 'corrupt' } },
    )
  }
  return { checkpoint, version }
}

/** The version of a fenced save result, or an {@link InvalidStateError} when the store answered something else. */
export function savedVersion(result: unknown, taskId: string): number {
  const version = (typeof result === 'object' && result !== null ? result : {}) as { version?: unknown }
  if (typeof version.version !== 'number' || !Number.isSafeInteger(version.version) || version.version < 1) {
    throw new InvalidStateError(
      `The store's fenced save of task "${taskId}" returned ${describeValue(result)}, not { version } with a positive safe-integer version. The write may have happened; fix the DurableStore implementation and run the task again.`,
      { details: { taskId, received: describeValue(result), reason: 'bad-save-result' } },
    )
  }
  return version.version
}

/** The parts of a lease the runner uses, checked: a store may pass none. */
export interface CheckedLease {
  readonly ownerId: string | undefined
  readonly signal: AbortSignal | undefined
  readonly takenOver: DurableLeaseTakeover | undefined
}

/** Checks the lease a store handed to the operation (`undefined` is allowed: the contract passes none). */
export function checkLease(lease: unknown, taskId: string): CheckedLease {
  if (lease === undefined) return { ownerId: undefined, signal: undefined, takenOver: undefined }
  const { ownerId, signal, takenOver } = (
    typeof lease === 'object' && lease !== null ? lease : {}
  ) as Partial<Record<keyof DurableLease, unknown>>
  if (
    typeof lease !== 'object' ||
    lease === null ||
    (signal !== undefined && !isAbortSignal(signal)) ||
    (takenOver !== undefined && (typeof takenOver !== 'object' || takenOver === null))
  ) {
    throw new InvalidStateError(
      `The store's exclusive handed the operation ${describeValue(lease)} as the lease of task "${taskId}", not { taskId, ownerId, signal?, takenOver? }. Nothing was written; fix the DurableStore implementation.`,
      { details: { taskId, received: describeValue(lease), reason: 'bad-lease' } },
    )
  }
  return {
    ownerId: typeof ownerId === 'string' ? ownerId : undefined,
    signal: signal as AbortSignal | undefined,
    takenOver: takenOver as DurableLeaseTakeover | undefined,
  }
}

/** Diagnostic data describing a lease holder a store reported, tolerating what a store may get wrong. */
export function holderData(holder: unknown): Record<string, unknown> {
  const value = (typeof holder === 'object' && holder !== null ? holder : {}) as Partial<DurableLeaseHolder>
  return {
    holder: typeof value.ownerId === 'string' ? value.ownerId : describeValue(value.ownerId),
    expiresAtMs: typeof value.expiresAtMs === 'number' ? value.expiresAtMs : null,
    ...(typeof value.host === 'string' ? { host: value.host } : {}),
    ...(typeof value.pid === 'number' ? { pid: value.pid } : {}),
  }
}
