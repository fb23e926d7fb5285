import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

/** What an App's own hook or getter throws; it may pass through unchanged. */
class AppError extends Error {}

/** An object whose every field is a getter that throws the App's own error. */
const hostileFields =
  'id then value allowed takenOver steps stages maxCandidates minCandidates entries read signal targetChars ' +
  'render maxChars key tools description handler when recover handle transform children project length has'
const hostile: object = Object.create(
  Object.create(
    Object.prototype,
    Object.fromEntries(hostileFields.split(' ').map((key) => [key, { get: () => throwApp(key) }])),
  ),
)

function throwApp(what: string): never {
  throw new AppError(what)
}

const garbage: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.func(fc.anything()),
  fc.constantFrom<unknown>(
    Number.NaN,
    -1,
    2 ** 53,
    Number.POSITIVE_INFINITY,
    0.5,
    '',
    null,
    undefined,
    [],
    [undefined],
    {},
    Symbol('garbage'),
    1n,
    () => undefined,
    { then: () => undefined },
    Promise.resolve(1),
    hostile,
    [hostile],
  ),
)

/** Runs `call`; whatever it throws must be an AgentCoreError (or the App's own error). */
function typed<T>(call: () => T): T | undefined {
  try {
    return call()
  } catch (error) {
    if (!(error instanceof AppError)) {
      expect(AgentCoreError.isInstance(error), `expected an AgentCoreError, got ${String(error)}`).toBe(true)
    }
    return undefined
  }
}

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
