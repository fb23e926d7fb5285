/**
 * Evidence for answers: {@link defineEvidenceChecklist} decides whether the observations of a run meet
 * its requirements (each through the provider it names), and {@link defineEvidenceProjection} narrows the
 * observations to the sources a model selected while keeping the current boundary when the selection is
 * empty, unknown or complete. Observations carry the request's source ids (a retrieval's `S1`, `S2`, ...).
 *
 * @example
 * ```ts
 * import { defineEvidenceChecklist, defineEvidenceProjection } from '@agent-core/kits/evidence'
 *
 * const checklist = defineEvidenceChecklist([
 *   { id: 'sources', isSatisfied: ({ observations }) => observations.length >= 2 },
 * ])
 * const cited = defineEvidenceProjection({ id: 'cited' })
 * const observations = [{ sourceId: 'S1' }, { sourceId: 'S2' }, { sourceId: 'S3' }]
 * const used = cited.project({ observations, sourceIds: ['S1', 'S3'] })
 * checklist.isComplete({ observations: used, requirements: [{ id: 'two-sources', providerId: 'sources' }] }) // true
 * ```
 *
 * @module
 */
export {
  defineEvidenceChecklist,
  type EvidenceCheck,
  type EvidenceChecklist,
  type EvidenceProvider,
  type EvidenceQuestion,
} from './evidence-checklist.js'
export {
  defineEvidenceProjection,
  type EvidenceProjection,
  type EvidenceProjectionDefinition,
  type EvidenceProjectionReason,
  type EvidenceProjectionResult,
  type EvidenceSelection,
} from './evidence-projection.js'
export type { EvidenceRequirement, Observation } from './observation.js'
