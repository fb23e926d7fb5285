import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidOutputError,
  RejectedThenableError,
  UnknownIdError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { definePolicySet, type PolicyDefinition } from './policy-set.js'

interface Refund {
  readonly amount: number
  readonly country: string
}

const large: PolicyDefinition<Refund, 'ask-approval'> = {
  id: 'large',
  description: 'Refunds above 500 need approval.',
  handler: 'ask-approval',
  when: (refund) => refund.amount > 500,
}
const embargo: PolicyDefinition<Refund, 'refuse'> = {
  id: 'embargo',
  description: 'Refunds to an embargoed country are refused.',
  handler: 'refuse',
  when: (refund) => refund.country === 'XX',
}
const zero: PolicyDefinition<Refund, 'ignore'> = {
  id: 'zero',
  description: 'A zero refund is a no-op.',
  handler: 'ignore',
  when: (refund) => refund.amount === 0,
}

describe('definePolicySet: assess', () => {
  const policies = definePolicySet<Refund, 'ask-approval' | 'refuse' | 'ignore'>([large, embargo, zero])

  it('reports every matching policy, in declaration order, not only the first hit', () => {
    expect(policies.assess({ amount: 900, country: 'XX' })).toEqual([
      { policyId: 'large', description: 'Refunds above 500 need approval.', handler: 'ask-approval' },
      { policyId: 'embargo', description: 'Refunds to an embargoed country are refused.', handler: 'refuse' },
    ])
  })

  it('reports a single match and an empty array when nothing matches', () => {
    expect(policies.assess({ amount: 0, country: 'FR' }).map((r) => r.policyId)).toEqual(['zero'])
    expect(policies.assess({ amount: 10, country: 'FR' })).toEqual([])
  })

  it('returns frozen reasons that callers cannot mutate', () => {
    const reasons = policies.assess({ amount: 900, country: 'FR' })
    expect(Object.isFrozen(reasons)).toBe(true)
    expect(Object.isFrozen(reasons[0])).toBe(true)
  })

  it('accepts an empty set, which never matches', () => {
    const empty = definePolicySet<string>([])
    expect(empty.assess('anything')).toEqual([])
    expect(empty.ids()).toEqual([])
  })

  it('passes the caller input unchanged, including undefined and falsy values', () => {
    const seen: unknown[] = []
    const set = definePolicySet<unknown>([
      {
        id: 'spy',
        description: 'Records its input.',
        handler: 'h',
        when: (input) => {
          seen.push(input)
          return false
        },
      },
    ])
    const object = { nested: true }
    for (const input of [undefined, null, 0, false, '', Number.NaN, object]) set.assess(input)
    expect(seen).toEqual([undefined, null, 0, false, '', Number.NaN, object])
    expect(seen[6]).toBe(object)
  })
})

describe('definePolicySet: registry accessors', () => {
  const policies = definePolicySet([large, embargo])

  it('exposes definitions, ids, values, entries, has, get and require in declaration order', () => {
    expect(policies.definitions).toEqual([large, embargo])
    expect(policies.definitions[0]).toBe(large)
    expect(Object.isFrozen(policies.definitions)).toBe(true)
    expect(policies.ids()).toEqual(['large', 'embargo'])
    expect(policies.values()).toEqual([large, embargo])
    expect(policies.entries()).toEqual([
      ['large', large],
      ['embargo', embargo],
    ])
    expect(policies.has('large')).toBe(true)
    expect(policies.has('missing')).toBe(false)
    expect(policies.get('embargo')).toBe(embargo)
    expect(policies.get('missing')).toBeUndefined()
    expect(policies.require('large')).toBe(large)
  })

  it('require names the known ids when the id is unknown', () => {
    const error = (() => {
      try {
        policies.require('missing')
      } catch (caught) {
        return caught
      }
    })()
    expect(UnknownIdError.isInstance(error)).toBe(true)
    expect((error as UnknownIdError).details.known).toEqual(['large', 'embargo'])
  })

  it('is not changed by later mutation of the array it was built from', () => {
    const list = [large]
    const set = definePolicySet(list)
    list.push(embargo as unknown as typeof large)
    expect(set.ids()).toEqual(['large'])
  })
})

describe('definePolicySet: class instances', () => {
  class ThresholdPolicy implements PolicyDefinition<number, 'escalate'> {
    readonly handler = 'escalate' as const
    readonly #threshold: number
    constructor(
      readonly id: string,
      threshold: number,
    ) {
      this.#threshold = threshold
    }
    get description(): string {
      return `Values above ${this.#threshold} escalate.`
    }
    when(value: number): boolean {
      return value > this.#threshold
    }
  }

  it('keeps prototype getters, private fields and the method receiver', () => {
    const low = new ThresholdPolicy('low', 1)
    const policies = definePolicySet([low, new ThresholdPolicy('high', 10)])
    expect(policies.require('low')).toBe(low)
    expect(policies.assess(5)).toEqual([
      { policyId: 'low', description: 'Values above 1 escalate.', handler: 'escalate' },
    ])
    expect(policies.assess(50).map((r) => r.policyId)).toEqual(['low', 'high'])
  })
})

