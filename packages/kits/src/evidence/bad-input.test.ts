/** Garbage in, typed errors out: checklists and projections (property). */
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineEvidenceChecklist, defineEvidenceProjection } from './index.js'

describe('evidence kit: garbage input (property)', () => {
  it('only ever throws typed errors', () => {
    const checklist = defineEvidenceChecklist([
      { id: 'p', isSatisfied: ({ observations }) => observations.length > 0 },
    ])
    const projection = defineEvidenceProjection({ id: 'cited' })
    fc.assert(
      fc.property(garbage, garbage, garbage, (a, b, c) => {
        typed(() => defineEvidenceChecklist(a as never))
        typed(() => defineEvidenceChecklist([{ id: a, isSatisfied: b }] as never))
        typed(() => defineEvidenceProjection(a as never))
        typed(() =>
          defineEvidenceProjection({ id: 'x', sourceIdOf: a } as never).project({
            observations: [{ sourceId: 'S1' }],
            sourceIds: ['S1'],
          }),
        )
        typed(() => checklist.isSatisfied(a as never))
        typed(() => checklist.isSatisfied({ observations: a, requirement: b } as never))
        typed(() =>
          checklist.isSatisfied({
            observations: [{ sourceId: 'S1' }],
            requirement: { id: 'r', providerId: a },
          } as never),
        )
        typed(() => checklist.missing({ observations: a, requirements: [b, c] } as never))
        typed(() => checklist.isComplete({ observations: [a], requirements: b } as never))
        typed(() => projection.project({ observations: a, sourceIds: b } as never))
        typed(() => projection.explain({ observations: [{ sourceId: 'S1' }, a], sourceIds: [c] } as never))
        const flaky = defineEvidenceChecklist([{ id: 'p', isSatisfied: () => a as never }])
        typed(() => flaky.isComplete({ observations: [], requirements: [{ id: 'r', providerId: 'p' }] }))
      }),
      { numRuns: 1000 },
    )
  })
})
