/**
 * One piece of evidence the run observed, tied to the request's reference id of its source (`S1`, ...: a
 * `RetrievalSource` of the retrieval kit is one). Apps extend it with what they observed.
 * @example
 * ```ts
 * import type { Observation } from '@agent-core/kits/evidence'
 * interface PriceSeen extends Observation {
 *   readonly field: 'price'
 *   readonly value: number
 * }
 * const seen: PriceSeen = { sourceId: 'S2', field: 'price', value: 42 }
 * ```
 */
export interface Observation {
  readonly sourceId: string
}

/**
 * What the run must have observed before it may answer: a requirement, never an existing resource. `id`
 * names the requirement within its list; `providerId` names the checklist provider that decides it. It is
 * deliberately not an `ArtifactReference` (which names a resource by `resolverId` / `artifactId`): the two
 * carry ids for different things and are never merged.
 * @example
 * ```ts
 * import type { EvidenceRequirement } from '@agent-core/kits/evidence'
 * interface TopicRequirement extends EvidenceRequirement {
 *   readonly topic: string
 * }
 * const needsPricing: TopicRequirement = { id: 'pricing', providerId: 'topic', topic: 'pricing' }
 * ```
 */
export interface EvidenceRequirement {
  readonly id: string
  readonly providerId: string
}
