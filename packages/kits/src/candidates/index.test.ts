import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineCandidateSelection } from './index.js'

describe('candidates with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, (a, b, c, value) => {
        typed(() => defineCandidateSelection(a as never))
        typed(() =>
          defineCandidateSelection({ maxCandidates: a, minCandidates: b, envelopeField: c } as never),
        )
        const selection = defineCandidateSelection({ maxCandidates: 3 })
        typed(() => selection.parse(a as never))
        typed(() => selection.parse({ value, allowed: b, takenOver: c } as never))
        typed(() => selection.parse({ value: { candidates: a }, allowed: true }))
        typed(() => selection.parse({ value: { candidates: [a, b], extra: c }, allowed: true }))
        typed(() => selection.parse({ value, allowed: true, takenOver: true }))
      }),
      { numRuns: 500 },
    )
  })
})
