import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  Registry,
  RejectedThenableError,
  UnknownIdError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  defineEvidenceChecklist,
  defineEvidenceProjection,
  type EvidenceProvider,
  type EvidenceRequirement,
  type Observation,
} from './index.js'

interface Seen extends Observation {
  readonly topic: string
}
interface TopicRequirement extends EvidenceRequirement {
  readonly topic?: string
  readonly sources?: number
}

function providers(log: string[]): EvidenceProvider<TopicRequirement, Seen>[] {
  return [
    {
      id: 'topic',
      isSatisfied({ observations, requirement }) {
        log.push(`topic ${requirement.id}`)
        return observations.some((observation) => observation.topic === requirement.topic)
      },
    },
    {
      id: 'sources',
      isSatisfied({ observations, requirement }) {
        log.push(`sources ${requirement.id}`)
        return (
          new Set(observations.map((observation) => observation.sourceId)).size >= (requirement.sources ?? 1)
        )
      },
    },
  ]
}

const observations: Seen[] = [
  { sourceId: 'S1', topic: 'pricing' },
  { sourceId: 'S2', topic: 'terms' },
]
const requirements: TopicRequirement[] = [
  { id: 'price', providerId: 'topic', topic: 'pricing' },
  { id: 'refunds', providerId: 'topic', topic: 'refunds' },
  { id: 'two-sources', providerId: 'sources', sources: 2 },
  { id: 'three-sources', providerId: 'sources', sources: 3 },
]

