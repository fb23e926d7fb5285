import { describe, expectTypeOf, it } from 'vitest'
import { definePolicySet, type PolicyReason } from './policy-set.js'

describe('definePolicySet types', () => {
  it('infers the input type and the union of handler names', () => {
    const policies = definePolicySet([
      { id: 'a', description: 'A.', handler: 'ask', when: (n: number) => n > 1 },
      { id: 'b', description: 'B.', handler: 'refuse', when: (n: number) => n < 0 },
    ])
    expectTypeOf(policies.assess).parameter(0).toEqualTypeOf<number>()
    expectTypeOf(policies.assess(1)).toEqualTypeOf<readonly PolicyReason<'ask' | 'refuse'>[]>()
  })

  it('rejects an input of the wrong type', () => {
    const policies = definePolicySet([
      { id: 'a', description: 'A.', handler: 'h', when: (s: string) => s === '' },
    ])
    // @ts-expect-error: the policies take strings
    policies.assess(1)
  })
})
