import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineContentProjection, defineTreeProjection } from './index.js'

describe('projection with garbage input', () => {
  it('content projection only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, garbage, (a, b, c, d, e, value) => {
        typed(() => defineContentProjection(a as never))
        typed(() =>
          defineContentProjection({
            id: 'c',
            render: a,
            overflow: b,
            marker: c,
            minPrefixChars: d,
            fallback: e,
          } as never),
        )
        typed(() => defineContentProjection({ id: a, render: () => '' } as never))
        const truncating = defineContentProjection<unknown>({
          id: 't',
          render: () => a as string,
          marker: '…',
        })
        const falling = defineContentProjection<unknown>({
          id: 'f',
          render: () => 'long enough text',
          overflow: 'fallback',
          fallback: () => b as string,
        })
        for (const projection of [truncating, falling]) {
          typed(() => projection.project(c as never))
          typed(() => projection.project({ value, maxChars: d } as never))
          typed(() => projection.project({ value, maxChars: 4 }))
        }
      }),
      { numRuns: 500 },
    )
  })

  it('tree projection only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, garbage, (a, b, c, d, e, input) => {
        typed(() => defineTreeProjection(a as never))
        typed(() => defineTreeProjection({ id: a, maxDepth: b, children: c, omit: d, project: e } as never))
        typed(() =>
          defineTreeProjection({ id: 't', maxDepth: a, children: () => [], project: () => null } as never),
        )
        const tree = defineTreeProjection<unknown, unknown, unknown>({
          id: 't',
          maxDepth: 2,
          children: () => b as unknown[],
          omit: () => c as boolean,
          project: () => d,
        })
        typed(() => tree.visit(input, e))
      }),
      { numRuns: 500 },
    )
  })
})