describe('defineEvidenceChecklist', () => {
  it('decides each requirement through the provider it names', () => {
    const checklist = defineEvidenceChecklist(providers([]))
    expect(checklist.isSatisfied({ observations, requirement: requirements[0]! })).toBe(true)
    expect(checklist.isSatisfied({ observations, requirement: requirements[1]! })).toBe(false)
    const missing = checklist.missing({ observations, requirements })
    expect(missing.map((r) => r.id)).toEqual(['refunds', 'three-sources'])
    expect(missing[0]).toBe(requirements[1])
    expect(checklist.isComplete({ observations, requirements })).toBe(false)
    expect(checklist.isComplete({ observations, requirements: [requirements[0]!, requirements[2]!] })).toBe(
      true,
    )
    expect(checklist.isComplete({ observations: [], requirements: [] })).toBe(true)
  })

  it('checks the whole list before asking any provider; missing asks all, isComplete stops at the first gap', () => {
    const log: string[] = []
    const checklist = defineEvidenceChecklist(providers(log))
    expect(() =>
      checklist.missing({
        observations,
        requirements: [requirements[0]!, { id: 'x', providerId: 'nobody' }],
      }),
    ).toThrow(UnknownIdError)
    expect(() =>
      checklist.isComplete({ observations, requirements: [requirements[0]!, requirements[0]!] }),
    ).toThrow(DuplicateIdError)
    expect(log).toEqual([])
    checklist.missing({ observations, requirements })
    expect(log).toEqual(['topic price', 'topic refunds', 'sources two-sources', 'sources three-sources'])
    log.length = 0
    checklist.isComplete({ observations, requirements })
    expect(log).toEqual(['topic price', 'topic refunds'])
  })

  it('refuses an ArtifactReference used as a requirement, with the reason', () => {
    const checklist = defineEvidenceChecklist(providers([]))
    const reference = { resolverId: 'docs', artifactId: 'doc-7', id: 'doc-7' }
    expect(() => checklist.isSatisfied({ observations, requirement: reference as never })).toThrow(
      /looks like an ArtifactReference/,
    )
    expect(() => checklist.missing({ observations, requirements: [reference as never] })).toThrow(
      InvalidInputError,
    )
  })

  it('takes only a synchronous boolean from a provider, and keeps its receiver', () => {
    class MinSources implements EvidenceProvider {
      readonly id = 'min'
      #calls = 0
      isSatisfied({ observations: seen }: { observations: readonly Observation[] }) {
        this.#calls += 1
        return seen.length >= this.#calls
      }
    }
    const classy = defineEvidenceChecklist([new MinSources()])
    expect(classy.isSatisfied({ observations, requirement: { id: 'a', providerId: 'min' } })).toBe(true)
    for (const answer of [Promise.resolve(true), 'yes', undefined, 1]) {
      const checklist = defineEvidenceChecklist([{ id: 'odd', isSatisfied: () => answer as never }])
      expect(() =>
        checklist.isSatisfied({ observations, requirement: { id: 'a', providerId: 'odd' } }),
      ).toThrow(answer instanceof Promise ? RejectedThenableError : InvalidOutputError)
    }
  })

  it('hands providers a frozen copy of the observation list with the observations as given', () => {
    let received: readonly Observation[] = []
    const checklist = defineEvidenceChecklist([
      {
        id: 'spy',
        isSatisfied: ({ observations: seen }) => {
          received = seen
          return true
        },
      },
    ])
    checklist.isSatisfied({ observations, requirement: { id: 'a', providerId: 'spy' } })
    expect(received).not.toBe(observations)
    expect(Object.isFrozen(received)).toBe(true)
    expect(received[0]).toBe(observations[0])
  })

  it('refuses malformed observations, requirements and providers', () => {
    const checklist = defineEvidenceChecklist(providers([]))
    const requirement = requirements[0]!
    // biome-ignore lint/suspicious/noSparseArray: a sparse list is the point
    for (const bad of ['S1', [null], [{ topic: 'x' }], [{ sourceId: '' }], [, observations[0]]]) {
      expect(() => checklist.isSatisfied({ observations: bad as never, requirement })).toThrow(
        InvalidInputError,
      )
    }
    for (const bad of [null, { id: 'x' }, { providerId: 'topic' }, { id: '', providerId: 'topic' }]) {
      expect(() => checklist.isSatisfied({ observations, requirement: bad as never })).toThrow(
        InvalidInputError,
      )
    }
    expect(() => checklist.missing({ observations, requirements: 'all' as never })).toThrow(InvalidInputError)
    expect(() => defineEvidenceChecklist([{ id: 'x' } as never])).toThrow(InvalidDefinitionError)
    expect(() =>
      defineEvidenceChecklist([
        { id: 'x', isSatisfied: () => true },
        { id: 'x', isSatisfied: () => true },
      ]),
    ).toThrow(DuplicateIdError)
    expect(() => defineEvidenceChecklist(new Registry<EvidenceProvider>())).toThrow(/sealed/)
    const sealed = Registry.create<EvidenceProvider>([{ id: 'y', isSatisfied: () => true }])
    expect(defineEvidenceChecklist(sealed).providers).toBe(sealed)
  })

  it('missing agrees with filtering by each provider (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ sourceId: fc.constantFrom('S1', 'S2', 'S3'), topic: fc.constantFrom('a', 'b', 'c') }),
        ),
        fc.uniqueArray(
          fc.record({
            id: fc.string({ minLength: 1 }),
            providerId: fc.constantFrom('topic', 'sources'),
            topic: fc.constantFrom('a', 'b', 'c'),
            sources: fc.nat(4),
          }),
          { selector: (r) => r.id },
        ),
        (seen, required) => {
          const checklist = defineEvidenceChecklist(providers([]))
          const reference = required.filter((r) =>
            r.providerId === 'topic'
              ? !seen.some((o) => o.topic === r.topic)
              : new Set(seen.map((o) => o.sourceId)).size < r.sources,
          )
          expect(checklist.missing({ observations: seen, requirements: required })).toEqual(reference)
          expect(checklist.isComplete({ observations: seen, requirements: required })).toBe(
            reference.length === 0,
          )
        },
      ),
    )
  })
})

