import type { OperationContext } from '@agent-core/core'
import { describe, expectTypeOf, it } from 'vitest'
import { type Delivery, type DeliveryResult, defineDelivery } from './delivery.js'

describe('defineDelivery types', () => {
  it('returns the result synchronously, not a Promise', () => {
    const delivery = defineDelivery<string, number, { userId: string }>({
      stages: [
        {
          id: 'count',
          handle: (text, context) => {
            expectTypeOf(context).toEqualTypeOf<OperationContext<{ userId: string }>>()
            return { type: 'complete', value: text.length }
          },
        },
      ],
    })
    expectTypeOf(delivery.deliver('abc', { app: { userId: 'u' } })).toEqualTypeOf<DeliveryResult<number>>()
  })

  it('requires the payload of each decision', () => {
    defineDelivery<string, number>({
      // @ts-expect-error: continue needs a state
      stages: [{ id: 'a', handle: () => ({ type: 'continue' }) }],
    })
  })

  it('infers the state and value types from the stages', () => {
    const delivery = defineDelivery({
      stages: [
        {
          id: 'a',
          handle: (text: string) =>
            text === '' ? { type: 'complete', value: 0 } : { type: 'continue', state: text },
        },
        { id: 'b', handle: (text: string) => ({ type: 'complete', value: text.length }) },
      ],
    })
    expectTypeOf(delivery).toEqualTypeOf<Delivery<string, number, unknown>>()
  })
})
