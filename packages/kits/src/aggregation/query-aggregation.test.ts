import {
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DuplicateItem, defineQueryAggregation, type QueryAggregationDefinition } from './index.js'

interface Hit {
  readonly id: string
  readonly n: number
}

const hit = fc.record({
  id: fc.constantFrom('a', 'b', 'c', 'd', 'e', '', '__proto__', 'constructor'),
  n: fc.nat(99),
})
const inputs = fc.array(fc.array(hit, { maxLength: 8 }), { maxLength: 6 })
const policy = fc.constantFrom('keep-first', 'keep-last', 'sum') as fc.Arbitrary<
  'keep-first' | 'keep-last' | 'sum'
>

/** A naive model: a flat list of [key, item] pairs searched with findIndex. */
function reference(
  lists: readonly (readonly Hit[])[],
  mode: 'keep-first' | 'keep-last' | 'sum',
  limit: number,
) {
  const kept: { key: string; item: Hit }[] = []
  const perInput = lists.map((list) => {
    let added = 0
    for (const item of list) {
      const at = kept.findIndex((entry) => entry.key === item.id)
      if (at === -1) {
        kept.push({ key: item.id, item })
        added++
      } else if (at < limit) {
        const previous = kept[at] as { key: string; item: Hit }
        if (mode === 'keep-last') previous.item = item
        if (mode === 'sum') previous.item = { id: item.id, n: previous.item.n + item.n }
      }
    }
    return { received: list.length, added }
  })
  const received = lists.reduce((sum, list) => sum + list.length, 0)
  const items = kept.slice(0, limit).map((entry) => entry.item)
  return {
    items,
    counts: {
      inputs: lists.length,
      received,
      unique: kept.length,
      duplicates: received - kept.length,
      returned: items.length,
      overLimit: kept.length - items.length,
      perInput,
    },
  }
}

function aggregation(mode: 'keep-first' | 'keep-last' | 'sum', limit?: number) {
  return defineQueryAggregation<Hit>({
    id: 'hits',
    key: (item) => item.id,
    onDuplicate: mode === 'sum' ? (kept, incoming) => ({ id: kept.id, n: kept.n + incoming.n }) : mode,
    ...(limit === undefined ? {} : { limit }),
  })
}

describe('defineQueryAggregation: invariants', () => {
  it('agrees with a naive reference for every override rule and limit', () => {
    fc.assert(
      fc.property(inputs, policy, fc.option(fc.nat(8), { nil: undefined }), (lists, mode, limit) => {
        const result = aggregation(mode, limit).collect(lists)
        expect(result).toEqual(reference(lists, mode, limit ?? Number.MAX_SAFE_INTEGER))
      }),
      { numRuns: 2000 },
    )
  })

  it('returns each key once, in the serial order of first appearance', () => {
    fc.assert(
      fc.property(inputs, policy, (lists, mode) => {
        const { items } = aggregation(mode).collect(lists)
        const firstSeen = [...new Set(lists.flat().map((item) => item.id))]
        expect(items.map((item) => item.id)).toEqual(firstSeen)
      }),
    )
  })

  it('keeps counts consistent with each other', () => {
    fc.assert(
      fc.property(inputs, fc.nat(8), (lists, limit) => {
        const { items, counts } = aggregation('keep-first', limit).collect(lists)
        expect(counts.returned).toBe(items.length)
        expect(counts.returned).toBe(Math.min(counts.unique, limit))
        expect(counts.unique + counts.duplicates).toBe(counts.received)
        expect(counts.perInput.reduce((sum, input) => sum + input.added, 0)).toBe(counts.unique)
        expect(counts.perInput.reduce((sum, input) => sum + input.received, 0)).toBe(counts.received)
      }),
    )
  })
})

