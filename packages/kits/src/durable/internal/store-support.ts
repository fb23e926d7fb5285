import {
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  ConflictError,
  createId,
  describeValue,
  InvalidStateError,
  isAbortSignal,
  refuseField,
} from '@agent-core/core'
import type { DurableExclusiveOptions, DurableLeaseWait, DurableStatus } from '../store.js'

/** Checks a task id the way every store does: a non-empty string. */
export function assertTaskId(taskId: unknown): asserts taskId is string {
  assertNonEmptyString(taskId, 'taskId')
}

/** Checks the options of `exclusive`: an object (or undefined) with an optional signal and onWait. */
export function exclusiveOptions(options: unknown): DurableExclusiveOptions {
  if (options === undefined) return {}
  assertObject(options, 'options')
  const { signal, onWait } = options as DurableExclusiveOptions
  if (signal !== undefined && !isAbortSignal(signal)) {
    refuseField('input', 'options.signal', `must be an AbortSignal, but got ${describeValue(signal)}`, signal)
  }
  if (onWait !== undefined) assertFunction(onWait, 'options.onWait')
  return { signal, onWait }
}

/** Calls an `onWait` callback; what it throws is ignored (a report must never break the wait). */
export function reportWait(onWait: DurableExclusiveOptions['onWait'], wait: DurableLeaseWait): void {
  try {
    onWait?.(wait)
  } catch {
    // A diagnostics callback that throws changes nothing about the lease.
  }
}

/** Checks the `expectedVersion` option of a fenced save: undefined (create) or a positive safe integer. */
export function assertExpectedVersion(options: unknown): number | undefined {
  assertObject(options, 'options')
  if (!('expectedVersion' in options)) {
    refuseField(
      'input',
      'options.expectedVersion',
      'is missing: options must be { expectedVersion }; pass the version load returned, or undefined to create the task',
      undefined,
      { received: 'no expectedVersion' },
    )
  }
  const expected = options.expectedVersion
  if (expected !== undefined) assertSafeInteger(expected, 'options.expectedVersion', { min: 1 })
  return expected
}

/** A stored fencing version as read from storage: a positive safe integer, else the record is corrupt. */
export function storedVersion(value: unknown, taskId: string, where: string): number {
  const version = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new InvalidStateError(
      `${where}: the stored version of task "${taskId}" is ${describeValue(value)}, not a positive safe integer, so the record is corrupt. Repair or delete the stored record; versions are written by the store only.`,
      { details: { taskId, reason: 'corrupt', field: 'version', received: describeValue(value) } },
    )
  }
  return version
}

/** Serializes a checkpoint to JSON text, refusing what JSON cannot carry. */
export function serializeCheckpoint(taskId: string, checkpoint: unknown, where: string): string {
  if (typeof checkpoint !== 'object' || checkpoint === null || Array.isArray(checkpoint)) {
    refuseField(
      'input',
      'checkpoint',
      `must be an object, but got ${describeValue(checkpoint)}`,
      checkpoint,
      { prefix: `${where}: task "${taskId}": `, details: { taskId } },
    )
  }
  let text: string | undefined
  try {
    text = JSON.stringify(checkpoint)
  } catch (error) {
    refuseField(
      'input',
      'checkpoint',
      'cannot be serialized as JSON; keep the task state to plain JSON values',
      checkpoint,
      { prefix: `${where}: task "${taskId}": `, details: { taskId }, cause: error },
    )
  }
  return text as string
}

/** Parses stored JSON text; corrupt text is an {@link InvalidStateError}, never a missing task. */
export function deserializeCheckpoint(taskId: string, text: unknown, where: string): unknown {
  if (typeof text !== 'string') {
    throw new InvalidStateError(
      `${where}: the stored checkpoint of task "${taskId}" is ${describeValue(text)}, not JSON text. Repair or delete the stored record.`,
      { details: { taskId, reason: 'corrupt', received: describeValue(text) } },
    )
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new InvalidStateError(
      `${where}: the stored checkpoint of task "${taskId}" is not valid JSON (${text.length} characters). Repair or delete the stored record; it is never replaced by a fresh task.`,
      { cause: error, details: { taskId, reason: 'corrupt' } },
    )
  }
}

const STATUSES: ReadonlySet<string> = new Set<DurableStatus>(['running', 'completed', 'failed', 'expired'])

/** The indexable columns of a checkpoint: its status and definition, or `null` when it has none readable. */
export function summaryColumns(checkpoint: unknown): {
  readonly status: DurableStatus | null
  readonly definitionId: string | null
} {
  const record = (typeof checkpoint === 'object' && checkpoint !== null ? checkpoint : {}) as {
    status?: unknown
    definitionId?: unknown
  }
  const status = typeof record.status === 'string' && STATUSES.has(record.status) ? record.status : null
  const definitionId = typeof record.definitionId === 'string' ? record.definitionId : null
  return { status: status as DurableStatus | null, definitionId }
}

/** The refusal of a save whose fencing token is stale. */
export function versionConflict(
  taskId: string,
  expected: number | undefined,
  actual: number | undefined,
  where: string,
): ConflictError {
  const found = actual === undefined ? 'no checkpoint is stored' : `the stored version is ${actual}`
  const wanted = expected === undefined ? 'to create it' : `version ${expected}`
  return new ConflictError(
    `${where}: the save of task "${taskId}" expected ${wanted}, but ${found}: another owner changed it. Reload the checkpoint and decide again; do not overwrite.`,
    { details: { taskId, expectedVersion: expected, actualVersion: actual } },
  )
}

/** The abort reason of a lease signal: the store can no longer vouch for the lease. */
export function leaseLost(taskId: string, ownerId: string, why: string, cause?: unknown): ConflictError {
  return new ConflictError(
    `The lease of task "${taskId}" held by ${ownerId} was lost: ${why}. Another owner may run the task now; stop working on it and run the task again to continue from the stored checkpoint.`,
    { cause, details: { taskId, ownerId, reason: 'lease-lost' } },
  )
}

/** A fresh lease owner id, `<prefix>:owner_<32 hex digits>` (core's createId behind the store's name). */
export function newOwnerId(prefix: string): string {
  return `${prefix}:${createId('owner')}`
}

/** Checks an optional positive-integer option and applies its default. */
export function optionalPositiveInteger(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback
  assertSafeInteger(value, field, { min: 1 })
  return value
}
