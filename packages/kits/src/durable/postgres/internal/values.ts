import { describeValue, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { assertTaskId } from '../../internal/store-support.js'

/** A task id every store accepts that PostgreSQL `text` can also hold (no U+0000). */
export function assertTextTaskId(taskId: unknown, where: string): asserts taskId is string {
  assertTaskId(taskId, where)
  if (taskId.includes('\u0000')) {
    throw new InvalidInputError(
      `${where}: taskId contains a NUL character, which PostgreSQL text cannot store. Use task ids without U+0000.`,
      { details: { name: 'taskId', received: describeValue(taskId) } },
    )
  }
}

/** A `bigint` version column as a safe integer (`pg` returns int8 as a string). */
export function parseVersion(value: unknown, taskId: string, where: string): number {
  const version = typeof value === 'string' ? Number(value) : value
  if (typeof version !== 'number' || !Number.isSafeInteger(version)) {
    throw new InvalidStateError(
      `${where}: the stored version of task "${taskId}" is ${describeValue(value)}, not a safe integer. Repair the row; versions are written by the store only.`,
      { details: { taskId, reason: 'corrupt-version' } },
    )
  }
  return version
}
