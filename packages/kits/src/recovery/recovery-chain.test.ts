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
import { defineRecoveryChain, type RecoveryDecision, type RecoveryDefinition } from './recovery-chain.js'

interface Failure {
  readonly error: unknown
  readonly attempt: number
}

const decline = { handled: false } as const

describe('defineRecoveryChain: tryRecover', () => {
  const asked: string[] = []
  const chain = defineRecoveryChain<Failure, string | undefined>([
    {
      id: 'not-found',
      recover: ({ error }) => {
        asked.push('not-found')
        return error === 'not-found' ? { handled: true, value: 'empty' } : decline
      },
    },
    {
      id: 'optional',
      recover: ({ error }) => {
        asked.push('optional')
        return error === 'optional' ? { handled: true, value: undefined } : decline
      },
    },
    {
      id: 'catch-all-late',
      recover: ({ attempt }) => {
        asked.push('catch-all-late')
        return attempt > 2 ? { handled: true, value: 'gave up' } : decline
      },
    },
  ])

  it('returns the first explicit takeover and asks no later step', () => {
    asked.length = 0
    expect(chain.tryRecover({ error: 'not-found', attempt: 5 })).toEqual({
      handled: true,
      value: 'empty',
      recoveredBy: 'not-found',
    })
    expect(asked).toEqual(['not-found'])
  })

  it('keeps a legitimate undefined result distinct from "not recovered"', () => {
    const result = chain.tryRecover({ error: 'optional', attempt: 1 })
    expect(result).toEqual({ handled: true, value: undefined, recoveredBy: 'optional' })
    expect(result.handled && 'value' in result).toBe(true)
  })

  it('asks steps in declaration order and reports { handled: false } when all decline', () => {
    asked.length = 0
    const result = chain.tryRecover({ error: 'other', attempt: 1 })
    expect(result).toEqual({ handled: false })
    expect('value' in result).toBe(false)
    expect(asked).toEqual(['not-found', 'optional', 'catch-all-late'])
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('preserves falsy takeover values exactly', () => {
    for (const value of [0, -0, false, '', null, Number.NaN]) {
      const single = defineRecoveryChain<unknown, unknown>([
        { id: 'v', recover: () => ({ handled: true, value }) },
      ])
      const result = single.tryRecover(undefined)
      expect(result.handled).toBe(true)
      expect(Object.is(result.handled && result.value, value)).toBe(true)
    }
  })

  it('an empty chain never recovers', () => {
    expect(defineRecoveryChain([]).tryRecover(new Error('x'))).toEqual({ handled: false })
  })

  it('lets an error thrown by a step propagate unchanged instead of swallowing it', () => {
    const boom = new Error('step failed')
    let later = 0
    const failing = defineRecoveryChain<unknown, number>([
      {
        id: 'broken',
        recover: () => {
          throw boom
        },
      },
      {
        id: 'later',
        recover: () => {
          later++
          return { handled: true, value: 1 }
        },
      },
    ])
    expect(() => failing.tryRecover('x')).toThrow(boom)
    expect(later).toBe(0)
  })
})

describe('defineRecoveryChain: accessors and class instances', () => {
  class RetryableStep implements RecoveryDefinition<Failure, string> {
    readonly id = 'retryable'
    readonly #codes: ReadonlySet<string>
    constructor(codes: readonly string[]) {
      this.#codes = new Set(codes)
    }
    get label(): string {
      return `retry on ${[...this.#codes].join(', ')}`
    }
    recover({ error }: Failure): RecoveryDecision<string> {
      return typeof error === 'string' && this.#codes.has(error)
        ? { handled: true, value: this.label }
        : decline
    }
  }

  it('keeps the receiver, private fields and prototype getters of class instances', () => {
    const step = new RetryableStep(['busy', 'timeout'])
    const chain = defineRecoveryChain([step])
    expect(chain.require('retryable')).toBe(step)
    expect(chain.tryRecover({ error: 'busy', attempt: 1 })).toEqual({
      handled: true,
      value: 'retry on busy, timeout',
      recoveredBy: 'retryable',
    })
  })

  it('accepts a class instance as a decision and reads its prototype getter', () => {
    class Handled {
      readonly handled = true as const
      get value(): number {
        return 42
      }
    }
    const chain = defineRecoveryChain<unknown, number>([{ id: 'cls', recover: () => new Handled() }])
    expect(chain.tryRecover(null)).toEqual({ handled: true, value: 42, recoveredBy: 'cls' })
  })

  it('exposes definitions, ids, values, entries, has, get and require', () => {
    const a = { id: 'a', recover: () => decline }
    const b = { id: 'b', recover: () => decline }
    const chain = defineRecoveryChain<unknown, never>([a, b])
    expect(chain.definitions).toEqual([a, b])
    expect(Object.isFrozen(chain.definitions)).toBe(true)
    expect(chain.ids()).toEqual(['a', 'b'])
    expect(chain.values()[1]).toBe(b)
    expect(chain.entries()).toEqual([
      ['a', a],
      ['b', b],
    ])
    expect(chain.has('a')).toBe(true)
    expect(chain.has('c')).toBe(false)
    expect(chain.get('b')).toBe(b)
    expect(chain.get('c')).toBeUndefined()
    expect(chain.require('a')).toBe(a)
    expect(() => chain.require('c')).toThrow(UnknownIdError)
    expect(() => chain.require('c')).toThrow(/Known ids: "a", "b"/)
  })
})

describe('defineRecoveryChain: property', () => {
  it('equals "the first step that takes over, else not handled" for any chain', () => {
    const stepArb = fc.record({ takesOver: fc.boolean(), value: fc.anything() })
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 10 }), (steps) => {
        const chain = defineRecoveryChain<unknown, unknown>(
          steps.map((step, index) => ({
            id: `s${index}`,
            recover: () => (step.takesOver ? { handled: true, value: step.value } : decline),
          })),
        )
        const first = steps.findIndex((step) => step.takesOver)
        const result = chain.tryRecover(undefined)
        if (first === -1) {
          expect(result).toEqual({ handled: false })
        } else {
          expect(result.handled).toBe(true)
          if (result.handled) {
            expect(result.recoveredBy).toBe(`s${first}`)
            expect(Object.is(result.value, steps[first]?.value)).toBe(true)
          }
        }
      }),
    )
  })
})

