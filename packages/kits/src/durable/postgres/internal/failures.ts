import { AgentCoreError } from '@agent-core/core'
import { DurableStoreError } from '@agent-core/kits/durable'

/** What the store was doing when PostgreSQL failed; `details.operation` of the error. */
export type PostgresStoreOperation = 'connect' | 'ensure-schema' | 'lock' | 'load' | 'save' | 'list' | 'close'

/** SQLSTATE classes and codes (and socket error codes) after which running the task again is the answer. */
const RETRYABLE_CODES = new Set([
  '55P03',
  '57014',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
])

/** The SQLSTATE or system error code of a driver error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}

/**
 * Wraps a driver failure in a {@link DurableStoreError} with `details.operation`, `details.taskId`,
 * `details.sqlState` and `details.retryable`; agent-core errors pass through unchanged.
 */
export function storeFailure(
  error: unknown,
  operation: PostgresStoreOperation,
  taskId?: string,
): AgentCoreError {
  if (AgentCoreError.isInstance(error)) return error
  const sqlState = errorCode(error)
  const message = error instanceof Error ? error.message : String(error)
  // The driver reports a dropped connection as a plain Error without a code.
  const lostConnection =
    /connection terminated|connection (?:closed|ended|lost)|connection error|not queryable/i.test(message)
  const retryable =
    lostConnection ||
    (sqlState !== undefined && (RETRYABLE_CODES.has(sqlState) || /^(08|53|57P|40)/.test(sqlState)))
  const what = taskId === undefined ? operation : `${operation} of task "${taskId}"`
  const advice = retryable
    ? 'The connection or the server failed; run the task again (it resumes from the last saved checkpoint).'
    : sqlState === '42703'
      ? 'The table lacks a column this store needs (status, definition_id): migrate it to the layout of postgresDurableTableSql(), or let the store add them with createTable: true.'
      : 'Check the database, the table and the privileges of the connecting role, then run the task again.'
  return new DurableStoreError(`PostgreSQL durable store: ${what} failed: ${message}. ${advice}`, {
    cause: error,
    details: { store: 'postgres', operation, taskId, sqlState, retryable },
  })
}
