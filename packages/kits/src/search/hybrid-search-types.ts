import type { Embedder } from './embedder.js'
import type { JsonData } from './json-data.js'
import type { SearchHit } from './search-hit.js'
import type { TextAnalyzer } from './text-analyzer.js'
import type { TextSearchSnapshot } from './text-search.js'
import type { VectorSearchSnapshot } from './vector-search.js'

/**
 * How {@link HybridSearch} fuses its text and vector rankings (weighted Reciprocal Rank Fusion).
 *
 * @example
 * ```ts
 * import type { HybridFusionOptions } from '@agent-core/kits/search'
 * const fusion: HybridFusionOptions = { k: 60, textWeight: 1, vectorWeight: 1, lookups: 'text-first', lookupRanking: 'flat', candidates: 50, documentSupport: 0, verbatim: 0.5 }
 * ```
 */
export interface HybridFusionOptions {
  /** The RRF rank constant: a finite number of at least 0 (default 60). */
  readonly k?: number
  /** The weight of the text ranking: a positive finite number (default 1). */
  readonly textWeight?: number
  /** The weight of the vector ranking: a positive finite number (default 1). */
  readonly vectorWeight?: number
  /**
   * How a query that looks like a lookup (an identifier, a quoted phrase, bare keywords: see
   * {@link looksExact}) is fused. `"text-first"` (default): the text ranking decides the order and the
   * vector ranking only breaks ties and adds documents the text side did not find (the text weight is
   * raised to `textWeight * (k + candidates + 1)`, which no vector rank can outweigh). `"fuse"`: like any
   * other query.
   */
  readonly lookups?: 'text-first' | 'fuse'
  /**
   * How the text side ranks a lookup that it decides (`lookups: "text-first"`). `"flat"` (default): BM25
   * with every field weighed alike (`boost` does not apply) and a milder length normalization (b = 0.5
   * instead of 0.75). A lookup asks which passage uses these words or identifiers; with field boosts,
   * every passage of a file whose title names the identifier outranks the passage that uses it (all
   * passages of a file share its title), and full length normalization prefers a short passage that
   * names it in passing. Measured on bench/retrieval's lookups: Fiori 0.822 to 0.856 (plain BM25 0.852),
   * this repository's docs 0.873 to 0.893; paraphrases unchanged (docs/kits/search.md, "Issue 30,
   * fourth pass"). `"boosted"`: `boost` and b = 0.75, as for any other query.
   */
  readonly lookupRanking?: 'flat' | 'boosted'
  /** How many hits each ranking contributes to the fusion: a safe integer of at least 1 (default 50). */
  readonly candidates?: number
  /**
   * With `documentOf` set, how much the other candidates of the same source document lift a hit: its
   * fused score plus `documentSupport` times the fused scores of the (at most 3) best other candidates
   * of its document. Passages of one file then support each other, and a file several rankings agree
   * on comes first. A finite number of at least 0 (default 0: off). Lookups that the text side decides
   * (`lookups: "text-first"`) are not lifted: an exact match keeps its place. Off by default because it
   * measured worse (bench/retrieval, bench/desk): it lets one file that matches a few common words fill
   * the whole top of the list, which costs the right passage of another file its place.
   */
  readonly documentSupport?: number
  /**
   * How much a text hit gains for holding the query's words as the query wrote them, not only their
   * stems. Before fusion, each text candidate's BM25 score is multiplied by `1 + verbatim * share`, where
   * `share` is the fraction of the query words it matches that its fields hold verbatim (lower-cased
   * tokens; a query word is a token the analyzer does not drop, so stop words do not count), and the
   * text ranking is re-sorted by that score. For `overview page cards` a passage that says `cards` then
   * ranks above one that only says `card`, and `deploy` above `deploying`; a hit that matches fewer words
   * gains as much as one that matches more, provided it holds them as written (BM25 has weighed how many
   * and how rare). A finite number of at least 0; 0 turns it off (the plain BM25 order). Default 0.5, which
   * measured best on bench/retrieval: lookups and paraphrases better on both of its corpora, none worse
   * (docs/kits/search.md, "Issue 30, third pass").
   */
  readonly verbatim?: number
}

/**
 * Options of {@link HybridSearch}.
 *
 * @example
 * ```ts
 * import { type HybridSearchOptions, openAICompatibleEmbedder } from '@agent-core/kits/search'
 * interface Passage { id: string; title: string; headings: string[]; text: string; file: string }
 * const options: HybridSearchOptions<Passage> = {
 *   indexRevision: 'docs-v1',
 *   fields: ['title', 'headings', 'text'],
 *   boost: { title: 3, headings: 2 },
 *   embedder: openAICompatibleEmbedder({ baseURL: 'http://127.0.0.1:8080/v1', model: 'text-embedding-3-small', dimensions: 1536 }),
 * }
 * ```
 */
export interface HybridSearchOptions<Document extends object> {
  /**
   * The App's revision of how documents are indexed, part of the fingerprint. Change it when `embedText`
   * or the meaning of a field changes (functions cannot be fingerprinted).
   */
  readonly indexRevision: string
  /** The text fields, in reading order: strings, arrays of strings (a heading path), numbers, booleans. */
  readonly fields: readonly Extract<keyof Document, string>[]
  /** The document field holding its id, a non-empty string. Default `"id"`. */
  readonly idField?: Extract<keyof Document, string>
  /** Multiplies the text score of matches in a field, e.g. `{ title: 3, headings: 2 }`. */
  readonly boost?: Readonly<Partial<Record<Extract<keyof Document, string>, number>>>
  /** The text analysis; default {@link englishAnalyzer}. Its name and version are fingerprinted. */
  readonly analyzer?: TextAnalyzer
  /** The embedding model. Without one, the index is a text index with the same API. */
  readonly embedder?: Embedder
  /**
   * The text embedded for a document (synchronous). Default: the `fields`, in order, separated by blank
   * lines (arrays joined with " / "). A document whose text is empty gets no vector.
   */
  readonly embedText?: (document: Document) => string
  /** The field snippets are cut from; default the last of `fields`. */
  readonly snippetField?: Extract<keyof Document, string>
  /** How the two rankings fuse. */
  readonly fusion?: HybridFusionOptions
  /**
   * The source document a search document belongs to (its file, when documents are passages), a
   * synchronous function returning a string. With it, candidates of the same source support each
   * other (see `fusion.documentSupport`). It receives a copy of the document.
   */
  readonly documentOf?: (document: Document) => string
}

