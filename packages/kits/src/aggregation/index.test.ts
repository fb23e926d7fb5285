import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineQueryAggregation } from './index.js'

describe('aggregation with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, d, context) => {
        typed(() => defineQueryAggregation(a as never))
        typed(() => defineQueryAggregation({ id: a, key: b, onDuplicate: c, limit: d } as never))
        typed(() => defineQueryAggregation({ id: 'q', key: () => '', onDuplicate: c, limit: d } as never))
        const byGarbage = defineQueryAggregation<unknown, unknown>({ id: 'g', key: () => a as string })
        const merging = defineQueryAggregation<unknown, unknown>({
          id: 'm',
          key: () => 'same',
          onDuplicate: () => b,
          limit: 1,
        })
        for (const aggregation of [byGarbage, merging]) {
          typed(() => aggregation.collect(c as never, context))
          typed(() => aggregation.collect([c, d] as never, context))
          typed(() => aggregation.collect([[c, d], [a]], context))
        }
      }),
      { numRuns: 500 },
    )
  })
})
