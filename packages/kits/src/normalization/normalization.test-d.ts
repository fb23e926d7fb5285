import { describe, expectTypeOf, it } from 'vitest'
import { defineNormalization, type NormalizationResult } from './normalization.js'

describe('defineNormalization types', () => {
  it('makes the context optional when the context type admits undefined', () => {
    const normalization = defineNormalization<number>({ steps: [{ id: 'a', transform: (v) => v + 1 }] })
    expectTypeOf(normalization.normalize(1)).toEqualTypeOf<NormalizationResult<number>>()
  })

  it('requires a declared context', () => {
    const normalization = defineNormalization<number, { max: number }>({
      steps: [{ id: 'clamp', transform: (v, context) => Math.min(v, context.max) }],
    })
    normalization.normalize(1, { max: 2 })
    // @ts-expect-error: the context is required
    normalization.normalize(1)
  })

  it('types the steps from the definition', () => {
    defineNormalization<number>({
      // @ts-expect-error: transform must return a number
      steps: [{ id: 'a', transform: (v) => String(v) }],
    })
  })
})