describe('defineRecoveryChain: bad input', () => {
  const build = (definitions: unknown) => () =>
    defineRecoveryChain(definitions as RecoveryDefinition<unknown, unknown>[])
  const single = (recover: () => unknown) =>
    defineRecoveryChain([{ id: 'step', recover } as RecoveryDefinition<unknown, unknown>])

  it.each([undefined, null, 'steps', 3, Number.NaN, { id: 'a', recover: () => decline }])(
    'rejects %s instead of an array of steps',
    (value) => {
      expect(build(value)).toThrow(InvalidDefinitionError)
      expect(build(value)).toThrow(/expects an array of recovery steps/)
    },
  )

  it.each([undefined, '', 0, Number.NaN])('rejects the id %s', (id) => {
    expect(build([{ id, recover: () => decline }])).toThrow(InvalidIdError)
  })

  it('rejects duplicate ids', () => {
    expect(
      build([
        { id: 'a', recover: () => decline },
        { id: 'a', recover: () => decline },
      ]),
    ).toThrow(DuplicateIdError)
  })

  it.each([undefined, 'recover', 1, {}])(
    'rejects recover = %s with a message saying what to add',
    (recover) => {
      expect(build([{ id: 'a', recover }])).toThrow(InvalidDefinitionError)
      expect(build([{ id: 'a', recover }])).toThrow(/Add recover\(input\)/)
    },
  )

  it('rejects a step that returns a Promise and consumes its rejection', async () => {
    const chain = single(async () => {
      throw new Error('late')
    })
    expect(() => chain.tryRecover(1)).toThrow(RejectedThenableError)
    expect(() => chain.tryRecover(1)).toThrow(/recovery step "step" recover returned a Promise/)
    await new Promise((resolve) => setTimeout(resolve, 0))
  })

  it('rejects a takeover whose value is a Promise', () => {
    const chain = single(() => ({ handled: true, value: Promise.resolve(1) }))
    expect(() => chain.tryRecover(1)).toThrow(RejectedThenableError)
  })

  it.each([undefined, null, true, 0, 'handled', [true]])(
    'rejects a step that returns %s instead of a decision (no accidental swallowing)',
    (returned) => {
      expect(() => single(() => returned).tryRecover(1)).toThrow(InvalidOutputError)
      expect(() => single(() => returned).tryRecover(1)).toThrow(/Return \{ handled: true, value \}/)
    },
  )

  it.each([{ handled: 1, value: 2 }, { handled: 'yes', value: 2 }, { value: 2 }, { handled: Number.NaN }])(
    'rejects a decision with a non-boolean handled flag: %o',
    (returned) => {
      expect(() => single(() => returned).tryRecover(1)).toThrow(InvalidOutputError)
      expect(() => single(() => returned).tryRecover(1)).toThrow(/handled flag/)
    },
  )

  it('rejects a takeover without a value field', () => {
    expect(() => single(() => ({ handled: true })).tryRecover(1)).toThrow(InvalidOutputError)
    expect(() => single(() => ({ handled: true })).tryRecover(1)).toThrow(/value: undefined explicitly/)
  })

  it('rejects a decline that carries a value', () => {
    expect(() => single(() => ({ handled: false, value: 3 })).tryRecover(1)).toThrow(/would be lost/)
  })

  it('rejects a step whose recover was removed after the chain was built', () => {
    const step = { id: 'a', recover: () => decline }
    const chain = defineRecoveryChain<unknown, never>([step])
    ;(step as { recover: unknown }).recover = null
    expect(() => chain.tryRecover(1)).toThrow(InvalidDefinitionError)
  })
})
