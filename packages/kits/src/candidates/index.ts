/**
 * Candidate selection: parse a submission that is either one ordinary value or an envelope of several
 * candidates, `{ candidates: [...] }`, into an array. `maxCandidates` must be configured and
 * `minCandidates` defaults to 1; both bound envelopes only, so an ordinary value always comes back as a
 * one-element array. An envelope is accepted only when the task allows candidates (`allowed: true`) and
 * has not yet taken over (`takenOver`); candidates keep their submitted order, and an envelope inside an
 * envelope is refused. Pure and synchronous.
 *
 * @example
 * ```ts
 * import { defineCandidateSelection } from '@agent-core/kits/candidates'
 * const selection = defineCandidateSelection({ maxCandidates: 3 })
 * selection.parse({ value: { candidates: ['short', 'long'] }, allowed: true }) // ['short', 'long']
 * selection.parse({ value: 'short', allowed: true }) // ['short']
 * ```
 *
 * @module
 */
export {
  type CandidateParseRequest,
  type CandidateSelection,
  type CandidateSelectionDefinition,
  defineCandidateSelection,
} from './candidate-selection.js'
