import { AgentCoreError, type AgentCoreErrorOptions } from '@agent-core/core'

/**
 * A store could not complete an operation (the database is unreachable, busy, closed or failed). The
 * driver's error is the `cause`. The outcome of a failed `save` is unknown: the task runner reads the task
 * back to find out whether the write committed before it gives up.
 * @example
 * ```ts
 * import { DurableStoreError } from '@agent-core/kits/durable'
 * const error = new DurableStoreError('The SQLite store failed to save task "t1". Check the database file.', {
 *   details: { taskId: 't1', operation: 'save' },
 * })
 * DurableStoreError.isInstance(error) // true
 * ```
 */
export class DurableStoreError extends AgentCoreError {
  static override readonly code = 'durable-store-failed'
  declare readonly code: 'durable-store-failed'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('durable-store-failed', message, options)
  }
}
