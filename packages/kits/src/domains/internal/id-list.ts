import { describeValue, InvalidDefinitionError } from '@agent-core/core'

/**
 * Reads a list of ids given as an array or a Set: each a non-empty string, none twice. Returns a fresh
 * array in the given order. `owner` names the definition in errors, `field` the list.
 * @throws `InvalidDefinitionError` naming the field and the offending entry
 */
export function readIdList(value: unknown, owner: string, field: string): readonly string[] {
  const fail = (problem: string, received: unknown): never => {
    throw new InvalidDefinitionError(`${owner}: ${field} ${problem}.`, {
      details: { field, received: describeValue(received) },
    })
  }
  let items: unknown[]
  if (Array.isArray(value)) items = [...value]
  else if (value instanceof Set) items = [...value]
  else return fail(`must be an array (or a Set) of ids, but got ${describeValue(value)}`, value)
  const seen = new Set<string>()
  items.forEach((item, index) => {
    if (typeof item !== 'string' || item.length === 0)
      fail(`[${index}] must be a non-empty string id, but is ${describeValue(item)}`, item)
    if (seen.has(item as string)) fail(`lists "${item as string}" twice; each id may appear once`, item)
    seen.add(item as string)
  })
  return items as string[]
}

/**
 * Anything that can say which ids it holds: a core `Registry`, a `ToolLifecycleRegistry`, an
 * `IntentRegistry`, ... Scopes, intents and the catalog check ids against it.
 * @example
 * ```ts
 * import type { IdSource } from '@agent-core/kits/domains'
 * const topics: IdSource = { has: (id) => id === 'refund-policy', ids: () => ['refund-policy'] }
 * ```
 */
export interface IdSource {
  has(id: string): boolean
  ids(): readonly string[]
}

/** True for an object with `has` and `ids` methods. */
export function isIdSource(value: unknown): value is IdSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as IdSource).has === 'function' &&
    typeof (value as IdSource).ids === 'function'
  )
}

/** `"a", "b"` or `(none)`, for messages. */
export function quoteIds(ids: readonly string[]): string {
  return ids.length ? ids.map((id) => `"${id}"`).join(', ') : '(none)'
}
