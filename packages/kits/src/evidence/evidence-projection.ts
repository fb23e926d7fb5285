import { assertNotThenable, assertObject, describeValue, refuseField } from '@agent-core/core'
import { checkObservations } from './internal/checks.js'
import type { Observation } from './observation.js'

/**
 * How a projection reads observations.
 * @example
 * ```ts
 * import type { EvidenceProjectionDefinition } from '@agent-core/kits/evidence'
 * const definition: EvidenceProjectionDefinition<{ ref: string }> = { id: 'cited', sourceIdOf: (o) => o.ref }
 * ```
 */
export interface EvidenceProjectionDefinition<Item = Observation> {
  /** Names the projection in errors and diagnostics. */
  readonly id: string
  /** The source id of an observation, synchronously. Default: `observation.sourceId`. */
  sourceIdOf?(observation: Item): string
}

/**
 * What a projection narrows: the current evidence boundary (`observations`) and a selection of source
 * ids (usually the ones the model cited).
 * @example
 * ```ts
 * import type { EvidenceSelection } from '@agent-core/kits/evidence'
 * const selection: EvidenceSelection = { observations: [{ sourceId: 'S1' }, { sourceId: 'S2' }], sourceIds: ['S2'] }
 * ```
 */
export interface EvidenceSelection<Item = Observation> {
  readonly observations: readonly Item[]
  /** The selected source ids; `undefined` or empty means no selection. */
  readonly sourceIds?: readonly string[] | undefined
}

/**
 * Why a projection kept or narrowed the boundary.
 * - `no-selection`: no source ids were selected; the boundary stays.
 * - `unknown-selection`: a selected id names no observation; the boundary stays (nothing is fabricated or
 *   guessed), and `unknown` lists those ids.
 * - `complete`: the selection covers every source of the boundary; the boundary stays.
 * - `selected`: the observations of the selected sources, in their original order.
 * @example
 * ```ts
 * import type { EvidenceProjectionReason } from '@agent-core/kits/evidence'
 * const reason: EvidenceProjectionReason = 'unknown-selection'
 * ```
 */
export type EvidenceProjectionReason = 'no-selection' | 'unknown-selection' | 'complete' | 'selected'

/**
 * The detailed outcome of {@link EvidenceProjection.explain}.
 * @example
 * ```ts
 * import type { EvidenceProjectionResult } from '@agent-core/kits/evidence'
 * function log(result: EvidenceProjectionResult) {
 *   console.log(result.reason, result.observations.length, result.unknown)
 * }
 * ```
 */
export interface EvidenceProjectionResult<Item = Observation> {
  readonly observations: readonly Item[]
  readonly reason: EvidenceProjectionReason
  /** Selected ids that name no observation of the boundary. */
  readonly unknown: readonly string[]
}

/**
 * A compiled evidence projection.
 * @example
 * ```ts
 * import { defineEvidenceProjection } from '@agent-core/kits/evidence'
 * const cited = defineEvidenceProjection({ id: 'cited' })
 * const observations = [{ sourceId: 'S1' }, { sourceId: 'S2' }, { sourceId: 'S3' }]
 * cited.project({ observations, sourceIds: ['S3', 'S1'] }) // S1 and S3, in boundary order
 * cited.project({ observations, sourceIds: ['S9'] }) // all three: an unknown id keeps the boundary
 * ```
 */
export interface EvidenceProjection<Item = Observation> {
  readonly id: string
  /**
   * The observations inside the selection, or the whole boundary (see {@link EvidenceProjectionReason}).
   * The element type of the result is the one given.
   */
  project<Selected extends Item>(selection: EvidenceSelection<Selected>): readonly Selected[]
  /** Like `project`, with the reason and the unknown ids. */
  explain<Selected extends Item>(selection: EvidenceSelection<Selected>): EvidenceProjectionResult<Selected>
}

