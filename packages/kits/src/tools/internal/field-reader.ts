import { describeValue, FieldReader, InvalidInputError } from '@agent-core/core'
import { type JsonValue, jsonProblem } from './json.js'

/**
 * Core's {@link FieldReader} over a record read back from storage (parsed JSON): `value` must be a plain
 * object (its prototype `Object.prototype` or null), and every refusal starts with `what` (`"A tool call
 * state: state.status must be ..."`).
 */
export function readRecord(value: unknown, field: string, what: string): FieldReader {
  const context = { prefix: `${what}: ` }
  const reader = new FieldReader(value, field, 'a plain object', 'input', context)
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null)
    reader.failObject(`must be a plain object (parsed JSON), but got ${describeValue(value)}`)
  return reader
}

/** The nested record `key` of `reader`, read as {@link readRecord} reads (refusals start with `what`). */
export function readNestedRecord(reader: FieldReader, key: string, what: string): FieldReader {
  return readRecord(reader.get(key), reader.path(key), what)
}

/** The JSON value of the field `key` (refused when it is not JSON, or when missing unless `optional`). */
export function readJson(reader: FieldReader, key: string, optional = false): JsonValue | undefined {
  const value = reader.get(key)
  if (value === undefined && optional) return undefined
  const field = reader.path(key)
  const problem = jsonProblem(value, field)
  if (value === undefined) reader.fail(key, 'is missing', value)
  if (problem !== undefined) {
    // jsonProblem's text names the offending nested path itself, so it is no `<field> <problem>` refusal.
    throw new InvalidInputError(`${reader.context.prefix ?? ''}${problem}.`, {
      details: { field, received: describeValue(value) },
    })
  }
  return value as JsonValue
}
