import {
  assertFunction,
  assertNonEmptyString,
  assertNotThenable,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  refuseField,
} from '@agent-core/core'

/**
 * Where a duplicate was met: its key and its position in the inputs.
 * @example
 * ```ts
 * import { defineQueryAggregation, type DuplicateItem } from '@agent-core/kits/aggregation'
 * const seen: DuplicateItem[] = []
 * const hits = defineQueryAggregation<{ id: string }>({
 *   id: 'hits',
 *   key: (hit) => hit.id,
 *   onDuplicate: (kept, _incoming, duplicate) => (seen.push(duplicate), kept),
 * })
 * hits.collect([[{ id: 'a' }], [{ id: 'a' }]])
 * seen // [{ key: 'a', inputIndex: 1, itemIndex: 0 }]
 * ```
 */
export interface DuplicateItem {
  readonly key: string
  /** Index of the input list the incoming item came from. */
  readonly inputIndex: number
  /** Index of the incoming item within its input list. */
  readonly itemIndex: number
}

/**
 * What happens when an item's key was already seen: `'keep-first'` ignores the newcomer, `'keep-last'`
 * lets it replace the kept item, and a function returns the item to keep (for example a merge). In every
 * case the item stays at the position where its key first appeared.
 * @example
 * ```ts
 * import type { DuplicatePolicy } from '@agent-core/kits/aggregation'
 * type Hit = { id: string; score: number }
 * const keepBest: DuplicatePolicy<Hit, undefined> = (kept, incoming) => (incoming.score > kept.score ? incoming : kept)
 * ```
 */
export type DuplicatePolicy<Item, Context> =
  | 'keep-first'
  | 'keep-last'
  | ((kept: Item, incoming: Item, duplicate: DuplicateItem, context: Context) => Item)

/**
 * How to merge the results of several queries into one list. `Context` is whatever the caller declares;
 * `collect` hands it to the hooks untouched and gives it no lifecycle.
 * @example
 * ```ts
 * import { defineQueryAggregation, type QueryAggregationDefinition } from '@agent-core/kits/aggregation'
 * const definition: QueryAggregationDefinition<{ url: string }, { normalize: (url: string) => string }> = {
 *   id: 'links',
 *   key: (link, context) => context.normalize(link.url),
 *   onDuplicate: 'keep-first',
 *   limit: 20,
 * }
 * const links = defineQueryAggregation(definition)
 * ```
 */
export interface QueryAggregationDefinition<Item, Context = undefined> {
  /** Names the aggregation in error messages. */
  readonly id: string
  /** The deduplication key of an item. Synchronous; must return a string. */
  key(item: Item, context: Context): string
  /** The override rule for an item whose key was already seen. Default `'keep-first'`. */
  readonly onDuplicate?: DuplicatePolicy<Item, Context>
  /**
   * The most items `collect` returns, counted in distinct keys in serial order. A non-negative safe
   * integer; default: no limit.
   */
  readonly limit?: number
}

/**
 * Counts of one input list.
 * @example
 * ```ts
 * import { defineQueryAggregation } from '@agent-core/kits/aggregation'
 * const ids = defineQueryAggregation<string>({ id: 'ids', key: (id) => id })
 * ids.collect([['a', 'b'], ['b', 'c']]).counts.perInput // [{ received: 2, added: 2 }, { received: 2, added: 1 }]
 * ```
 */
export interface QueryInputCounts {
  /** Items in this input, duplicates included. */
  readonly received: number
  /** Items of this input whose key had not appeared in an earlier input or earlier in this one. */
  readonly added: number
}

/**
 * Every count names its basis, so a "37 results" never leaves open whether duplicates were counted.
 * @example
 * ```ts
 * import { defineQueryAggregation } from '@agent-core/kits/aggregation'
 * const ids = defineQueryAggregation<string>({ id: 'ids', key: (id) => id, limit: 2 })
 * const { counts } = ids.collect([['a', 'b'], ['b', 'c']])
 * // { inputs: 2, received: 4, unique: 3, duplicates: 1, returned: 2, overLimit: 1, perInput: [...] }
 * ```
 */