describe('defineEvidenceProjection', () => {
  const boundary = [
    { sourceId: 'S1', text: 'a' },
    { sourceId: 'S2', text: 'b' },
    { sourceId: 'S1', text: 'c' },
    { sourceId: 'S3', text: 'd' },
  ]
  const cited = defineEvidenceProjection<(typeof boundary)[number]>({ id: 'cited' })

  it('narrows to the selected sources, in boundary order, the same objects', () => {
    const projected = cited.project({ observations: boundary, sourceIds: ['S3', 'S1', 'S1'] })
    expect(projected).toEqual([boundary[0], boundary[2], boundary[3]])
    expect(projected[0]).toBe(boundary[0])
    expect(cited.explain({ observations: boundary, sourceIds: ['S2'] })).toEqual({
      observations: [boundary[1]],
      reason: 'selected',
      unknown: [],
    })
  })

  it('keeps the current boundary for no selection, an unknown selection and complete candidates', () => {
    for (const sourceIds of [undefined, []]) {
      expect(cited.explain({ observations: boundary, sourceIds })).toMatchObject({
        observations: boundary,
        reason: 'no-selection',
      })
    }
    expect(cited.explain({ observations: boundary, sourceIds: ['S1', 'S9'] })).toEqual({
      observations: boundary,
      reason: 'unknown-selection',
      unknown: ['S9'],
    })
    expect(cited.explain({ observations: boundary, sourceIds: ['S3', 'S2', 'S1'] })).toMatchObject({
      observations: boundary,
      reason: 'complete',
    })
    expect(cited.project({ observations: [], sourceIds: ['S1'] })).toEqual([])
  })

  it('reads source ids through sourceIdOf, synchronously', () => {
    const byRef = defineEvidenceProjection<{ ref: string }>({ id: 'refs', sourceIdOf: (o) => o.ref })
    expect(byRef.project({ observations: [{ ref: 'x' }, { ref: 'y' }], sourceIds: ['y'] })).toEqual([
      { ref: 'y' },
    ])
    const asyncRead = defineEvidenceProjection<{ ref: string }>({
      id: 'a',
      sourceIdOf: (async () => 'x') as never,
    })
    expect(() => asyncRead.project({ observations: [{ ref: 'x' }], sourceIds: ['x'] })).toThrow(
      RejectedThenableError,
    )
  })

  it('refuses malformed selections and definitions', () => {
    for (const sourceIds of ['S1', [1], [''], [null]]) {
      expect(() => cited.project({ observations: boundary, sourceIds: sourceIds as never })).toThrow(
        InvalidInputError,
      )
    }
    expect(() => cited.project(null as never)).toThrow(InvalidInputError)
    expect(() => defineEvidenceProjection({ id: '' })).toThrow(InvalidDefinitionError)
    expect(() => defineEvidenceProjection({ id: 'x', sourceIdOf: 'ref' } as never)).toThrow(
      InvalidDefinitionError,
    )
  })

  it('agrees with the reference model (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ sourceId: fc.constantFrom('S1', 'S2', 'S3', 'S4'), n: fc.nat() })),
        fc.option(fc.array(fc.constantFrom('S1', 'S2', 'S3', 'S4', 'S5')), { nil: undefined }),
        (observed, sourceIds) => {
          const projection = defineEvidenceProjection<{ sourceId: string; n: number }>({ id: 'p' })
          const known = new Set<string>(observed.map((o) => o.sourceId))
          const selected = new Set<string>(sourceIds ?? [])
          const keep =
            selected.size === 0 ||
            [...selected].some((id) => !known.has(id)) ||
            [...known].every((id) => selected.has(id))
          const expected = keep ? observed : observed.filter((o) => selected.has(o.sourceId))
          const projected = projection.project({ observations: observed, sourceIds })
          expect(projected).toEqual(expected)
          projected.forEach((o, i) => {
            expect(o).toBe(expected[i])
          })
        },
      ),
    )
  })
})
