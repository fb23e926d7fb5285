import { describeValue, refuseField } from '@agent-core/core'

/** Names a registry policy's fields `policy.<field>` in messages, bare in `details.field`. */
export const POLICY = Object.freeze({ prefix: 'policy.' })

/**
 * Reads a list of ids given as an array or a Set: each a non-empty string, none twice. Returns a fresh
 * array in the given order. `owner` names the definition in errors, `field` the list.
 * @throws `InvalidDefinitionError` naming the field and the offending entry
 */
export function readIdList(value: unknown, owner: string, field: string): readonly string[] {
  let items: unknown[]
  if (Array.isArray(value)) items = [...value]
  else if (value instanceof Set) items = [...value]
  else
    return refuseField(
      'definition',
      field,
      `must be an array (or a Set) of ids, but got ${describeValue(value)}`,
      value,
      { prefix: `${owner}: ` },
    )
  const seen = new Set<string>()
  items.forEach((item, index) => {
    if (typeof item !== 'string' || item.length === 0)
      refuseField(
        'definition',
        field,
        `[${index}] must be a non-empty string id, but is ${describeValue(item)}`,
        item,
        { prefix: `${owner}: ` },
      )
    if (seen.has(item as string))
      refuseField('definition', field, `lists "${item as string}" twice; each id may appear once`, item, {
        prefix: `${owner}: `,
      })
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