describe('defineQueryAggregation: behaviour', () => {
  const lists: Hit[][] = [
    [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ],
    [
      { id: 'b', n: 20 },
      { id: 'c', n: 3 },
      { id: 'a', n: 10 },
    ],
  ]

  it('keeps the first item of a key by default', () => {
    const { items, counts } = aggregation('keep-first').collect(lists)
    expect(items).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
      { id: 'c', n: 3 },
    ])
    expect(counts).toEqual({
      inputs: 2,
      received: 5,
      unique: 3,
      duplicates: 2,
      returned: 3,
      overLimit: 0,
      perInput: [
        { received: 2, added: 2 },
        { received: 3, added: 1 },
      ],
    })
  })

  it('lets a later item override an earlier one without moving it', () => {
    expect(aggregation('keep-last').collect(lists).items).toEqual([
      { id: 'a', n: 10 },
      { id: 'b', n: 20 },
      { id: 'c', n: 3 },
    ])
  })

  it('calls a duplicate function with both items, where the newcomer came from and the context', () => {
    const calls: unknown[] = []
    const merge = defineQueryAggregation<Hit, { readonly weight: number }>({
      id: 'merge',
      key: (item) => item.id,
      onDuplicate: (kept, incoming, duplicate, context) => {
        calls.push({ kept, incoming, duplicate, context })
        return { id: kept.id, n: kept.n + incoming.n * context.weight }
      },
    })
    const context = { weight: 2 }
    expect(merge.collect(lists, context).items).toEqual([
      { id: 'a', n: 21 },
      { id: 'b', n: 42 },
      { id: 'c', n: 3 },
    ])
    expect(calls).toEqual([
      {
        kept: { id: 'b', n: 2 },
        incoming: { id: 'b', n: 20 },
        duplicate: { key: 'b', inputIndex: 1, itemIndex: 0 },
        context,
      },
      {
        kept: { id: 'a', n: 1 },
        incoming: { id: 'a', n: 10 },
        duplicate: { key: 'a', inputIndex: 1, itemIndex: 2 },
        context,
      },
    ])
  })

  it('treats the context as plain caller data with no execution lifecycle', () => {
    const context = { signal: AbortSignal.abort() }
    const seen = new Set<unknown>()
    const byId = defineQueryAggregation<Hit, typeof context>({
      id: 'lifecycle-free',
      key: (item, c) => {
        seen.add(c)
        return item.id
      },
    })
    expect(byId.collect(lists, context).items.map((item) => item.id)).toEqual(['a', 'b', 'c'])
    expect([...seen]).toEqual([context])
  })

  it('caps the returned items in distinct keys but counts everything', () => {
    const calls: DuplicateItem[] = []
    const capped = defineQueryAggregation<Hit>({
      id: 'capped',
      key: (item) => item.id,
      limit: 1,
      onDuplicate: (kept, _incoming, duplicate) => {
        calls.push(duplicate)
        return kept
      },
    })
    const { items, counts } = capped.collect(lists)
    expect(items).toEqual([{ id: 'a', n: 1 }])
    expect(counts).toMatchObject({ received: 5, unique: 3, duplicates: 2, returned: 1, overLimit: 2 })
    expect(calls.map((call) => call.key)).toEqual(['a'])
    expect(
      defineQueryAggregation<Hit>({ id: 'none', key: (item) => item.id, limit: 0 }).collect(lists).items,
    ).toEqual([])
  })

  it('treats an empty string as a key like any other', () => {
    const { items } = aggregation('keep-first').collect([[{ id: '', n: 1 }], [{ id: '', n: 2 }]])
    expect(items).toEqual([{ id: '', n: 1 }])
  })

  it('returns frozen results and leaves the inputs alone', () => {
    const copy = structuredClone(lists)
    const result = aggregation('keep-last').collect(lists)
    expect(Object.isFrozen(result.items)).toBe(true)
    expect(Object.isFrozen(result.counts.perInput)).toBe(true)
    expect(lists).toEqual(copy)
  })

  it('works with a class-based definition: private state, prototype getters and methods', () => {
    class ByLowerCase implements QueryAggregationDefinition<Hit> {
      readonly #seen: string[] = []
      get id() {
        return 'lower'
      }
      get limit() {
        return 5
      }
      key(item: Hit) {
        this.#seen.push(item.id)
        return item.id.toLowerCase()
      }
      get seen() {
        return this.#seen
      }
    }
    const definition = new ByLowerCase()
    const result = defineQueryAggregation(definition).collect([[{ id: 'A', n: 1 }], [{ id: 'a', n: 2 }]])
    expect(result.items).toEqual([{ id: 'A', n: 1 }])
    expect(definition.seen).toEqual(['A', 'a'])
  })
})

describe('defineQueryAggregation: bad input', () => {
  const key = (item: Hit) => item.id

  it.each([
    ['a non-object', 'hits'],
    ['no id', { key }],
    ['a numeric id', { id: 1, key }],
    ['no key', { id: 'x' }],
    ['an unknown onDuplicate', { id: 'x', key, onDuplicate: 'merge' }],
    ['a negative limit', { id: 'x', key, limit: -1 }],
    ['a fractional limit', { id: 'x', key, limit: 1.5 }],
    ['a NaN limit', { id: 'x', key, limit: Number.NaN }],
    ['an unsafe limit', { id: 'x', key, limit: 2 ** 53 }],
    ['a string limit', { id: 'x', key, limit: '3' }],
  ])('rejects a definition with %s', (_, definition) => {
    expect(() => defineQueryAggregation(definition as never)).toThrow(InvalidDefinitionError)
  })

  it('rejects inputs that are not arrays of arrays', () => {
    const hits = aggregation('keep-first')
    expect(() => hits.collect(undefined as never)).toThrow(InvalidInputError)
    expect(() => hits.collect(new Set() as never)).toThrow(InvalidInputError)
    expect(() => hits.collect([[], 'ab'] as never)).toThrow(/input 1 must be an array of items/)
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is being tested
    expect(() => hits.collect([, []] as never)).toThrow(/input 0 must be an array/)
  })

  it('rejects a key that is not a string, naming the item', () => {
    const numeric = defineQueryAggregation<{ id: number }>({
      id: 'n',
      key: ((item: { id: number }) => item.id) as never,
    })
    expect(() => numeric.collect([[], [{ id: 1 }]])).toThrow(InvalidOutputError)
    expect(() => numeric.collect([[], [{ id: 1 }]])).toThrow(/item 0 of input 1.*String\(id\)/)
  })

  it('rejects hooks that return Promises', () => {
    const asyncKey = defineQueryAggregation<Hit>({ id: 'k', key: (async (item: Hit) => item.id) as never })
    expect(() => asyncKey.collect([[{ id: 'a', n: 1 }]])).toThrow(RejectedThenableError)
    const asyncMerge = defineQueryAggregation<Hit>({
      id: 'm',
      key,
      onDuplicate: (async (kept: Hit) => kept) as never,
    })
    expect(() =>
      asyncMerge.collect([
        [
          { id: 'a', n: 1 },
          { id: 'a', n: 2 },
        ],
      ]),
    ).toThrow(RejectedThenableError)
  })
})