export interface QueryAggregationCounts {
  /** How many input lists were collected. */
  readonly inputs: number
  /** All items of all inputs, duplicates included. */
  readonly received: number
  /** Distinct keys over all inputs (the limit does not change it). */
  readonly unique: number
  /** `received - unique`: items whose key was already seen. */
  readonly duplicates: number
  /** Items returned: `min(unique, limit)`. */
  readonly returned: number
  /** Distinct keys left out by the limit: `unique - returned`. */
  readonly overLimit: number
  /** Per input, in input order. */
  readonly perInput: readonly QueryInputCounts[]
}

/**
 * The merged list and its counts.
 * @example
 * ```ts
 * import { defineQueryAggregation, type QueryAggregationResult } from '@agent-core/kits/aggregation'
 * const ids = defineQueryAggregation<string>({ id: 'ids', key: (id) => id })
 * const result: QueryAggregationResult<string> = ids.collect([['a'], ['a', 'b']])
 * result.items // ['a', 'b']
 * ```
 */
export interface QueryAggregationResult<Item> {
  /** One item per key, in the serial order of first appearance (input by input, item by item). */
  readonly items: readonly Item[]
  readonly counts: QueryAggregationCounts
}

/**
 * The context argument of `collect`: optional when `Context` admits `undefined`.
 * @example
 * ```ts
 * import type { AggregationContextArgument } from '@agent-core/kits/aggregation'
 * const none: AggregationContextArgument<undefined> = [] // collect(inputs)
 * const some: AggregationContextArgument<{ locale: string }> = [{ locale: 'de' }] // collect(inputs, context)
 * ```
 */
export type AggregationContextArgument<Context> = undefined extends Context
  ? [context?: Context]
  : [context: Context]

/**
 * A compiled query aggregation, built by {@link defineQueryAggregation}.
 * @example
 * ```ts
 * import { defineQueryAggregation, type QueryAggregation } from '@agent-core/kits/aggregation'
 * const hits: QueryAggregation<{ id: string }> = defineQueryAggregation({ id: 'hits', key: (hit: { id: string }) => hit.id })
 * hits.collect([[{ id: 'a' }], [{ id: 'a' }, { id: 'b' }]]).items // [{ id: 'a' }, { id: 'b' }]
 * ```
 */
export interface QueryAggregation<Item, Context = undefined> {
  readonly id: string
  /**
   * Merges the inputs (one array per query, in the order the queries ran) into one deduplicated list.
   * Synchronous. Throws InvalidInputError for inputs that are not arrays of arrays, RejectedThenableError
   * when a hook returns a Promise and InvalidOutputError when `key` returns a non-string.
   */
  collect(
    inputs: readonly (readonly Item[])[],
    ...context: AggregationContextArgument<Context>
  ): QueryAggregationResult<Item>
}

/**
 * Defines how the results of several queries merge into one list.
 *
 * `collect(inputs, context)` walks the inputs serially (input by input, item by item), computes each item's
 * key and keeps one item per key at the position where the key first appeared. A later item with a seen
 * key is handled by `onDuplicate` (keep the first, keep the last, or a function's choice); the function runs
 * only for keys that are returned. `limit` caps the returned items in distinct keys; the counts always cover
 * every input and say which basis they use (received, unique, duplicates, returned, over the limit, per
 * input).
 *
 * Members are read once here (prototype getters work); `key` and a duplicate function are called with the
 * definition as `this`.
 *
 * @throws InvalidDefinitionError when the definition is malformed
 * @example
 * ```ts
 * import { defineQueryAggregation } from '@agent-core/kits/aggregation'
 *
 * const hits = defineQueryAggregation<{ id: string; score: number }>({ id: 'hits', key: (hit) => hit.id })
 * const { items, counts } = hits.collect([
 *   [{ id: 'a', score: 3 }, { id: 'b', score: 2 }],
 *   [{ id: 'b', score: 9 }, { id: 'c', score: 1 }],
 * ])
 * items.map((hit) => hit.id) // ['a', 'b', 'c']
 * counts.received // 4
 * counts.unique // 3
 * ```
 */
