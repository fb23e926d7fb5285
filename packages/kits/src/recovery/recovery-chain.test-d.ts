import { describe, expectTypeOf, it } from 'vitest'
import { defineRecoveryChain, type RecoveryChain, type RecoveryResult } from './recovery-chain.js'

describe('defineRecoveryChain types', () => {
  it('infers the input and value types from the steps', () => {
    const chain = defineRecoveryChain([
      {
        id: 'a',
        recover: (error: string) => (error === 'x' ? { handled: true, value: 0 } : { handled: false }),
      },
    ])
    expectTypeOf(chain).toEqualTypeOf<RecoveryChain<string, number>>()
    expectTypeOf(chain.tryRecover('x')).toEqualTypeOf<RecoveryResult<number>>()
  })

  it('narrows on the handled flag', () => {
    const result = defineRecoveryChain<unknown, string | undefined>([]).tryRecover(null)
    if (result.handled) {
      expectTypeOf(result.value).toEqualTypeOf<string | undefined>()
      expectTypeOf(result.recoveredBy).toEqualTypeOf<string>()
    } else {
      // @ts-expect-error: a declined result has no value
      result.value
    }
  })

  it('requires the value field of a takeover', () => {
    defineRecoveryChain<unknown, undefined>([
      // @ts-expect-error: write value: undefined explicitly
      { id: 'a', recover: () => ({ handled: true }) },
    ])
  })
})
