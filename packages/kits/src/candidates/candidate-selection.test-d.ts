import { describe, expectTypeOf, it } from 'vitest'
import { defineCandidateSelection } from './candidate-selection.js'

describe('defineCandidateSelection types', () => {
  it('requires maxCandidates and returns readonly unknown[]', () => {
    // @ts-expect-error: maxCandidates must be configured
    defineCandidateSelection({ minCandidates: 1 })
    const selection = defineCandidateSelection({ maxCandidates: 2 })
    expectTypeOf(selection.parse({ value: 'x', allowed: true })).toEqualTypeOf<readonly unknown[]>()
  })

  it('requires allowed in the request', () => {
    const selection = defineCandidateSelection({ maxCandidates: 2 })
    // @ts-expect-error: allowed is required
    selection.parse({ value: 'x' })
  })
})