describe('definePolicySet: property', () => {
  it('assess equals a naive filter over the definitions', () => {
    const policyArb = fc.record({
      threshold: fc.integer({ min: -50, max: 50 }),
      op: fc.constantFrom('>', '<', '===', 'even'),
      handler: fc.constantFrom('a', 'b', 'c'),
    })
    fc.assert(
      fc.property(
        fc.array(policyArb, { maxLength: 12 }),
        fc.integer({ min: -60, max: 60 }),
        (specs, input) => {
          const test = (spec: (typeof specs)[number], value: number): boolean =>
            spec.op === '>'
              ? value > spec.threshold
              : spec.op === '<'
                ? value < spec.threshold
                : spec.op === '==='
                  ? value === spec.threshold
                  : value % 2 === 0
          const definitions = specs.map((spec, index) => ({
            id: `p${index}`,
            description: `policy ${index}`,
            handler: spec.handler,
            when: (value: number) => test(spec, value),
          }))
          const expected = definitions
            .filter((definition) => definition.when(input))
            .map((d) => ({ policyId: d.id, description: d.description, handler: d.handler }))
          expect(definePolicySet(definitions).assess(input)).toEqual(expected)
        },
      ),
    )
  })
})

describe('definePolicySet: bad input', () => {
  const ok = { id: 'ok', description: 'Fine.', handler: 'h', when: () => true }
  const build = (definitions: unknown) => () => definePolicySet(definitions as PolicyDefinition<unknown>[])

  it.each([undefined, null, 'policies', 42, Number.NaN, { id: 'x' }, new Set([ok])])(
    'rejects %s instead of an array of definitions',
    (value) => {
      expect(build(value)).toThrow(InvalidDefinitionError)
      expect(build(value)).toThrow(/expects an array of policy definitions/)
    },
  )

  it.each([null, 7, 'text', undefined])('rejects a definition that is not an object: %s', (value) => {
    expect(build([ok, value])).toThrow(InvalidDefinitionError)
  })

  it.each([undefined, '', 42, Number.NaN, null])('rejects the id %s', (id) => {
    expect(build([{ ...ok, id }])).toThrow(InvalidIdError)
  })

  it('rejects duplicate ids and registers nothing', () => {
    expect(build([ok, { ...ok }])).toThrow(DuplicateIdError)
    expect(build([ok, { ...ok }])).toThrow(/"ok" is already registered/)
  })

  it.each([
    ['description', undefined],
    ['description', ''],
    ['description', '   '],
    ['description', 3],
    ['handler', undefined],
    ['handler', ''],
    ['handler', Number.NaN],
    ['handler', () => 'h'],
    ['when', undefined],
    ['when', true],
    ['when', 'x > 1'],
  ])('rejects %s = %s with a message naming the field and the fix', (field, value) => {
    expect(build([{ ...ok, [field]: value }])).toThrow(InvalidDefinitionError)
    expect(build([{ ...ok, [field]: value }])).toThrow(new RegExp(`${field} must be`))
    expect(build([{ ...ok, [field]: value }])).toThrow(/Give every policy an id/)
  })

  it('lists every problem of a definition at once', () => {
    try {
      definePolicySet([{ id: 'bad' } as unknown as PolicyDefinition<unknown>])
      expect.unreachable()
    } catch (error) {
      expect(InvalidDefinitionError.isInstance(error)).toBe(true)
      expect((error as InvalidDefinitionError).details.problems).toHaveLength(3)
    }
  })

  it('rejects a when that returns a Promise, and consumes its rejection', async () => {
    const set = definePolicySet([
      {
        ...ok,
        id: 'async',
        when: (async () => Promise.reject(new Error('late'))) as unknown as () => boolean,
      },
    ])
    expect(() => set.assess(1)).toThrow(RejectedThenableError)
    expect(() => set.assess(1)).toThrow(/policy "async" when returned a Promise/)
    await new Promise((resolve) => setTimeout(resolve, 0))
  })

  it('rejects a when that returns a thenable object', () => {
    const thenable = { then: () => undefined }
    const set = definePolicySet([{ ...ok, when: () => thenable as unknown as boolean }])
    expect(() => set.assess(1)).toThrow(RejectedThenableError)
  })

  it.each([1, 0, 'true', undefined, null, Number.NaN, {}])('rejects a when that returns %s', (value) => {
    const set = definePolicySet([{ ...ok, when: () => value as unknown as boolean }])
    expect(() => set.assess(1)).toThrow(InvalidOutputError)
    expect(() => set.assess(1)).toThrow(/must return a boolean/)
  })

  it('lets an error thrown by when propagate unchanged and stops the assessment', () => {
    const boom = new Error('boom')
    let laterCalls = 0
    const set = definePolicySet([
      {
        ...ok,
        id: 'throws',
        when: () => {
          throw boom
        },
      },
      {
        ...ok,
        id: 'later',
        when: () => {
          laterCalls++
          return true
        },
      },
    ])
    expect(() => set.assess(1)).toThrow(boom)
    expect(laterCalls).toBe(0)
  })

  it('rejects a definition whose fields were broken after the set was built', () => {
    const mutable = { ...ok }
    const set = definePolicySet([mutable])
    ;(mutable as { when: unknown }).when = undefined
    expect(() => set.assess(1)).toThrow(InvalidDefinitionError)
  })

  it('has, get and require do not throw TypeErrors on non-string ids', () => {
    const set = definePolicySet([ok])
    expect(set.has(42 as unknown as string)).toBe(false)
    expect(set.get(undefined as unknown as string)).toBeUndefined()
    expect(() => set.require(42 as unknown as string)).toThrow(InvalidIdError)
  })
})
