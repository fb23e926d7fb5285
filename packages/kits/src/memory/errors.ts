import { AgentCoreError, type AgentCoreErrorOptions } from '@agent-core/core'

/**
 * A write to a session was refused because the session changed since it was read: another run (in this
 * process with `concurrency: 'refuse'` off, or in another process sharing the database) appended, popped,
 * cleared or compacted in between. Nothing of the refused write was stored. `details` carry the
 * `sessionId`, the `expectedRevision` and the `revision` the store found. Read the session again and retry
 * the run if it still makes sense.
 * @example
 * ```ts
 * import { SessionConflictError } from '@agent-core/kits/memory'
 * const error = new SessionConflictError('Session "chat-1" changed (revision 4, expected 3). Read it again.', {
 *   details: { sessionId: 'chat-1', expectedRevision: 3, revision: 4 },
 * })
 * SessionConflictError.isInstance(error) // true
 * ```
 */
export class SessionConflictError extends AgentCoreError {
  static override readonly code = 'session-conflict'
  declare readonly code: 'session-conflict'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('session-conflict', message, options)
  }
}

/**
 * A run on a session was refused because another run on the same session is still going in this process
 * (`concurrency: 'refuse'`), or because the session holds a suspended run that must be resumed first.
 * `details.sessionId` names the session, `details.reason` is `'running'` or `'suspended'`.
 * @example
 * ```ts
 * import { SessionBusyError } from '@agent-core/kits/memory'
 * const error = new SessionBusyError('Session "chat-1" has a run going. Wait for it.', {
 *   details: { sessionId: 'chat-1', reason: 'running' },
 * })
 * error.code // 'session-busy'
 * ```
 */
export class SessionBusyError extends AgentCoreError {
  static override readonly code = 'session-busy'
  declare readonly code: 'session-busy'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('session-busy', message, options)
  }
}

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
