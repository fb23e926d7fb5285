import {
  assertBoolean,
  assertObject,
  describeValue,
  Registry,
  type RegistryPolicy,
  refuseField,
} from '@agent-core/core'
import { checkObservations, checkRequirement, checkRequirements } from './internal/checks.js'
import type { EvidenceRequirement, Observation } from './observation.js'

/**
 * What a provider decides on: the observations so far and one requirement.
 * @example
 * ```ts
 * import type { EvidenceQuestion } from '@agent-core/kits/evidence'
 * const question: EvidenceQuestion = {
 *   observations: [{ sourceId: 'S1' }],
 *   requirement: { id: 'any-source', providerId: 'count' },
 * }
 * ```
 */
export interface EvidenceQuestion<
  Requirement extends EvidenceRequirement = EvidenceRequirement,
  Item extends Observation = Observation,
> {
  readonly observations: readonly Item[]
  readonly requirement: Requirement
}

/**
 * Decides one kind of requirement. `isSatisfied` is called as a method of the provider, must answer a
 * boolean synchronously, and receives a frozen copy of the observation list (the observations themselves
 * as given).
 * @example
 * ```ts
 * import type { EvidenceProvider, EvidenceRequirement } from '@agent-core/kits/evidence'
 * interface AtLeast extends EvidenceRequirement {
 *   readonly sources: number
 * }
 * const atLeast: EvidenceProvider<AtLeast> = {
 *   id: 'at-least',
 *   isSatisfied: ({ observations, requirement }) =>
 *     new Set(observations.map((o) => o.sourceId)).size >= requirement.sources,
 * }
 * ```
 */
export interface EvidenceProvider<
  Requirement extends EvidenceRequirement = EvidenceRequirement,
  Item extends Observation = Observation,
> {
  /** What requirements name as their `providerId`. */
  readonly id: string
  isSatisfied(question: EvidenceQuestion<Requirement, Item>): boolean
}

/**
 * What `missing` and `isComplete` take: the observations and a list of requirements (unique ids).
 * @example
 * ```ts
 * import type { EvidenceCheck } from '@agent-core/kits/evidence'
 * const check: EvidenceCheck = { observations: [], requirements: [{ id: 'any', providerId: 'count' }] }
 * ```
 */
export interface EvidenceCheck<
  Requirement extends EvidenceRequirement = EvidenceRequirement,
  Item extends Observation = Observation,
> {
  readonly observations: readonly Item[]
  readonly requirements: readonly Requirement[]
}

/**
 * Decides whether the observed evidence meets requirements, each through the provider it names.
 * @example
 * ```ts
 * import { defineEvidenceChecklist } from '@agent-core/kits/evidence'
 * const checklist = defineEvidenceChecklist([
 *   { id: 'any-source', isSatisfied: ({ observations }) => observations.length > 0 },
 * ])
 * checklist.isComplete({ observations: [], requirements: [{ id: 'r1', providerId: 'any-source' }] }) // false
 * ```
 */
export interface EvidenceChecklist<
  Requirement extends EvidenceRequirement = EvidenceRequirement,
  Item extends Observation = Observation,
> {
  /** The registered providers (sealed). */
  readonly providers: Registry<EvidenceProvider<Requirement, Item>>
  /** True when the requirement's provider says the observations satisfy it. */
  isSatisfied(question: EvidenceQuestion<Requirement, Item>): boolean
  /** The requirements not satisfied, in the order given (the same objects). */
  missing(check: EvidenceCheck<Requirement, Item>): readonly Requirement[]
  /** True when every requirement is satisfied (an empty list is complete). */
  isComplete(check: EvidenceCheck<Requirement, Item>): boolean
}

type AnyProvider = EvidenceProvider<EvidenceRequirement, Observation>

const assertProvider = (provider: AnyProvider) => {
  if (typeof provider.isSatisfied !== 'function') {
    refuseField(
      'definition',
      'isSatisfied',
      `must be a method isSatisfied({ observations, requirement }), but got ${describeValue(provider.isSatisfied)}`,
      provider.isSatisfied,
      { prefix: `Evidence provider "${provider.id}": `, details: { id: provider.id } },
    )
  }
}

const POLICY: RegistryPolicy<AnyProvider> = { kind: 'evidence provider', assertDefinition: assertProvider }

