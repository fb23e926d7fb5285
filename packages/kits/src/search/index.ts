/**
 * Hybrid search over a local corpus: {@link TextSearch} (BM25 full-text search on minisearch),
 * {@link VectorSearch} (exact cosine similarity over embedding vectors) and {@link reciprocalRankFusion}
 * to merge their rankings without comparing their scores.
 *
 * Every search takes a named request (`{ query | vector, limit, filter }`), copies documents in and out
 * so that nothing is shared with the index, calls App filters synchronously, and orders equal scores by
 * id. Both indexes snapshot to JSON with a configuration fingerprint that restore checks.
 *
 * Every index, {@link HybridSearch} included, changes through one vocabulary: `add(entry)` and
 * `addAll(entries)` (new ids only), `upsert(entry)` and `upsertAll(entries)` (add or replace), and
 * `remove(id)` (answers whether it was indexed) and `removeAll(ids)` (answers how many were). An entry is
 * a document, or `{ document, vector }` for VectorSearch; a batch is all or nothing and names each id
 * once. Calls that embed (HybridSearch) or purge removed terms (TextSearch `upsert*` and `remove*`)
 * answer through a promise; VectorSearch and TextSearch `add*` answer at once.
 *
 * @example
 * ```ts
 * import { TextSearch, VectorSearch, reciprocalRankFusion } from '@agent-core/kits/search'
 * interface Doc { id: string; title: string }
 * const text = new TextSearch<Doc>({ indexRevision: 'v1', fields: ['title'], storedFields: ['title'] })
 * const vectors = new VectorSearch<Doc>({ identity: 'toy-2d', dimensions: 2 })
 * text.addAll([{ id: 'a', title: 'red apple' }, { id: 'b', title: 'green pear' }])
 * vectors.upsertAll([
 *   { document: { id: 'a', title: 'red apple' }, vector: [1, 0] },
 *   { document: { id: 'b', title: 'green pear' }, vector: [0, 1] },
 * ])
 * const fused = reciprocalRankFusion([
 *   { sourceId: 'text', hits: text.search({ query: 'apple', limit: 10 }) },
 *   { sourceId: 'vector', hits: vectors.search({ vector: [0.9, 0.1], limit: 10 }) },
 * ])
 * console.log(fused[0]?.id) // "a"
 * ```
 *
 * @module
 */
export {
  type Embedder,
  type EmbedOptions,
  type OpenAICompatibleEmbedderOptions,
  openAICompatibleEmbedder,
} from './embedder.js'
export { HybridSearch } from './hybrid-search.js'
export type {
  HybridContribution,
  HybridFusionOptions,
  HybridSearchHit,
  HybridSearchOptions,
  HybridSearchRequest,
  HybridSearchSnapshot,
  HybridSnippet,
} from './hybrid-search-types.js'
export type { JsonData } from './json-data.js'
export { looksExact } from './looks-exact.js'
export {
  type FusedRank,
  type RankContribution,
  type RankedItem,
  type Ranking,
  type ReciprocalRankFusionOptions,
  reciprocalRankFusion,
} from './reciprocal-rank-fusion.js'
export {
  EmbeddingError,
  type EmbeddingErrorDetails,
  SearchLimitError,
  type SearchLimitErrorDetails,
} from './search-errors.js'
export type { SearchHit, TextSearchHit, VectorSearchHit } from './search-hit.js'
export {
  defineTextAnalyzer,
  englishAnalyzer,
  standardAnalyzer,
  type TextAnalyzer,
  type TextAnalyzerDefinition,
} from './text-analyzer.js'
export type { TextQueryOptions } from './text-query-options.js'
export {
  TextSearch,
  type TextSearchOptions,
  type TextSearchRequest,
  type TextSearchSnapshot,
} from './text-search.js'
export type { VectorInput } from './vector-input.js'
export {
  VectorSearch,
  type VectorSearchOptions,
  type VectorSearchRequest,
  type VectorSearchSnapshot,
  type VectorUpsert,
} from './vector-search.js'
