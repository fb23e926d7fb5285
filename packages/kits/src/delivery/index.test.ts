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

import { defineDelivery } from './index.js'

describe('delivery with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, input, context) => {
        typed(() => defineDelivery(a as never))
        typed(() => defineDelivery({ stages: a, beforeStage: b } as never))
        typed(() => defineDelivery({ stages: [a, b] } as never))
        typed(() => defineDelivery({ stages: [{ id: a, handle: b }] } as never))
        const delivery = defineDelivery<unknown, unknown>({
          stages: [
            { id: 'first', handle: () => ({ type: 'continue', state: a }) },
            { id: 'second', handle: () => ({ type: b, value: c }) as never },
            { id: 'last', handle: () => c as never },
          ],
          beforeStage: () => (a === b ? b : undefined) as undefined,
        })
        typed(() => delivery.deliver(input, context as never))
        typed(() => delivery.deliver(input, { signal: a } as never))
      }),
      { numRuns: 500 },
    )
  })
})
