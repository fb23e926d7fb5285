import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineRecoveryChain } from './index.js'

describe('recovery with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, (a, b, c, input) => {
        typed(() => defineRecoveryChain(a as never))
        typed(() => defineRecoveryChain([a, b] as never))
        typed(() => defineRecoveryChain([{ id: a, recover: b }] as never))
        const chain = defineRecoveryChain([
          { id: 'shaped', recover: () => ({ handled: a, value: c }) as never },
          { id: 'raw', recover: () => b as never },
        ])
        typed(() => chain.tryRecover(input))
        typed(() => chain.has(c as string))
        typed(() => chain.get(c as string))
        typed(() => chain.require(c as string))
      }),
      { numRuns: 500 },
    )
  })
})
