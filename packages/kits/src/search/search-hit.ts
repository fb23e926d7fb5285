/**
 * One hit of a search: the document's id, a score whose meaning depends on the search that produced it
 * (lexical BM25 weight for {@link TextSearch}, cosine similarity for {@link VectorSearch}) and a copy of
 * the document. Scores of different searches are not comparable; fuse rankings with
 * {@link reciprocalRankFusion} instead.
 *
 * @example
 * ```ts
 * import type { SearchHit } from '@agent-core/kits/search'
 * const hit: SearchHit<{ title: string }> = { id: 'a', score: 1.5, document: { title: 'Alpha' } }
 * ```
 */
export interface SearchHit<Document> {
  /** The document's id (the value of its id field). */
  readonly id: string
  /** Higher is better; comparable only with scores of the same search and request. */
  readonly score: number
  /** A copy of the document that the caller owns: changing it changes nothing in the index. */
  readonly document: Readonly<Document>
}

/**
 * A {@link TextSearch} hit. `score` is minisearch's BM25 weight; `document` holds the declared stored
 * fields only (a `Partial<Document>`), never the indexed full text unless that field is also stored.
 * `terms` and `match` say what matched, for highlighting.
 *
 * @example
 * ```ts
 * import type { TextSearchHit } from '@agent-core/kits/search'
 * const hit: TextSearchHit<{ id: string; title: string; body: string }> = {
 *   id: 'a',
 *   score: 2.1,
 *   document: { title: 'Alpha' },
 *   terms: ['alpha'],
 *   match: { alpha: ['title', 'body'] },
 * }
 * ```
 */
export interface TextSearchHit<Document> extends SearchHit<Partial<Document>> {
  /** The query terms (after analysis) that this document matched. */
  readonly terms: readonly string[]
  /**
   * For each indexed term that matched, the fields it was found in: `{ deploy: ['title', 'body'] }`. With
   * prefix or fuzzy matching, the keys are the indexed terms found (`deployment` for the query `deplo`).
   */
  readonly match: Readonly<Record<string, readonly string[]>>
}

/**
 * A {@link VectorSearch} hit. `score` is the cosine similarity (from -1 to 1) between the request's
 * vector and the document's vector; `document` is a copy of the whole document given to `upsert`.
 *
 * @example
 * ```ts
 * import type { VectorSearchHit } from '@agent-core/kits/search'
 * const hit: VectorSearchHit<{ id: string; title: string }> = { id: 'a', score: 0.92, document: { id: 'a', title: 'Alpha' } }
 * ```
 */
export type VectorSearchHit<Document> = SearchHit<Document>
