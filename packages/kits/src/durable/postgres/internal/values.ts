import { refuseField } from '@agent-core/core'
import { assertTaskId } from '../../internal/store-support.js'

/** A task id every store accepts that PostgreSQL `text` can also hold (no U+0000). */
export function assertTextTaskId(taskId: unknown): asserts taskId is string {
  assertTaskId(taskId)
  if (taskId.includes('\u0000')) {
    refuseField(
      'input',
      'taskId',
      'contains a NUL character, which PostgreSQL text cannot store. Use task ids without U+0000',
      taskId,
    )
  }
}
