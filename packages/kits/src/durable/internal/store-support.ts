import { randomUUID } from 'node:crypto'
import { ConflictError, describeValue, InvalidInputError, InvalidStateError } from '@agent-core/core'

/** Checks a task id the way every store does: a non-empty string. */
export function assertTaskId(taskId: unknown, where: string): asserts taskId is string {
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new InvalidInputError(
      `${where}: taskId must be a non-empty string, but got ${describeValue(taskId)}. Pass the id of the task.`,
      { details: { name: 'taskId', received: describeValue(taskId) } },
    )
  }
}

/** Checks the `expectedVersion` option of a save. */
export function assertExpectedVersion(options: unknown, where: string): number | undefined {
  if (typeof options !== 'object' || options === null || !('expectedVersion' in options)) {
    throw new InvalidInputError(
      `${where}: the options must be { expectedVersion }, but got ${describeValue(options)}. Pass the version from load, or undefined to create the task.`,
      { details: { name: 'options', received: describeValue(options) } },
    )
  }
  const expected = (options as { expectedVersion: unknown }).expectedVersion
  if (expected !== undefined && (typeof expected !== 'number' || !Number.isSafeInteger(expected))) {
    throw new InvalidInputError(
      `${where}: expectedVersion must be a safe integer or undefined, but got ${describeValue(expected)}. Pass the version load returned.`,
      { details: { name: 'expectedVersion', received: describeValue(expected) } },
    )
  }
  return expected
}

/** Serializes a checkpoint to JSON text, refusing what JSON cannot carry. */
export function serializeCheckpoint(taskId: string, checkpoint: unknown, where: string): string {
  if (typeof checkpoint !== 'object' || checkpoint === null || Array.isArray(checkpoint)) {
    throw new InvalidInputError(
      `${where}: the checkpoint of task "${taskId}" must be an object, but got ${describeValue(checkpoint)}.`,
      {
        details: { taskId, received: describeValue(checkpoint) },
      },
    )
  }
  let text: string | undefined
  try {
    text = JSON.stringify(checkpoint)
  } catch (error) {
    throw new InvalidInputError(
      `${where}: the checkpoint of task "${taskId}" cannot be serialized as JSON. Keep the task state to plain JSON values.`,
      { cause: error, details: { taskId } },
    )
  }
  return text as string
}

/** Parses stored JSON text; corrupt text is an {@link InvalidStateError}, never a missing task. */
export function deserializeCheckpoint(taskId: string, text: unknown, where: string): unknown {
  if (typeof text !== 'string') {
    throw new InvalidStateError(
      `${where}: the stored checkpoint of task "${taskId}" is ${describeValue(text)}, not JSON text. Repair or delete the stored record.`,
      { details: { taskId, reason: 'corrupt' } },
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

/** A fresh lease owner id. */
export function newOwnerId(prefix: string): string {
  return `${prefix}:${randomUUID()}`
}

/** Checks an optional positive-integer option. */
export function optionalPositiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(
      `${name} must be a safe integer of at least 1, but got ${describeValue(value)}.`,
      {
        details: { name, received: describeValue(value) },
      },
    )
  }
  return value
}
