import { describe, expectTypeOf, it } from 'vitest'
import { defineTreeProjection } from './index.js'

describe('defineTreeProjection types', () => {
  it('makes the context optional only when the declared Context admits undefined', () => {
    const plain = defineTreeProjection<number, number>({
      id: 'plain',
      maxDepth: 1,
      children: () => [],
      project: (n) => n,
    })
    expectTypeOf(plain.visit(1)).toEqualTypeOf<number>()

    const scoped = defineTreeProjection<number, string, { readonly locale: string }>({
      id: 'scoped',
      maxDepth: 1,
      children: () => [],
      project: (n, _, context) => n.toLocaleString(context.locale),
    })
    expectTypeOf(scoped.visit(1, { locale: 'en' })).toEqualTypeOf<string>()
    // @ts-expect-error: the declared context is required
    scoped.visit(1)
  })
})
