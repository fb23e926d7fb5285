import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { definePolicySet } from './index.js'

describe('policies with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, d, input) => {
        typed(() => definePolicySet(a as never))
        typed(() => definePolicySet([a, b] as never))
        typed(() => definePolicySet([{ id: a, description: b, handler: c, when: d }] as never))
        const set = definePolicySet([
          { id: 'p', description: 'Policy.', handler: 'h', when: () => a as boolean },
        ])
        typed(() => set.assess(input))
        typed(() => set.has(b as string))
        typed(() => set.get(b as string))
        typed(() => set.require(b as string))
      }),
      { numRuns: 500 },
    )
  })
})
