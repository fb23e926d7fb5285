/**
 * Plain data a search index may keep: what survives both `structuredClone` and a JSON round trip
 * unchanged. Dates, Maps, class instances, functions, NaN and sparse arrays are not plain data.
 *
 * @example
 * ```ts
 * import type { JsonData } from '@agent-core/kits/search'
 * const metadata: JsonData = { source: 'guide.md', tags: ['setup'], updated: '2025-01-31T00:00:00Z', page: 3 }
 * ```
 */
export type JsonData =
  | null
  | boolean
  | number
  | string
  | readonly JsonData[]
  | { readonly [key: string]: JsonData }