function checkSourceIds(sourceIds: unknown): readonly string[] {
  if (sourceIds === undefined) return []
  if (!Array.isArray(sourceIds)) {
    refuseField(
      'input',
      'sourceIds',
      `must be an array of source ids or left out, but got ${describeValue(sourceIds)}`,
      sourceIds,
    )
  }
  for (let index = 0; index < sourceIds.length; index++) {
    const id: unknown = index in sourceIds ? sourceIds[index] : undefined
    if (typeof id !== 'string' || id === '') {
      refuseField(
        'input',
        `sourceIds[${index}]`,
        `must be a non-empty string, but got ${describeValue(id)}`,
        id,
      )
    }
  }
  return sourceIds as readonly string[]
}

/**
 * Builds an evidence projection: `project({ observations, sourceIds })` narrows the evidence to the
 * selected sources, and keeps the current boundary (every observation, in order) when there is no
 * selection, when the selection names an unknown source, and when it covers every source (complete
 * candidates). Observations are returned as given, never copied or changed.
 *
 * @throws `InvalidDefinitionError` for a malformed definition
 * @example
 * ```ts
 * import { defineEvidenceProjection } from '@agent-core/kits/evidence'
 * const cited = defineEvidenceProjection({ id: 'cited' })
 * const observations = [{ sourceId: 'S1', text: 'a' }, { sourceId: 'S2', text: 'b' }]
 * cited.explain({ observations, sourceIds: ['S2'] }).reason // 'selected'
 * ```
 */
export function defineEvidenceProjection<Item = Observation>(
  definition: EvidenceProjectionDefinition<Item>,
): EvidenceProjection<Item> {
  if (typeof definition !== 'object' || definition === null) {
    refuseField(
      'definition',
      'definition',
      `must be a definition { id, sourceIdOf? }, but got ${describeValue(definition)}`,
      definition,
      { prefix: 'defineEvidenceProjection: ' },
    )
  }
  const { id, sourceIdOf } = definition
  if (typeof id !== 'string' || id === '') {
    refuseField('definition', 'id', `must be a non-empty string, but got ${describeValue(id)}`, id, {
      prefix: 'An evidence projection: ',
    })
  }
  if (sourceIdOf !== undefined && typeof sourceIdOf !== 'function') {
    refuseField(
      'definition',
      'sourceIdOf',
      `must be a function or left out, but got ${describeValue(sourceIdOf)}`,
      sourceIdOf,
      { prefix: `Evidence projection "${id}": `, details: { id } },
    )
  }
  const read = (observation: Item): unknown =>
    sourceIdOf === undefined
      ? (observation as Observation).sourceId
      : assertNotThenable(sourceIdOf.call(definition, observation), `evidence projection "${id}" sourceIdOf`)

  const explain = (selection: EvidenceSelection<Item>): EvidenceProjectionResult<Item> => {
    assertObject(selection, `evidence projection "${id}" request`)
    const { observations, sourceIds } = selection
    const boundary = checkObservations<Item>(observations, 'observations', read)
    const selected = new Set(checkSourceIds(sourceIds))
    const ids = boundary.map((observation) => read(observation) as string)
    const known = new Set(ids)
    const keep = (reason: EvidenceProjectionReason, unknown: readonly string[] = []) =>
      Object.freeze({ observations: boundary, reason, unknown: Object.freeze([...unknown]) })
    if (selected.size === 0) return keep('no-selection')
    const unknown = [...selected].filter((sourceId) => !known.has(sourceId))
    if (unknown.length > 0) return keep('unknown-selection', unknown)
    if (selected.size === known.size) return keep('complete')
    return Object.freeze({
      observations: Object.freeze(
        boundary.filter((_observation, index) => selected.has(ids[index] as string)),
      ),
      reason: 'selected' as const,
      unknown: Object.freeze([]),
    })
  }

  const projection: EvidenceProjection<Item> = {
    id,
    explain: <Selected extends Item>(selection: EvidenceSelection<Selected>) =>
      explain(selection) as EvidenceProjectionResult<Selected>,
    project: <Selected extends Item>(selection: EvidenceSelection<Selected>) =>
      explain(selection).observations as readonly Selected[],
  }
  return Object.freeze(projection)
}
