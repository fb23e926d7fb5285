/**
 * Projections that fit data into a bounded place without I/O: {@link defineContentProjection} renders a
 * value as text within a character budget (whole, a prefix, or a fallback that must fit too, never made-up
 * text), and {@link defineTreeProjection} walks a tree synchronously with `maxDepth` and `omit`.
 *
 * @example
 * ```ts
 * import { defineContentProjection } from '@agent-core/kits/projection'
 *
 * const text = defineContentProjection<string>({ id: 'note', render: (s) => s, marker: '…' })
 * text.project({ value: 'hello world', maxChars: 6 }) // { text: 'hello…', truncated: true }
 * ```
 *
 * @module
 */
export {
  type ContentOverflow,
  type ContentProjection,
  type ContentProjectionDefinition,
  type ContentProjectionRequest,
  type ContentProjectionResult,
  defineContentProjection,
} from './content-projection.js'
export {
  defineTreeProjection,
  type TreeContextArgument,
  type TreePosition,
  type TreeProjected,
  type TreeProjection,
  type TreeProjectionDefinition,
} from './tree-projection.js'
