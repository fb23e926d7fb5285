import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineDelivery } from './index.js'

describe('delivery with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, input, context) => {
        typed(() => defineDelivery(a as never))
        typed(() => defineDelivery({ stages: a, beforeStage: b } as never))
        typed(() => defineDelivery({ stages: [a, b] } as never))
        typed(() => defineDelivery({ stages: [{ id: a, handle: b }] } as never))
        const delivery = defineDelivery<unknown, unknown>({
          stages: [
            { id: 'first', handle: () => ({ type: 'continue', state: a }) },
            { id: 'second', handle: () => ({ type: b, value: c }) as never },
            { id: 'last', handle: () => c as never },
          ],
          beforeStage: () => (a === b ? b : undefined) as undefined,
        })
        typed(() => delivery.deliver(input, context as never))
        typed(() => delivery.deliver(input, { signal: a } as never))
      }),
      { numRuns: 500 },
    )
  })
})
