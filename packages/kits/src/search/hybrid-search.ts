import {
  AgentCoreError,
  assertNonEmptyString,
  assertSafeInteger,
  DuplicateIdError,
  describeValue,
  InvalidOutputError,
  InvalidStateError,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type { Embedder, EmbedOptions } from './embedder.js'
import type {
  HybridContribution,
  HybridFusionOptions,
  HybridSearchHit,
  HybridSearchOptions,
  HybridSearchRequest,
  HybridSearchSnapshot,
  HybridSnippet,
} from './hybrid-search-types.js'
import { analyzerKey, BUILT_IN } from './internal/analyzers.js'
import {
  assertFieldList,
  assertFiniteNumber,
  assertIdList,
  assertLimit,
  assertOptionalFunction,
  assertRequest,
  groupKey,
  keepByFilter,
  readDocumentId,
} from './internal/checks.js'
import { configurationFingerprint } from './internal/fingerprint.js'
import { checkEmbedder, readFusion } from './internal/hybrid-options.js'
import { cloneIndexData, copyIndexData, firstNonJsonPath, notJsonError } from './internal/index-data.js'
import { createHash } from './internal/node-builtins.js'
import {
  CorruptStream,
  isByteSource,
  RECORD,
  RecordReader,
  RecordWriter,
} from './internal/snapshot-stream.js'
import { type Range, snippetOf } from './internal/snippet.js'
import { writeNormalized } from './internal/vector-math.js'
import type { JsonData } from './json-data.js'
import { looksExact } from './looks-exact.js'
import { reciprocalRankFusion } from './reciprocal-rank-fusion.js'
import { EmbeddingError } from './search-errors.js'
import { englishAnalyzer, type TextAnalyzer } from './text-analyzer.js'
import type { TextQueryOptions } from './text-query-options.js'
import { TextSearch, type TextSearchSnapshot } from './text-search.js'
import { VectorSearch, type VectorSearchSnapshot } from './vector-search.js'

const ENGINE = 'agent-core/hybrid'
/** How many other candidates of a document support a hit (see `fusion.documentSupport`). */
const SUPPORTING = 3
/** The weight of an identifier's parts in a text query, against 1 for the whole identifier. */
const IDENTIFIER_PART_WEIGHT = 0.25

/** BM25's length normalization for a lookup ranked `lookupRanking: "flat"` (minisearch's default is 0.75). */
const FLAT_LOOKUP_B = 0.5

/** A stored document: the copy, whether it is JSON data, and the content hash of its embedded text. */
interface Entry {
  readonly document: unknown
  readonly json: boolean
  /** sha256 of the embedded text, or null when the text is empty (no vector). */
  readonly hash: string | null
}

/** A checked document of an update, ready to apply. */
interface Prepared {
  readonly id: string
  readonly entry: Entry
  readonly embedText: string
}

/** What one update will change, with the vectors it had to compute. */
interface Plan {
  readonly prepared: readonly Prepared[]
  /** New vectors by id (documents whose embedded text is new or changed). */
  readonly vectors: Map<string, Float32Array>
}

/**
 * A ready hybrid index over one set of documents: a {@link TextSearch} (BM25 with an analyzer and field
 * boosts) and a {@link VectorSearch} (cosine similarity over the App's embedder) kept in step, fused with
 * weighted Reciprocal Rank Fusion.
 *
 * - **One version at a time.** The changes (`add`, `addAll`, `upsert`, `upsertAll`, `remove`, `removeAll`
 *   and `update`, the vocabulary every search index shares) run one after another; an update embeds
 *   what changed first, then applies to both sides in one synchronous step, so a concurrent `search`
 *   sees all of the old documents or all of the new, never text of one version and vectors of another.
 * - **Nothing embedded twice.** The content hash of each document's embedded text is kept (and
 *   snapshotted): re-adding an unchanged document embeds nothing.
 * - **Degrades well.** Without an embedder it is a text index with the same API. When the embedder fails,
 *   the update rejects with a typed error ({@link EmbeddingError}, `AbortedError`, `TimeoutError`,
 *   `InvalidOutputError`) and the index is exactly as it was.
 * - **Lookups lean on letters.** For a query that looks like an identifier, a quoted phrase or bare
 *   keywords, the text ranking decides the order by default (see {@link looksExact} and `lookups`).
 * - **Hits say why.** Each hit carries the contributions of both rankings, the matched terms per field,
 *   and a snippet cut from the stored document (the body is stored once, not in the text index).
 *
 * @example
 * ```ts
 * import { HybridSearch } from '@agent-core/kits/search'
 * interface Note { id: string; title: string; text: string }
 * const notes = new HybridSearch<Note>({ indexRevision: 'notes-v1', fields: ['title', 'text'], boost: { title: 2 } })
 * await notes.upsertAll([
 *   { id: 'a', title: 'Snapshots', text: 'Restore a snapshot with restore().' },
 *   { id: 'b', title: 'Filters', text: 'A filter answers true or false.' },
 * ])
 * const [best] = await notes.search({ query: 'restoring snapshots', limit: 3 })
 * console.log(best?.id, best?.snippet?.text) // "a" "Restore a snapshot with restore()."
 * ```
 */
export class HybridSearch<Document extends object = Record<string, unknown>> {
  /** The App's index revision. */
  readonly indexRevision: string
  /** The text fields. */
  readonly fields: readonly Extract<keyof Document, string>[]
  /** The id field. */
  readonly idField: Extract<keyof Document, string>
  /** The analyzer of the text side. */
  readonly analyzer: TextAnalyzer
  /** The embedder, or `undefined` for a text-only index. */
  readonly embedder: Embedder | undefined
  /** Fingerprint of the configuration, as written into snapshots. */
  readonly configurationFingerprint: string

  readonly #boost: Readonly<Record<string, number>>
  readonly #embedText: (document: Document) => string
  readonly #snippetField: string
  readonly #fusion: Required<HybridFusionOptions>
  readonly #documentOf: ((document: Document) => string) | undefined
  #text: TextSearch<Document>
  /** The text request options of a lookup ranked `lookupRanking: "flat"`: no field boosts, b = 0.5. */
  readonly #flatLookup: Pick<TextQueryOptions<Extract<keyof Document, string>>, 'boost' | 'bm25'> = {
    // No field at all: TypeScript cannot see that an empty object fits a record over a generic key.
    boost: {} as Readonly<Partial<Record<Extract<keyof Document, string>, number>>>,
    bm25: { b: FLAT_LOOKUP_B },
  }
  #vectors: VectorSearch<{ id: string }> | undefined
  #entries = new Map<string, Entry>()
  #tail: Promise<unknown> = Promise.resolve()
  #pending = 0

  constructor(options: HybridSearchOptions<Document>) {
    assertRequest(
      options,
      'new HybridSearch',
      "{ indexRevision: 'v1', fields: ['title', 'text'] }",
      'options',
    )
    assertNonEmptyString(options.indexRevision, 'options.indexRevision')
    const fields = assertFieldList(options.fields, 'options.fields', { nonEmpty: true }) as Extract<
      keyof Document,
      string
    >[]
    const idField = (options.idField ?? 'id') as Extract<keyof Document, string>
    assertNonEmptyString(idField, 'options.idField')
    const boost: Record<string, number> = {}
    if (options.boost !== undefined) {
      assertRequest(options.boost, 'new HybridSearch', '{ title: 3 }', 'options.boost')
      for (const [field, factor] of Object.entries(options.boost)) {
        if (!fields.includes(field as Extract<keyof Document, string>)) {
          refuseField(
            'input',
            `options.boost.${field}`,
            `names "${field}", which is not one of the fields (${fields.join(', ')})`,
            field,
            { prefix: 'HybridSearch ' },
          )
        }
        assertFiniteNumber(factor, `options.boost.${field}`, { min: 0, exclusiveMin: true })
        boost[field] = factor
      }
    }
    const analyzer = options.analyzer ?? englishAnalyzer
    assertOptionalFunction(options.embedText, 'options.embedText')
    const embedder = options.embedder === undefined ? undefined : checkEmbedder(options.embedder)
    const snippetField = options.snippetField ?? fields.at(-1)!
    if (!fields.includes(snippetField)) {
      refuseField(
        'input',
        'options.snippetField',
        `must be one of the fields (${fields.join(', ')}), but got ${describeValue(snippetField)}`,
        snippetField,
        { prefix: 'HybridSearch ' },
      )
    }
    this.#fusion = readFusion(options.fusion)
    assertOptionalFunction(options.documentOf, 'options.documentOf')
    this.#documentOf = options.documentOf
    this.indexRevision = options.indexRevision
    this.fields = Object.freeze(fields)
    this.idField = idField
    this.analyzer = analyzer
    this.embedder = embedder
    this.#boost = Object.freeze(boost)
    this.#snippetField = snippetField
    this.#embedText =
      options.embedText ?? ((document) => defaultEmbedText(document as Record<string, unknown>, fields))
    // The text side is built first: it checks the analyzer.
    this.#text = this.#newText()
    this.#vectors = this.#newVectors()
    this.configurationFingerprint = configurationFingerprint('hybrid-search', {
      engine: ENGINE,
      indexRevision: this.indexRevision,
      idField,
      fields,
      boost,
      analyzer: analyzerKey(analyzer),
      embedder: embedder ? { identity: embedder.identity, dimensions: embedder.dimensions } : null,
    })
  }

  /** How many documents the index holds. */
  get size(): number {
    return this.#entries.size
  }

  /** True when a document with this id is indexed. */
  has(id: string): boolean {
    return this.#entries.has(id)
  }

  /** A copy of the document with this id, or `undefined`. */
  get(id: string): Document | undefined {
    const entry = this.#entries.get(id)
    return entry === undefined ? undefined : (cloneIndexData(entry.document, entry.json) as Document)
  }

  /** The ids of all documents, in insertion order. */
  ids(): readonly string[] {
    return [...this.#entries.keys()]
  }

  /**
   * Adds a new document (its id must not be indexed yet), embedding it first. Resolves once both sides
   * hold it.
   *
   * @throws DuplicateIdError when the id is indexed already
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when embedding fails; the
   *   index is unchanged
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const notes = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.add({ id: 'a', text: 'Restore a snapshot with restore().' })
   * ```
   */
  add(document: Document, options: EmbedOptions = {}): Promise<void> {
    return this.#serialize(() =>
      this.#add(this.#prepare([document], 'add', 'document', true), options, 'add'),
    )
  }

  /**
   * Adds new documents (ids must not be indexed yet), embedding them first. Resolves once both sides
   * hold them.
   *
   * @throws DuplicateIdError when an id is indexed already or repeats in the batch
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when embedding fails; the
   *   index is unchanged
   */
  addAll(documents: readonly Document[], options: EmbedOptions = {}): Promise<void> {
    return this.#serialize(() => this.#add(this.#prepare(documents, 'addAll'), options, 'addAll'))
  }

  async #add(prepared: readonly Prepared[], options: EmbedOptions, method: string): Promise<void> {
    for (const { id } of prepared) {
      if (this.#entries.has(id)) {
        throw new DuplicateIdError(
          `HybridSearch ${method}: "${id}" is indexed already. Use upsert() to replace it.`,
          { details: { id } },
        )
      }
    }
    await this.#apply(await this.#plan(prepared, options), [])
  }

  /**
   * Adds or replaces documents: the array form of {@link HybridSearch.upsertAll}.
   *
   * @deprecated Pass one document to `upsert`, or the array to {@link HybridSearch.upsertAll} (the
   *   batch name every search index uses). The array form will be removed in the next major release.
   */
  upsert(documents: readonly Document[], options?: EmbedOptions): Promise<void>
  /**
   * Adds a document or replaces the one with the same id. It is embedded only when its embedded text is
   * new or changed; otherwise it is reindexed on the text side only. Both sides show the new version to
   * `search` at once.
   *
   * @throws InvalidInputError when the document is malformed (nothing is embedded then)
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when embedding fails; the
   *   index is unchanged
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const notes = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.upsert({ id: 'a', text: 'first draft' })
   * await notes.upsert({ id: 'a', text: 'final text' })
   * ```
   */
  upsert(document: Document, options?: EmbedOptions): Promise<void>
  upsert(documents: Document | readonly Document[], options: EmbedOptions = {}): Promise<void> {
    return this.#serialize(async () => {
      const prepared = Array.isArray(documents)
        ? this.#prepare(documents, 'upsert')
        : this.#prepare([documents as Document], 'upsert', 'document', true)
      await this.#apply(await this.#plan(prepared, options), [])
    })
  }

  /**
   * Adds or replaces documents. Only documents whose embedded text is new or changed are embedded;
   * the rest are reindexed on the text side only. All documents of the batch become visible to `search`
   * at once, on both sides. Each id may appear once in the batch.
   *
   * @throws InvalidInputError when a document is malformed (nothing is embedded then)
   * @throws DuplicateIdError when an id repeats in the batch
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when embedding fails; the
   *   index is unchanged
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const notes = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.upsertAll([
   *   { id: 'a', text: 'Restore a snapshot with restore().' },
   *   { id: 'b', text: 'A filter answers true or false.' },
   * ])
   * ```
   */
  upsertAll(documents: readonly Document[], options: EmbedOptions = {}): Promise<void> {
    return this.#serialize(async () => {
      const prepared = this.#prepare(documents, 'upsertAll')
      await this.#apply(await this.#plan(prepared, options), [])
    })
  }

  /**
   * Removes documents by id from both sides at once; resolves how many were indexed.
   *
   * @deprecated Pass one id to `remove`, or the array to {@link HybridSearch.removeAll} (the batch name
   *   every search index uses). The array form will be removed in the next major release.
   */
  remove(ids: readonly string[]): Promise<number>
  /**
   * Removes the document with this id from both sides at once, after the updates already running;
   * resolves `false` when it was not indexed.
   *
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const notes = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.add({ id: 'a', text: 'to be removed' })
   * console.log(await notes.remove('a')) // true
   * ```
   */
  remove(id: string): Promise<boolean>
  remove(ids: string | readonly string[]): Promise<number | boolean> {
    if (Array.isArray(ids)) return this.#removeAll(ids, 'remove')
    return this.#serialize(async () => {
      if (typeof ids !== 'string') {
        refuseField(
          'input',
          'id',
          `must be a string (or, deprecated, an array of ids), but got ${describeValue(ids)}`,
          ids,
          { prefix: 'HybridSearch remove: ' },
        )
      }
      if (!this.#entries.has(ids)) return false
      await this.#apply({ prepared: [], vectors: new Map() }, [ids])
      return true
    })
  }

  /**
   * Removes documents by id from both sides at once; resolves how many were indexed (an id given twice
   * counts once).
   *
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const notes = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.addAll([{ id: 'a', text: 'one' }, { id: 'b', text: 'two' }])
   * console.log(await notes.removeAll(['a', 'nope'])) // 1
   * ```
   */
  removeAll(ids: readonly string[]): Promise<number> {
    return this.#removeAll(ids, 'removeAll')
  }

  #removeAll(ids: readonly string[], method: string): Promise<number> {
    return this.#serialize(async () => {
      const present = this.#present(ids, 'ids', method)
      await this.#apply({ prepared: [], vectors: new Map() }, present)
      return present.length
    })
  }

  /**
   * Removes and upserts in one step: for example a new revision of a published document replacing its
   * old passages. What `upsert` needs is embedded first; then the removals and the upserts become
   * visible to `search` together, so a concurrent search sees all of the old passages or all of the new
   * ones. An id both removed and upserted is replaced. Resolves how many of `remove` were indexed.
   *
   * @throws InvalidInputError on malformed documents or ids (nothing is embedded then)
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when embedding fails; the
   *   index is unchanged
   * @example
   * ```ts
   * import { HybridSearch } from '@agent-core/kits/search'
   * const index = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await index.upsertAll([{ id: 'guide#1', text: 'old first part' }, { id: 'guide#2', text: 'old second part' }])
   * await index.update({ remove: ['guide#1', 'guide#2'], upsert: [{ id: 'guide@2#1', text: 'the new revision' }] })
   * ```
   */
  update(
    changes: { readonly upsert?: readonly Document[]; readonly remove?: readonly string[] },
    options: EmbedOptions = {},
  ): Promise<number> {
    return this.#serialize(async () => {
      assertRequest(changes, 'HybridSearch update', '{ upsert: [...], remove: [...] }', 'changes')
      const prepared = this.#prepare(changes.upsert ?? [], 'update', 'changes.upsert')
      const present = this.#present(changes.remove ?? [], 'changes.remove', 'update')
      const upserted = new Set(prepared.map(({ id }) => id))
      await this.#apply(
        await this.#plan(prepared, options),
        present.filter((id) => !upserted.has(id)),
      )
      return present.length
    })
  }

  /** The distinct ids of `ids` that are indexed, after checking that `ids` is an array of strings. */
  #present(ids: unknown, field: string, method: string): string[] {
    assertIdList(ids, `HybridSearch ${method}: `, field)
    return [...new Set(ids)].filter((id) => this.#entries.has(id))
  }

  /**
   * Searches both sides and fuses them: the query is embedded through the embedder (when there is one
   * and the vector side holds anything), then both rankings are read in the same synchronous step.
   *
   * @throws InvalidInputError on a bad request
   * @throws EmbeddingError (or AbortedError, TimeoutError, InvalidOutputError) when the query cannot be
   *   embedded; search again with `mode: 'text'` to fall back to the text side
   */
  async search(request: HybridSearchRequest<Document>): Promise<readonly HybridSearchHit<Document>[]> {
    assertRequest(request, 'HybridSearch search', "{ query: 'words', limit: 10 }")
    const { query, limit, filter, signal } = request
    if (typeof query !== 'string') {
      refuseField('input', 'request.query', `must be a string, but got ${describeValue(query)}`, query, {
        prefix: 'HybridSearch search: ',
      })
    }
    assertLimit(limit)
    assertOptionalFunction(filter, 'request.filter')
    const mode = request.mode ?? 'hybrid'
    if (mode !== 'hybrid' && mode !== 'text' && mode !== 'vector') {
      refuseField(
        'input',
        'request.mode',
        `must be "hybrid", "text" or "vector", but got ${describeValue(mode)}`,
        mode,
        { prefix: 'HybridSearch search: ' },
      )
    }
    const snippetChars = request.snippetChars ?? 240
    assertSafeInteger(snippetChars, 'request.snippetChars', { min: 0 })
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      refuseField(
        'input',
        'request.signal',
        `must be an AbortSignal, but got ${describeValue(signal)}`,
        signal,
        { prefix: 'HybridSearch search: ' },
      )
    }
    if (limit === 0) return []
    const useVectors =
      mode !== 'text' && this.#vectors !== undefined && this.#vectors.size > 0 && query.trim() !== ''
    const useText = mode !== 'vector'
    let queryVector: Float32Array | undefined
    if (useVectors) {
      const vectorQuery = query.replace(/["\u201c\u201d`]/g, ' ').trim() || query
      ;[queryVector] = await this.#embed([vectorQuery], { signal }, 'query')
    }
    // From here on everything is synchronous: both sides are read at the same version.
    const decided = new Map<string, boolean>()
    const keep = filter
      ? (id: string) => {
          let answer = decided.get(id)
          if (answer === undefined) {
            const entry = this.#entries.get(id)!
            answer = keepByFilter(
              filter,
              cloneIndexData(entry.document, entry.json) as Document,
              id,
              'HybridSearch search filter',
            )
            decided.set(id, answer)
          }
          return answer
        }
      : undefined
    const { k, candidates } = this.#fusion
    const window = Math.max(candidates, limit)
    // A lookup lets the text ranking decide: no vector rank can outweigh one text rank step.
    const lookup = this.#fusion.lookups === 'text-first' && looksExact(query)
    const partBoost = useText ? this.#identifierParts(query) : undefined
    const bm25Hits = useText
      ? this.#text.search({
          query,
          limit: window,
          ...(lookup && this.#fusion.lookupRanking === 'flat' ? this.#flatLookup : {}),
          ...(partBoost ? { termBoost: partBoost } : {}),
          ...(keep ? { filter: (_: unknown, id: string) => keep(id) } : {}),
        })
      : []
    const textHits = this.#fusion.verbatim > 0 ? this.#verbatim(query, bm25Hits) : bm25Hits
    const vectorHits =
      queryVector && this.#vectors
        ? this.#vectors.search({
            vector: queryVector,
            limit: window,
            ...(keep ? { filter: (_: unknown, id: string) => keep(id) } : {}),
          })
        : []
    const textWeight = this.#fusion.textWeight * (lookup ? k + window + 1 : 1)
    const support = lookup || this.#documentOf === undefined ? 0 : this.#fusion.documentSupport
    const fused = reciprocalRankFusion(
      [
        { sourceId: 'text', hits: textHits, weight: textWeight },
        { sourceId: 'vector', hits: vectorHits, weight: this.#fusion.vectorWeight },
      ],
      { k, limit: support > 0 ? 2 * window : limit },
    )
    const ranked = support > 0 ? this.#supported(fused, support, limit) : fused
    return ranked.map((result) => {
      const entry = this.#entries.get(result.id)!
      const document = cloneIndexData(entry.document, entry.json) as Document
      let terms: readonly string[] = []
      let match: Readonly<Record<string, readonly string[]>> = {}
      const contributions: HybridContribution[] = result.contributions.map((part) => {
        const hit = part.hit as {
          score: number
          terms?: readonly string[]
          match?: Record<string, readonly string[]>
        }
        if (part.sourceId === 'text') {
          terms = hit.terms ?? []
          match = hit.match ?? {}
        }
        return {
          sourceId: part.sourceId as 'text' | 'vector',
          rank: part.rank,
          weight: part.weight,
          contribution: part.contribution,
          score: hit.score,
        }
      })
      const snippet = snippetChars > 0 ? this.#snippet(document, terms, match, snippetChars) : undefined
      return {
        id: result.id,
        score: result.score,
        document,
        contributions,
        terms,
        match,
        ...(snippet ? { snippet } : {}),
      }
    })
  }

  /**
   * The query's identifier parts (`field` and `group` of `UI.FieldGroup`) that it does not also hold as
   * words of their own, weighted `IDENTIFIER_PART_WEIGHT`: the whole identifier decides, its parts only
   * help (each part of an identifier matches many passages on its own). Built-in analyzers only, whose
   * terms of an identifier are the whole token followed by its parts.
   */
  #identifierParts(query: string): Record<string, number> | undefined {
    if (!BUILT_IN.has(this.analyzer)) return undefined
    const words = new Set<string>()
    const parts = new Set<string>()
    for (const token of this.analyzer.tokenize(query)) {
      const terms = this.analyzer.terms(token)
      if (terms.length > 1) {
        words.add(terms[0]!)
        for (const part of terms.slice(1)) parts.add(part)
      } else for (const term of terms) words.add(term)
    }
    let boost: Record<string, number> | undefined
    for (const part of parts) {
      if (words.has(part)) continue
      boost ??= {}
      boost[part] = IDENTIFIER_PART_WEIGHT
    }
    return boost
  }

  /**
   * The text candidates re-scored by how many of the query words they match they hold as written (see
   * `fusion.verbatim`): each BM25 score times `1 + verbatim * share`, best first, ties by id.
   */
  #verbatim<Hit extends { readonly id: string; readonly score: number; readonly terms: readonly string[] }>(
    query: string,
    hits: readonly Hit[],
  ): readonly Hit[] {
    if (hits.length === 0) return hits
    const analyzer = this.analyzer
    // Each query word (lower-cased token the analyzer keeps) with its first term: the whole word.
    const words = new Map<string, string>()
    for (const token of analyzer.tokenize(query)) {
      const terms = analyzer.terms(token)
      if (terms.length > 0) words.set(token.toLowerCase(), terms[0]!)
    }
    if (words.size === 0) return hits
    const weight = this.#fusion.verbatim
    const rescored = hits.map((hit) => {
      const matched = new Set(hit.terms)
      const missing = new Set(words.keys())
      const document = this.#entries.get(hit.id)!.document as Record<string, unknown>
      for (const field of this.fields) {
        const value = document[field]
        if (value === undefined || value === null) continue
        for (const text of Array.isArray(value) ? (value as string[]) : [String(value)]) {
          for (const token of analyzer.tokenize(text)) {
            if (missing.delete(token.toLowerCase()) && missing.size === 0) break
          }
          if (missing.size === 0) break
        }
        if (missing.size === 0) break
      }
      let held = 0
      let found = 0
      for (const [word, term] of words) {
        if (!missing.has(word)) {
          held++
          found++
        } else if (matched.has(term)) found++
      }
      const share = found === 0 ? 0 : held / found
      return { ...hit, score: hit.score * (1 + weight * share) }
    })
    rescored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return rescored
  }

  /**
   * The fused candidates re-scored by their source documents: each one's score plus `support` times the
   * scores of the (at most 3) best other candidates of its document; best first, ties by id.
   */
  #supported<Hit extends { readonly id: string; readonly score: number }>(
    fused: readonly Hit[],
    support: number,
    limit: number,
  ): Hit[] {
    const documentOf = this.#documentOf!
    const groups = new Map<string, number[]>()
    const keys = fused.map((result) => {
      const entry = this.#entries.get(result.id)!
      const key = groupKey(
        documentOf,
        cloneIndexData(entry.document, entry.json) as Document,
        undefined,
        'HybridSearch documentOf',
      )
      const scores = groups.get(key)
      // Fused results arrive best first, so each group's list is sorted descending.
      if (scores === undefined) groups.set(key, [result.score])
      else if (scores.length < SUPPORTING + 1) scores.push(result.score)
      return key
    })
    const rescored = fused.map((result, i) => {
      const scores = groups.get(keys[i]!)!
      let others = 0
      let counted = 0
      let skippedSelf = false
      for (const score of scores) {
        if (!skippedSelf && score === result.score) {
          skippedSelf = true
          continue
        }
        if (counted === SUPPORTING) break
        others += score
        counted++
      }
      return { ...result, score: result.score + support * others }
    })
    rescored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return rescored.slice(0, limit)
  }

  /**
   * A JSON-serializable snapshot of both indexes and the documents, with one fingerprint. For large
   * indexes use {@link HybridSearch.snapshotChunks}.
   *
   * @throws InvalidStateError when a document holds data JSON cannot carry
   * @throws SearchLimitError when the vectors do not fit the JSON form
   */
  snapshot(): HybridSearchSnapshot {
    this.#assertJsonOnly()
    return {
      version: 1,
      engine: ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      documents: [...this.#entries.values()].map((entry) => ({
        hash: entry.hash,
        document: cloneIndexData(entry.document, true) as JsonData,
      })),
      text: this.#text.snapshot(),
      vectors: this.#vectors ? this.#vectors.snapshot() : null,
    }
  }

  /**
   * Replaces the contents with a snapshot from {@link HybridSearch.snapshot}: all or nothing, checked
   * against this configuration (fingerprint), the text and vector snapshots' own checks, and the
   * documents (ids, hashes, the same ids on every side).
   *
   * @throws InvalidStateError when the snapshot is corrupt, foreign, or an update is in progress
   */
  restore(snapshot: HybridSearchSnapshot): void {
    this.#assertIdle('restore')
    const bad = this.#restoreError
    if (typeof snapshot !== 'object' || snapshot === null)
      throw bad(`expected an object, got ${describeValue(snapshot)}.`, 'snapshot')
    const { version, engine, documents, text, vectors } = snapshot as unknown as Record<string, unknown>
    if (version !== 1)
      throw bad(`its version is ${describeValue(version)}; only 1 is supported.`, 'snapshot.version')
    if (engine !== ENGINE)
      throw bad(`its engine is ${describeValue(engine)}, expected "${ENGINE}".`, 'snapshot.engine')
    this.#checkFingerprint(snapshot.configurationFingerprint)
    if (!Array.isArray(documents)) throw bad('its documents are not an array.', 'snapshot.documents')
    const entries = new Map<string, Entry>()
    for (let i = 0; i < documents.length; i++) this.#restoreEntry(entries, documents[i], i)
    const textSide = this.#newText()
    textSide.restore(text as TextSearchSnapshot)
    let vectorSide: VectorSearch<{ id: string }> | undefined
    if (this.embedder) {
      if (vectors === null || vectors === undefined)
        throw bad('it has no vectors, but this index has an embedder.', 'snapshot.vectors')
      vectorSide = this.#newVectors()!
      vectorSide.restore(vectors as VectorSearchSnapshot)
    } else if (vectors !== null && vectors !== undefined)
      throw bad('it has vectors, but this index has no embedder.', 'snapshot.vectors')
    this.#checkSides(entries, textSide, vectorSide)
    this.#entries = entries
    this.#text = textSide
    this.#vectors = vectorSide
  }

  /**
   * The whole index as a binary stream (a header, the documents as JSON lines, the text index, the
   * vector index's own binary stream, and a CRC-32), in chunks of at most 4 MiB: write it to a file or a
   * BLOB and read it back with {@link HybridSearch.restoreFrom}. Its size is not bounded by the longest
   * JavaScript string, except the text index's serialization (about 512 MB).
   *
   * @throws InvalidStateError (while iterating) when the index changes before the last chunk
   */
  *snapshotChunks(): Generator<Uint8Array, void, undefined> {
    this.#assertJsonOnly()
    const entries = this.#entries
    const text = this.#text
    const vectors = this.#vectors
    const writer = new RecordWriter()
    const changed = () => {
      if (
        this.#entries !== entries ||
        this.#text !== text ||
        this.#vectors !== vectors ||
        this.#pending > 0
      ) {
        throw new InvalidStateError(
          'HybridSearch snapshotChunks: the index changed while its snapshot was being read. Take the snapshot when no update is running.',
          { details: { field: 'index' } },
        )
      }
    }
    changed()
    const count = entries.size
    yield writer.start()
    yield writer.json(RECORD.HEADER, {
      format: 'agent-core/hybrid-search',
      version: 1,
      engine: ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      count,
      vectors: vectors !== undefined,
    })
    const lines = [...entries].map(([, entry]) => [entry.hash, entry.document])
    for (const chunk of writer.lines(lines)) {
      changed()
      yield chunk
    }
    yield writer.json(RECORD.PART, text.snapshot())
    if (vectors) {
      for (const bytes of vectors.snapshotChunks()) {
        changed()
        yield writer.record(RECORD.RAW, bytes)
      }
    }
    changed()
    yield writer.end()
  }

  /**
   * Replaces the contents with a binary snapshot from {@link HybridSearch.snapshotChunks}, read from an
   * iterable or async iterable of byte chunks. All or nothing, with the same checks as
   * {@link HybridSearch.restore} plus the stream's checksum.
   *
   * @throws InvalidStateError when the stream is corrupt or foreign, or an update is in progress
   */
  async restoreFrom(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    this.#assertIdle('restore')
    if (!isByteSource(source)) {
      refuseField(
        'input',
        'source',
        `must be an iterable or async iterable of byte chunks, but got ${describeValue(source)}`,
        source,
        { prefix: 'HybridSearch restoreFrom: ' },
      )
    }
    const bad = this.#restoreError
    const entries = new Map<string, Entry>()
    const textSide = this.#newText()
    const vectorSide = this.#newVectors()
    try {
      const reader = new RecordReader(source)
      await reader.start()
      const header = await reader.next()
      const fields = (header?.type === RECORD.HEADER ? header.value : undefined) as
        | Record<string, unknown>
        | undefined
      if (fields?.format !== 'agent-core/hybrid-search' || fields.version !== 1)
        throw new CorruptStream('it has no hybrid-search header')
      this.#checkFingerprint(fields.configurationFingerprint)
      let record = await reader.next()
      for (; record?.type === RECORD.LINES; record = await reader.next()) {
        for (const line of record.lines) {
          if (!Array.isArray(line) || line.length !== 2)
            throw new CorruptStream('a document line is malformed')
          this.#restoreEntry(entries, { hash: line[0], document: line[1] }, entries.size)
        }
      }
      if (entries.size !== fields.count)
        throw new CorruptStream(`it holds ${entries.size} documents, not ${String(fields.count)}`)
      if (record?.type !== RECORD.PART) throw new CorruptStream('it has no text index')
      textSide.restore(record.value as TextSearchSnapshot)
      // The vector index's own stream follows in RAW records, up to the END record.
      let ended = false
      async function* vectorBytes(): AsyncGenerator<Uint8Array> {
        for (let next = await reader.next(); next !== undefined; next = await reader.next()) {
          if (next.type !== RECORD.RAW)
            throw new CorruptStream('it has an unexpected record among the vectors')
          yield next.bytes
        }
        ended = true
      }
      if (vectorSide) await vectorSide.restoreFrom(vectorBytes())
      else if ((await reader.next()) === undefined) ended = true
      if (!ended) throw new CorruptStream('it has bytes after the vectors')
    } catch (error) {
      if (error instanceof CorruptStream)
        throw bad(`the stream is corrupt: ${error.message}. Rebuild the index from the documents.`, 'source')
      throw error
    }
    this.#assertIdle('restore')
    this.#checkSides(entries, textSide, vectorSide)
    this.#entries = entries
    this.#text = textSide
    this.#vectors = vectorSide
  }

  #newText(): TextSearch<Document> {
    return new TextSearch<Document>({
      indexRevision: this.indexRevision,
      fields: this.fields,
      idField: this.idField,
      analyzer: this.analyzer,
      searchOptions: Object.keys(this.#boost).length > 0 ? { boost: this.#boost as never } : {},
    })
  }

  #newVectors(): VectorSearch<{ id: string }> | undefined {
    const embedder = this.embedder
    return embedder
      ? new VectorSearch<{ id: string }>({ identity: embedder.identity, dimensions: embedder.dimensions })
      : undefined
  }

  #serialize<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++
    const result = this.#tail.then(task).finally(() => {
      this.#pending--
    })
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    )
    return result
  }

  #assertIdle(operation: string): void {
    if (this.#pending > 0) {
      throw new InvalidStateError(
        `HybridSearch ${operation}: an update is still running. Await the changes (add, upsert, remove, update) before restoring.`,
        { details: { field: 'index' } },
      )
    }
  }

  /**
   * Checks every document of a batch before anything is embedded. `single` names the one document of
   * `add(document)` or `upsert(document)` `field` itself (`document`, not `documents[0]`).
   */
  #prepare(documents: readonly Document[], method: string, field = 'documents', single = false): Prepared[] {
    if (!Array.isArray(documents)) {
      refuseField(
        'input',
        field,
        `must be an array of documents, but got ${describeValue(documents)}`,
        documents,
        { prefix: `HybridSearch ${method}: ` },
      )
    }
    const seen = new Set<string>()
    const out: Prepared[] = []
    for (let i = 0; i < documents.length; i++) {
      const where = single ? field : `${field}[${i}]`
      const id = readDocumentId(documents[i], this.idField, where)
      if (seen.has(id)) {
        throw new DuplicateIdError(`HybridSearch ${method}: the id "${id}" is repeated in this batch.`, {
          details: { id },
        })
      }
      seen.add(id)
      const source = documents[i] as Record<string, unknown>
      for (const field of this.fields) {
        const value = source[field]
        const ok =
          value === undefined ||
          value === null ||
          typeof value === 'string' ||
          typeof value === 'boolean' ||
          (typeof value === 'number' && Number.isFinite(value)) ||
          (Array.isArray(value) && value.every((item) => typeof item === 'string'))
        if (!ok) {
          refuseField(
            'input',
            `${where}.${field}`,
            `must be a string, an array of strings, a finite number or a boolean (it is a text field), but got ${describeValue(value)}`,
            value,
            { prefix: `HybridSearch ${method}: ${where} "${id}": ` },
          )
        }
      }
      const copy = copyIndexData(documents[i], `HybridSearch ${where} "${id}"`, where)
      const embedText: unknown = this.#embedText(copy.value as Document)
      if (typeof embedText !== 'string') {
        throw new InvalidOutputError(
          `HybridSearch embedText must return a string, but returned ${describeValue(embedText)} for "${id}".`,
          {
            details: { hook: 'embedText', received: describeValue(embedText) },
          },
        )
      }
      const hash = embedText.trim() === '' ? null : createHash('sha256').update(embedText).digest('base64url')
      out.push({ id, entry: { document: copy.value, json: copy.json, hash }, embedText })
    }
    return out
  }

  /** Embeds what changed (documents whose hash is new), in batches. */
  async #plan(prepared: readonly Prepared[], options: EmbedOptions): Promise<Plan> {
    const vectors = new Map<string, Float32Array>()
    if (!this.embedder) return { prepared, vectors }
    const wanted = prepared.filter(
      ({ id, entry }) =>
        entry.hash !== null && (this.#entries.get(id)?.hash !== entry.hash || !this.#vectors?.has(id)),
    )
    const batch = this.embedder.maxBatch ?? 64
    for (let from = 0; from < wanted.length; from += batch) {
      const part = wanted.slice(from, from + batch)
      const result = await this.#embed(
        part.map((item) => item.embedText),
        options,
        'documents',
      )
      for (let i = 0; i < part.length; i++) vectors.set(part[i]!.id, result[i]!)
    }
    return { prepared, vectors }
  }

  /** Calls the embedder and checks its answer; every failure is a typed error. */
  async #embed(texts: string[], options: EmbedOptions, what: string): Promise<Float32Array[]> {
    const embedder = this.embedder!
    const signal = (options as { signal?: unknown } | undefined)?.signal
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      refuseField(
        'input',
        'options.signal',
        `must be an AbortSignal, but got ${describeValue(signal)}`,
        signal,
        { prefix: 'HybridSearch: ' },
      )
    }
    if (signal) throwIfAborted(signal, `embed ${what}`)
    let answer: unknown
    try {
      answer = await embedder.embed(texts, signal ? { signal } : {})
    } catch (error) {
      if (AgentCoreError.isInstance(error)) throw error
      throw new EmbeddingError(
        `The embedder "${embedder.identity}" failed on ${texts.length} ${what === 'query' ? 'query' : 'texts'}: ${(error as Error)?.message ?? String(error)}. Nothing was changed.`,
        { cause: error, details: { identity: embedder.identity, texts: texts.length } },
      )
    }
    if (signal) throwIfAborted(signal, `after embedding ${what}`)
    if (!Array.isArray(answer) || answer.length !== texts.length) {
      throw new InvalidOutputError(
        `The embedder "${embedder.identity}" returned ${describeValue(answer)} for ${texts.length} texts; it must return one vector per text, in order.`,
        { details: { hook: 'embedder.embed', received: describeValue(answer) } },
      )
    }
    return answer.map((vector, i) => {
      const out = new Float32Array(embedder.dimensions)
      try {
        writeNormalized(vector, embedder.dimensions, out, 0, `vector ${i}`)
      } catch (error) {
        throw new InvalidOutputError(
          `The embedder "${embedder.identity}" returned a bad vector: ${(error as Error).message}`,
          {
            cause: error,
            details: { hook: 'embedder.embed', field: `[${i}]`, received: describeValue(vector) },
          },
        )
      }
      return out
    })
  }

  /**
   * Applies a plan and removals to both sides in one synchronous step (restoring the old versions if
   * the text side refuses a new one).
   */
  async #apply(plan: Plan, removals: readonly string[]): Promise<void> {
    const { prepared, vectors } = plan
    const replaced = prepared.filter(({ id }) => this.#entries.has(id)).map(({ id }) => id)
    const old = [...replaced, ...removals].map((id) => [id, this.#entries.get(id)!] as const)
    const purge = this.#text.removeAll([...replaced, ...removals])
    try {
      this.#text.addAll(prepared.map(({ entry }) => entry.document as Document))
    } catch (error) {
      // The analyzer threw on a new version: put the old versions back, so that nothing changed.
      this.#text.addAll(old.map(([, entry]) => entry.document as Document))
      await purge.catch(() => {})
      throw error
    }
    if (this.#vectors) {
      const upserts = [...vectors].map(([id, vector]) => ({ document: { id }, vector }))
      this.#vectors.upsertAll(upserts)
      for (const { id, entry } of prepared) if (entry.hash === null) this.#vectors.remove(id)
      for (const id of removals) this.#vectors.remove(id)
    }
    for (const id of removals) this.#entries.delete(id)
    for (const { id, entry } of prepared) this.#entries.set(id, entry)
    await purge
  }

  #snippet(
    document: Document,
    terms: readonly string[],
    match: Readonly<Record<string, readonly string[]>>,
    size: number,
  ): HybridSnippet | undefined {
    const value = (document as Record<string, unknown>)[this.#snippetField]
    const text = Array.isArray(value)
      ? value.join(' / ')
      : value === undefined || value === null
        ? ''
        : String(value)
    if (text === '') return undefined
    const matched = new Set<string>(terms)
    for (const term of Object.keys(match)) matched.add(term)
    const parts = snippetOf(text, matched, this.analyzer, size)
    return { field: this.#snippetField, ...parts, highlights: parts.highlights as readonly Range[] }
  }

  readonly #restoreError = (problem: string, field: string) =>
    new InvalidStateError(`Cannot restore this HybridSearch snapshot: ${problem}`, {
      details: { indexRevision: this.indexRevision, field },
    })

  #checkFingerprint(fingerprint: unknown): void {
    if (fingerprint !== this.configurationFingerprint) {
      throw new InvalidStateError(
        `Cannot restore this HybridSearch snapshot: it was taken with another configuration (fingerprint ${describeValue(fingerprint)}, this index has "${this.configurationFingerprint}"): the indexRevision, fields, boosts, analyzer or embedder differ. Rebuild the index from the documents.`,
        { details: { field: 'snapshot.configurationFingerprint', received: describeValue(fingerprint) } },
      )
    }
  }

  #restoreEntry(entries: Map<string, Entry>, item: unknown, i: number): void {
    const where = `snapshot.documents[${i}]`
    const { hash, document } = (item ?? {}) as { hash?: unknown; document?: unknown }
    let id: string
    let copy: { value: unknown; json: boolean }
    try {
      id = readDocumentId(document, this.idField, `${where}.document`)
      copy = copyIndexData(document, `snapshot document "${id}"`, `${where}.document`)
    } catch (error) {
      throw this.#restoreError(`document ${i} is not valid (${(error as Error).message})`, where)
    }
    if (hash !== null && (typeof hash !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(hash)))
      throw this.#restoreError(`document "${id}" has a malformed hash.`, `${where}.hash`)
    if (entries.has(id)) throw this.#restoreError(`the id "${id}" occurs twice.`, where)
    entries.set(id, { document: copy.value, json: copy.json, hash })
  }

  /** Both sides hold exactly the documents: every one in the text index, the embedded ones in the vector index. */
  #checkSides(
    entries: Map<string, Entry>,
    text: TextSearch<Document>,
    vectors: VectorSearch<{ id: string }> | undefined,
  ): void {
    if (text.size !== entries.size)
      throw this.#restoreError('its text index does not hold the same documents.', 'snapshot.text')
    let embedded = 0
    for (const [id, entry] of entries) {
      if (!text.has(id)) throw this.#restoreError(`its text index lacks "${id}".`, 'snapshot.text')
      if (vectors && entry.hash !== null) {
        if (!vectors.has(id)) throw this.#restoreError(`its vector index lacks "${id}".`, 'snapshot.vectors')
        embedded++
      }
    }
    if (vectors && vectors.size !== embedded)
      throw this.#restoreError('its vector index holds documents it should not.', 'snapshot.vectors')
  }

  #assertJsonOnly(): void {
    for (const [id, entry] of this.#entries) {
      if (!entry.json)
        throw notJsonError('HybridSearch', firstNonJsonPath(entry.document, 'document') ?? 'document', id)
    }
  }
}

function defaultEmbedText(document: Record<string, unknown>, fields: readonly string[]): string {
  const parts: string[] = []
  for (const field of fields) {
    const value = document[field]
    if (value === undefined || value === null) continue
    const text = Array.isArray(value) ? value.join(' / ') : String(value)
    if (text.trim() !== '') parts.push(text)
  }
  return parts.join('\n\n')
}