/**
 * A request to {@link HybridSearch.search}.
 *
 * @example
 * ```ts
 * import type { HybridSearchRequest } from '@agent-core/kits/search'
 * const request: HybridSearchRequest<{ id: string; file: string }> = {
 *   query: 'how do I restore a snapshot?',
 *   limit: 5,
 *   filter: (passage) => passage.file.endsWith('.md'),
 * }
 * ```
 */
export interface HybridSearchRequest<Document extends object> {
  /** Free text. Quoted phrases and identifiers lean the fusion on the text side. */
  readonly query: string
  /** The most hits to return: a safe integer of at least 0. */
  readonly limit: number
  /** Keeps a document when it returns `true`, synchronously; receives a copy of the document. */
  readonly filter?: (document: Document, id: string) => boolean
  /**
   * `"hybrid"` (default) fuses both rankings; `"text"` or `"vector"` uses one. Without an embedder, every
   * mode but `"vector"` is text only.
   */
  readonly mode?: 'hybrid' | 'text' | 'vector'
  /** Cancels the query's embedding. */
  readonly signal?: AbortSignal
  /** The length of the snippet around the best match, in characters (default 240; 0 for none). */
  readonly snippetChars?: number
}

/**
 * One ranking's share of a {@link HybridSearchHit}.
 *
 * @example
 * ```ts
 * import type { HybridContribution } from '@agent-core/kits/search'
 * const part: HybridContribution = { sourceId: 'text', rank: 1, weight: 2, contribution: 2 / 61, score: 7.3 }
 * ```
 */
export interface HybridContribution {
  /** `"text"` or `"vector"`. */
  readonly sourceId: 'text' | 'vector'
  /** The 1-based rank in that ranking. */
  readonly rank: number
  /** That ranking's weight for this query. */
  readonly weight: number
  /** `weight / (k + rank)`. */
  readonly contribution: number
  /** The score in that ranking: a BM25 weight, or a cosine similarity. */
  readonly score: number
}

/**
 * A short excerpt of a hit's text around its best match, for display.
 *
 * @example
 * ```ts
 * import type { HybridSnippet } from '@agent-core/kits/search'
 * const snippet: HybridSnippet = { field: 'text', text: 'restore a snapshot', start: 120, end: 138, highlights: [{ start: 130, end: 138 }] }
 * ```
 */
export interface HybridSnippet {
  /** The field it was cut from. */
  readonly field: string
  /** The excerpt: `document[field].slice(start, end)` (arrays joined with " / "). */
  readonly text: string
  /** UTF-16 offset of the excerpt in the field's text. */
  readonly start: number
  /** UTF-16 offset just past the excerpt. */
  readonly end: number
  /** The matched tokens inside the excerpt, in offsets of the field's text. */
  readonly highlights: readonly { readonly start: number; readonly end: number }[]
}

/**
 * A {@link HybridSearch} hit: the fused score, where it came from, what matched and a snippet.
 *
 * @example
 * ```ts
 * import type { HybridSearchHit } from '@agent-core/kits/search'
 * function show(hit: HybridSearchHit<{ id: string; text: string }>) {
 *   console.log(hit.id, hit.score.toFixed(4), hit.contributions.map((c) => `${c.sourceId}#${c.rank}`).join(' '), hit.snippet?.text)
 * }
 * ```
 */
export interface HybridSearchHit<Document> extends SearchHit<Document> {
  /** The fused RRF score; comparable only within one result list. */
  readonly score: number
  /** One entry per ranking the document was in, text first. */
  readonly contributions: readonly HybridContribution[]
  /** The query terms (after analysis) the document matched on the text side. */
  readonly terms: readonly string[]
  /** Per matched index term, the fields it matched in. */
  readonly match: Readonly<Record<string, readonly string[]>>
  /** An excerpt around the best match (absent when `snippetChars` is 0 or the field is empty). */
  readonly snippet?: HybridSnippet
}

/**
 * What {@link HybridSearch.snapshot} returns: JSON-serializable, with one fingerprint for both indexes.
 *
 * @example
 * ```ts
 * import type { HybridSearchSnapshot } from '@agent-core/kits/search'
 * function describe(snapshot: HybridSearchSnapshot) {
 *   return `${snapshot.documents.length} documents, vectors: ${snapshot.vectors ? 'yes' : 'no'}`
 * }
 * ```
 */
export interface HybridSearchSnapshot {
  /** The snapshot format; only 1 exists. */
  readonly version: 1
  /** `"agent-core/hybrid"`. */
  readonly engine: string
  /** Fingerprint of the whole configuration, embedder identity included. */
  readonly configurationFingerprint: string
  /** Every document, with the content hash of its embedded text (`null` when it has no vector). */
  readonly documents: readonly { readonly hash: string | null; readonly document: JsonData }[]
  /** The text index. */
  readonly text: TextSearchSnapshot
  /** The vector index, or `null` without an embedder. */
  readonly vectors: VectorSearchSnapshot | null
}
