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

import { defineTextSkillLoader, parseTextSkill } from './index.js'

describe('text skills with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, garbage, (a, b, c, d, e) => {
        typed(() => defineTextSkillLoader(a as never))
        typed(() => defineTextSkillLoader({ tools: a, idPattern: b, parse: c, errors: d } as never))
        typed(() =>
          defineTextSkillLoader({ tools: ['t'], errors: { duplicate: a, unknownTool: b } } as never),
        )
        typed(() => parseTextSkill(a as string, b as string))
        const plain = defineTextSkillLoader({ tools: ['t'] })
        const custom = defineTextSkillLoader({
          tools: { has: () => a as boolean },
          parse: () => b as never,
          errors: {
            duplicate: () => c as Error,
            unknownTool: () => c as Error,
            invalidPath: () => c as Error,
          },
        })
        const good = { id: 's', kind: 'text-workflow', entry: 's.md', toolIds: ['t'] }
        for (const loader of [plain, custom]) {
          typed(() => loader.load(a as never, b as never))
          typed(() => loader.load({ entries: a } as never, { read: () => 'Text.' }))
          typed(() => loader.load({ entries: [a, good] } as never, { read: () => 'Text.' }))
          typed(() =>
            loader.load({ entries: [{ id: a, kind: b, entry: c, toolIds: d }] } as never, {
              read: () => 'Text.',
            }),
          )
          typed(() => loader.load({ entries: [good, good] } as never, { read: () => 'Text.' }))
          typed(() => loader.load({ entries: [good] } as never, { read: () => e as string }))
          typed(() => loader.load({ entries: [good] } as never, { read: e, signal: d } as never))
          typed(() =>
            loader.load({ entries: [{ ...good, toolIds: ['missing'] }] } as never, { read: () => 'Text.' }),
          )
          typed(() =>
            loader.load({ entries: [{ ...good, entry: '../x' }] } as never, { read: () => 'Text.' }),
          )
        }
      }),
      { numRuns: 500 },
    )
  })
})
