import { AgentCoreError, type AgentCoreErrorOptions } from '@agent-core/core'

// The loop runs on sessions too (`agent.run({ session })`) and cannot import this kit: the two errors a
// run on a session throws are the loop's, and this kit exports the same classes.
export { SessionBusyError, SessionConflictError } from '@agent-core/kits/loop'

/**
 * A store could not complete an operation on a session or a fact (the database is unreachable, closed,
 * or holds a record that is not one of ours). The driver's error is the `cause`.
 * @example
 * ```ts
 * import { SessionStoreError } from '@agent-core/kits/memory'
 * const error = new SessionStoreError('The SQLite session store could not read "chat-1". Check the file.', {
 *   details: { sessionId: 'chat-1', operation: 'read' },
 * })
 * ```
 */
export class SessionStoreError extends AgentCoreError {
  static override readonly code = 'session-store-failed'
  declare readonly code: 'session-store-failed'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('session-store-failed', message, options)
  }
}

/**
 * A compaction did not happen: the summarizer failed, answered nothing, or the session changed while it
 * ran. The session's history is exactly as it was. `details.reason` is `'summarizer-failed'`,
 * `'empty-summary'` or `'conflict'`; the summarizer's error is the `cause`. A session run reports it in
 * its result (`compaction.error`) and goes on with the history it had.
 * @example
 * ```ts
 * import { CompactionError } from '@agent-core/kits/memory'
 * const error = new CompactionError('The summarizer answered nothing; the history is unchanged.', {
 *   details: { sessionId: 'chat-1', reason: 'empty-summary' },
 * })
 * ```
 */
export class CompactionError extends AgentCoreError {
  static override readonly code = 'compaction-failed'
  declare readonly code: 'compaction-failed'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('compaction-failed', message, options)
  }
}
