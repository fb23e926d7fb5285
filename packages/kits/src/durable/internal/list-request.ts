import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  refuseField,
} from '@agent-core/core'
import type { DurableListRequest, DurableStatus } from '../store.js'

const ALL_STATUSES: readonly DurableStatus[] = ['running', 'completed', 'failed', 'expired']
export const DEFAULT_LIST_LIMIT = 100
export const MAX_LIST_LIMIT = 10_000

/** A checked {@link DurableListRequest}, defaults applied. */
export interface ParsedListRequest {
  /** The wanted statuses, without duplicates, in the order of {@link ALL_STATUSES}. */
  readonly statuses: readonly DurableStatus[]
  readonly definitionId: string | undefined
  readonly after: string | undefined
  readonly limit: number
}

/** Checks the request of a store's `list`; throws `InvalidInputError` naming the bad field. */
export function parseListRequest(request: unknown): ParsedListRequest {
  if (request === undefined) {
    return { statuses: ALL_STATUSES, definitionId: undefined, after: undefined, limit: DEFAULT_LIST_LIMIT }
  }
  assertObject(request, 'request')
  const { status, definitionId, after, limit } = request as DurableListRequest
  const wanted = status === undefined ? ALL_STATUSES : Array.isArray(status) ? status : [status]
  for (const value of wanted) {
    if (!ALL_STATUSES.includes(value as DurableStatus)) {
      refuseField(
        'input',
        'request.status',
        `must be one of ${ALL_STATUSES.join(', ')} (or an array of them), but got ${describeValue(value)}`,
        value,
      )
    }
  }
  if (definitionId !== undefined) assertNonEmptyString(definitionId, 'request.definitionId')
  if (after !== undefined && typeof after !== 'string') {
    refuseField(
      'input',
      'request.after',
      `must be a task id (a string), but got ${describeValue(after)}. Pass the last task id of the previous page`,
      after,
    )
  }
  if (limit !== undefined) assertSafeInteger(limit, 'request.limit', { min: 1, max: MAX_LIST_LIMIT })
  return {
    statuses: ALL_STATUSES.filter((value) => wanted.includes(value)),
    definitionId,
    after,
    limit: limit ?? DEFAULT_LIST_LIMIT,
  }
}

/**
 * Orders task ids by Unicode code point, which is the byte order of their UTF-8 encoding: the order of the
 * SQL stores (`BINARY` in SQLite, `COLLATE "C"` in PostgreSQL).
 */
export function compareTaskIds(a: string, b: string): number {
  const left = a[Symbol.iterator]()
  const right = b[Symbol.iterator]()
  for (;;) {
    const x = left.next()
    const y = right.next()
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1
    const difference = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0)
    if (difference !== 0) return difference
  }
}