class Checklist implements EvidenceChecklist {
  constructor(readonly providers: Registry<AnyProvider>) {}

  isSatisfied(question: EvidenceQuestion): boolean {
    assertObject(question, 'isSatisfied request')
    const { observations, requirement } = question
    const list = checkObservations<Observation>(observations, 'observations')
    return this.#decide(list, checkRequirement(requirement, 'requirement'), 'requirement')
  }

  missing(check: EvidenceCheck): readonly EvidenceRequirement[] {
    const [list, requirements] = this.#read(check, 'missing')
    return Object.freeze(
      requirements.filter((requirement, index) => !this.#decide(list, requirement, `requirements[${index}]`)),
    )
  }

  isComplete(check: EvidenceCheck): boolean {
    const [list, requirements] = this.#read(check, 'isComplete')
    return requirements.every((requirement, index) =>
      this.#decide(list, requirement, `requirements[${index}]`),
    )
  }

  /** Checks everything (and that every provider exists) before any provider is asked. */
  #read(check: EvidenceCheck, method: string): [readonly Observation[], readonly EvidenceRequirement[]] {
    assertObject(check, `${method} request`)
    const { observations, requirements } = check
    const list = checkObservations<Observation>(observations, 'observations')
    const checked = checkRequirements(requirements, 'requirements')
    for (const requirement of checked) this.providers.require(requirement.providerId)
    return [list, checked]
  }

  #decide(observations: readonly Observation[], requirement: EvidenceRequirement, field: string): boolean {
    const provider = this.providers.require(requirement.providerId)
    return assertBoolean(
      provider.isSatisfied(Object.freeze({ observations, requirement })),
      `evidence provider "${provider.id}" isSatisfied (${field} "${requirement.id}")`,
    )
  }
}

/**
 * Builds an evidence checklist from its providers: each requirement names its provider by `providerId`,
 * and that provider decides, synchronously, whether the observations satisfy it. `missing` and
 * `isComplete` check the whole list (shapes, unique ids, known providers) before asking any provider.
 *
 * @param providers - an array of providers or a sealed core `Registry` of them
 * @throws `InvalidDefinitionError` for a malformed provider or an unsealed registry; `DuplicateIdError` for
 *   a repeated provider id
 * @example
 * ```ts
 * import { defineEvidenceChecklist } from '@agent-core/kits/evidence'
 * interface Cited { readonly sourceId: string; readonly topic: string }
 * interface TopicRequirement { readonly id: string; readonly providerId: 'topic'; readonly topic: string }
 * const checklist = defineEvidenceChecklist<TopicRequirement, Cited>([
 *   { id: 'topic', isSatisfied: ({ observations, requirement }) => observations.some((o) => o.topic === requirement.topic) },
 * ])
 * const observations = [{ sourceId: 'S1', topic: 'pricing' }]
 * const requirements: TopicRequirement[] = [
 *   { id: 'price', providerId: 'topic', topic: 'pricing' },
 *   { id: 'terms', providerId: 'topic', topic: 'terms' },
 * ]
 * checklist.missing({ observations, requirements }).map((r) => r.id) // ['terms']
 * ```
 */
export function defineEvidenceChecklist<
  Requirement extends EvidenceRequirement = EvidenceRequirement,
  Item extends Observation = Observation,
>(
  providers: Iterable<EvidenceProvider<Requirement, Item>> | Registry<EvidenceProvider<Requirement, Item>>,
): EvidenceChecklist<Requirement, Item> {
  let registry: Registry<AnyProvider>
  if (providers instanceof Registry) {
    if (!providers.sealed) {
      refuseField(
        'definition',
        'providers',
        'must be a sealed Registry of providers, so the checklist cannot change while it is used. Call seal() first, or pass an array',
        providers,
        { prefix: 'defineEvidenceChecklist: ' },
      )
    }
    for (const provider of providers.values()) assertProvider(provider as unknown as AnyProvider)
    registry = providers as unknown as Registry<AnyProvider>
  } else {
    registry = Registry.create(providers as Iterable<AnyProvider>, POLICY)
  }
  return Object.freeze(new Checklist(registry)) as unknown as EvidenceChecklist<Requirement, Item>
}
