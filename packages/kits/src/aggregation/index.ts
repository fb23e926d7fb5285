/**
 * Merges the results of several queries into one list without I/O: {@link defineQueryAggregation} keeps
 * the serial order of first appearance, deduplicates by a key, applies a declared override rule to
 * duplicates and reports counts whose basis is explicit.
 *
 * @example
 * ```ts
 * import { defineQueryAggregation } from '@agent-core/kits/aggregation'
 *
 * const docs = defineQueryAggregation<{ path: string }>({ id: 'docs', key: (doc) => doc.path, limit: 10 })
 * docs.collect([[{ path: 'a.md' }], [{ path: 'a.md' }, { path: 'b.md' }]]).counts.duplicates // 1
 * ```
 *
 * @module
 */
export {
  type AggregationContextArgument,
  type DuplicateItem,
  type DuplicatePolicy,
  defineQueryAggregation,
  type QueryAggregation,
  type QueryAggregationCounts,
  type QueryAggregationDefinition,
  type QueryAggregationResult,
  type QueryInputCounts,
} from './query-aggregation.js'
