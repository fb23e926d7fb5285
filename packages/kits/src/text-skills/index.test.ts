import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
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
