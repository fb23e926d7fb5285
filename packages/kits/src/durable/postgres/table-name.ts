import { describeValue, refuseField } from '@agent-core/core'

/** The table a PostgreSQL durable store uses when none is named. */
export const DEFAULT_TABLE_NAME = 'agent_core_durable_checkpoints'

const PART = /^[A-Za-z_][A-Za-z0-9_]*$/
/** PostgreSQL truncates identifiers longer than this many bytes (NAMEDATALEN - 1). */
const MAX_PART_LENGTH = 63

/** A validated table name: how it is quoted in SQL and how it names the lock namespace. */
export interface TableName {
  /** As the caller wrote it, e.g. `app.durable_tasks`. */
  readonly text: string
  /** Double-quoted for SQL, e.g. `"app"."durable_tasks"`. */
  readonly sql: string
}

/**
 * Checks a table name and quotes it. Only `name` or `schema.name` made of ASCII letters, digits and
 * underscores (not starting with a digit, at most 63 characters each) is accepted, so the name can never
 * carry SQL. Quoting keeps the case as written.
 */
export function parseTableName(value: unknown): TableName {
  const parts = typeof value === 'string' ? value.split('.') : []
  const valid =
    parts.length >= 1 &&
    parts.length <= 2 &&
    parts.every((part) => PART.test(part) && part.length <= MAX_PART_LENGTH)
  if (!valid) {
    refuseField(
      'input',
      'tableName',
      `must be "name" or "schema.name" where each part is 1 to ${MAX_PART_LENGTH} ASCII letters, digits or underscores and does not start with a digit, but got ${describeValue(value)}. Pick a plain identifier such as "${DEFAULT_TABLE_NAME}"`,
      value,
    )
  }
  return { text: value as string, sql: parts.map((part) => `"${part}"`).join('.') }
}
