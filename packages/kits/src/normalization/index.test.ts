import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineNormalization } from './index.js'

describe('normalization with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, input, context) => {
        typed(() => defineNormalization(a as never))
        typed(() => defineNormalization({ steps: a, isComplete: b } as never))
        typed(() => defineNormalization({ steps: [a] } as never))
        typed(() => defineNormalization({ steps: [{ id: a, transform: b, when: c }] } as never))
        const normalization = defineNormalization<unknown, unknown>({
          steps: [
            { id: 'when', when: () => a as boolean, transform: () => b },
            { id: 'transform', transform: () => c },
          ],
          isComplete: (value) => value === input,
        })
        typed(() => normalization.normalize(input, context))
        const completes = defineNormalization<unknown, unknown>({
          steps: [{ id: 'one', transform: (value) => value }],
          isComplete: () => a as boolean,
        })
        typed(() => completes.normalize(input, context))
      }),
      { numRuns: 500 },
    )
  })
})