export function defineQueryAggregation<Item, Context = undefined>(
  definition: QueryAggregationDefinition<Item, Context>,
): QueryAggregation<Item, Context> {
  const error = InvalidDefinitionError
  assertObject(definition as unknown, 'definition', {
    where: 'defineQueryAggregation',
    error,
    hint: 'Pass { id, key, onDuplicate?, limit? }.',
  })
  const id = definition.id
  assertNonEmptyString(id, 'id', {
    where: 'defineQueryAggregation',
    error,
    hint: 'It names the aggregation in error messages.',
  })
  const what = `query aggregation "${id}"`
  const key = definition.key as unknown
  assertFunction(key, 'key', {
    where: what,
    error,
    details: { id },
    hint: 'Pass key(item, context) returning the deduplication key of an item as a string.',
  })
  const onDuplicate = (definition.onDuplicate ?? 'keep-first') as unknown
  if (onDuplicate !== 'keep-first' && onDuplicate !== 'keep-last' && typeof onDuplicate !== 'function') {
    refuseField(
      'definition',
      'onDuplicate',
      `must be 'keep-first', 'keep-last' or a function, but got ${describeValue(onDuplicate)}. Leave it out to keep the first item of each key`,
      onDuplicate,
      { prefix: `${what}: `, details: { id } },
    )
  }
  const limit = (definition.limit ?? Number.MAX_SAFE_INTEGER) as unknown
  assertSafeInteger(limit, 'limit', {
    min: 0,
    where: what,
    error,
    details: { id },
    hint: 'Pass how many distinct keys to return, or leave it out for no limit.',
  })

  function keyOf(item: Item, context: Context, inputIndex: number, itemIndex: number): string {
    const hook = `${what} key`
    const value = assertNotThenable(
      Reflect.apply(key as (...args: never[]) => unknown, definition, [item, context]),
      hook,
    )
    if (typeof value !== 'string') {
      refuseField(
        'output',
        hook,
        `must return a string, but returned ${describeValue(value)} for item ${itemIndex} of input ${inputIndex}. Convert ids with String(id)`,
        value,
        { details: { id, hook: 'key', inputIndex, itemIndex, returned: describeValue(value) } },
      )
    }
    return value
  }

  return Object.freeze({
    id,
    collect(
      inputs: readonly (readonly Item[])[],
      ...rest: AggregationContextArgument<Context>
    ): QueryAggregationResult<Item> {
      const context = rest[0] as Context
      if (!Array.isArray(inputs)) {
        refuseField(
          'input',
          'inputs',
          `must be an array of input lists (one array of items per query), but got ${describeValue(inputs)}. Pass [[...items of query 1], [...items of query 2]]`,
          inputs,
          { prefix: `${what}: collect: `, details: { id } },
        )
      }
      for (let inputIndex = 0; inputIndex < inputs.length; inputIndex++) {
        const input: unknown = inputs[inputIndex]
        if (!Array.isArray(input)) {
          throw new InvalidInputError(
            `${what}: input ${inputIndex} must be an array of items, but got ${describeValue(input)}. Pass [] for a query that found nothing.`,
            {
              details: {
                id,
                field: `inputs[${inputIndex}]`,
                index: inputIndex,
                received: describeValue(input),
              },
            },
          )
        }
      }
      const slots = new Map<string, number>()
      const items: Item[] = []
      const perInput: QueryInputCounts[] = []
      let received = 0
      let unique = 0
      for (let inputIndex = 0; inputIndex < inputs.length; inputIndex++) {
        const input = inputs[inputIndex] as readonly Item[]
        let added = 0
        for (let itemIndex = 0; itemIndex < input.length; itemIndex++) {
          const item = input[itemIndex] as Item
          received++
          const itemKey = keyOf(item, context, inputIndex, itemIndex)
          const slot = slots.get(itemKey)
          if (slot === undefined) {
            slots.set(itemKey, unique)
            if (unique < limit) items.push(item)
            unique++
            added++
          } else if (slot < limit && onDuplicate !== 'keep-first') {
            if (onDuplicate === 'keep-last') items[slot] = item
            else {
              const duplicate: DuplicateItem = Object.freeze({ key: itemKey, inputIndex, itemIndex })
              items[slot] = assertNotThenable(
                Reflect.apply(onDuplicate as (...args: never[]) => unknown, definition, [
                  items[slot],
                  item,
                  duplicate,
                  context,
                ]),
                `${what} onDuplicate`,
              ) as Item
            }
          }
        }
        perInput.push(Object.freeze({ received: input.length, added }))
      }
      const returned = items.length
      return Object.freeze({
        items: Object.freeze(items),
        counts: Object.freeze({
          inputs: inputs.length,
          received,
          unique,
          duplicates: received - unique,
          returned,
          overLimit: unique - returned,
          perInput: Object.freeze(perInput),
        }),
      })
    },
  })
}
