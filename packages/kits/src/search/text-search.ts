import {
  assertNonEmptyString,
  assertNotThenable,
  DuplicateIdError,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  refuseField,
} from '@agent-core/core'
import MiniSearch, {
  type Options as MiniSearchOptions,
  type SearchOptions,
  type SearchResult,
} from 'minisearch'
import { analyzerKey } from './internal/analyzers.js'
import {
  assertFieldList,
  assertIdList,
  assertLimit,
  assertOptionalFunction,
  assertRequest,
  keepByFilter,
  readDocumentId,
} from './internal/checks.js'
import { configurationFingerprint } from './internal/fingerprint.js'
import { cloneIndexData, copyIndexData, firstNonJsonPath, notJsonError } from './internal/index-data.js'
import { hasQueryOptions, readQueryOptions } from './internal/text-query-options.js'
import {
  CorruptIndex,
  checksumOf,
  loadCheckedIndex,
  purgeRemoved,
  type SerializedMiniSearch,
} from './internal/text-snapshot.js'
import type { TextSearchHit } from './search-hit.js'
import type { TextAnalyzer } from './text-analyzer.js'
import type { TextQueryOptions } from './text-query-options.js'

/** The engine named in {@link TextSearchSnapshot}: minisearch 7's JSON serialization. */
const TEXT_ENGINE = 'minisearch-7'

/**
 * Options of {@link TextSearch}.
 *
 * @example
 * ```ts
 * import { TextSearch, type TextSearchOptions } from '@agent-core/kits/search'
 * interface Page { id: string; title: string; body: string; url: string }
 * const options: TextSearchOptions<Page> = {
 *   indexRevision: 'pages-v1',
 *   fields: ['title', 'body'],
 *   storedFields: ['title', 'url'],
 *   searchOptions: { boost: { title: 2 }, prefix: true },
 * }
 * const pages = new TextSearch(options)
 * ```
 */
export interface TextSearchOptions<Document extends object> {
  /**
   * The App's revision of how documents are indexed. It is part of the snapshot fingerprint; change it
   * whenever `tokenize` or `processTerm` change (functions cannot be fingerprinted) or the meaning of a
   * field changes, so that old snapshots are refused instead of silently mismatching.
   */
  readonly indexRevision: string
  /** The fields whose text is indexed: strings, finite numbers, booleans or arrays of strings. */
  readonly fields: readonly Extract<keyof Document, string>[]
  /** The fields copied into the index and returned as each hit's `document` (plain data). Default none. */
  readonly storedFields?: readonly Extract<keyof Document, string>[]
  /** The field holding the document's id, a non-empty string. Default `"id"`. */
  readonly idField?: Extract<keyof Document, string>
  /**
   * A named, versioned analysis of text into terms, for documents and queries alike, such as
   * {@link englishAnalyzer} (stop words, stemming, identifiers findable whole and by parts). Its name and
   * version are part of the snapshot fingerprint. Without it (and without `tokenize`/`processTerm`) the
   * index keeps minisearch's defaults: split on spaces and punctuation, lower-case.
   */
  readonly analyzer?: TextAnalyzer
  /**
   * Splits a field's text into terms (minisearch's default splits on spaces and punctuation). Prefer an
   * `analyzer`; a bare function cannot be fingerprinted, so change `indexRevision` when it changes.
   */
  readonly tokenize?: (text: string, fieldName?: string) => string[]
  /** Normalizes a term; return a falsy value to drop it (minisearch's default lower-cases). */
  readonly processTerm?: (term: string, fieldName?: string) => string | string[] | null | undefined | false
  /** Query options every search starts from; a request's own options override them. */
  readonly searchOptions?: TextQueryOptions<Extract<keyof Document, string>>
}

/**
 * A request to {@link TextSearch.search}: the query, the most hits wanted, an optional filter, and any
 * minisearch query options (prefix, fuzzy, boost, combineWith, ...) for this request only.
 *
 * @example
 * ```ts
 * import type { TextSearchRequest } from '@agent-core/kits/search'
 * const request: TextSearchRequest<{ id: string; title: string; lang: string }> = {
 *   query: 'vector search',
 *   limit: 10,
 *   prefix: true,
 *   filter: (document) => document.lang === 'en',
 * }
 * ```
 */
export interface TextSearchRequest<Document extends object>
  extends TextQueryOptions<Extract<keyof Document, string>> {
  /** Free text; it is tokenized and processed like the indexed fields. */
  readonly query: string
  /** The most hits to return: a safe integer of at least 0 (0 returns no hits). */
  readonly limit: number
  /**
   * Keeps a hit when it returns `true`. Must return a boolean synchronously. Receives its own copy of the
   * stored fields; it is called best-first and only until `limit` hits are found.
   */
  readonly filter?: (document: Partial<Document>, id: string) => boolean
}

/**
 * What {@link TextSearch.snapshot} returns; JSON-serializable.
 *
 * @example
 * ```ts
 * import { TextSearch, type TextSearchSnapshot } from '@agent-core/kits/search'
 * const search = new TextSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
 * const snapshot: TextSearchSnapshot = JSON.parse(JSON.stringify(search.snapshot()))
 * search.restore(snapshot)
 * ```
 */
export interface TextSearchSnapshot {
  /** The snapshot format; only version 2 is accepted. */
  readonly version: 2
  /** The engine and serialization the index was written with. */
  readonly engine: string
  /** Fingerprint of indexRevision, idField, fields, storedFields and the analyzer's name and version. */
  readonly configurationFingerprint: string
  /** The index in the engine's JSON serialization, without any removed document. */
  readonly serializedIndex: string
  /**
   * `crc32:` and eight hex digits: the CRC-32 of `serializedIndex` (UTF-8), checked on restore. Snapshots
   * written before checksums existed have none and are still accepted after full structural validation.
   */
  readonly checksum?: string
}

/** Batch size of the vacuum run after removals: large, so one removal yields to the event loop rarely. */
const VACUUM = { batchSize: 50_000, batchWait: 1 }

/**
 * Full-text search with BM25 ranking, built on minisearch.
 *
 * Only the declared `fields` (indexed) and `storedFields` (returned) are copied out of a document, so
 * the caller's objects, filter callbacks and returned hits never share nested data with the index.
 * Hits are ordered by score, then by id (ascending UTF-16 code units) among equal scores. A snapshot
 * carries a fingerprint of the configuration, and restore refuses one taken with another configuration.
 *
 * @example
 * ```ts
 * import { TextSearch } from '@agent-core/kits/search'
 * const notes = new TextSearch<{ id: string; title: string; body: string }>({
 *   indexRevision: 'notes-v1',
 *   fields: ['title', 'body'],
 *   storedFields: ['title'],
 * })
 * notes.addAll([
 *   { id: 'n1', title: 'Groceries', body: 'milk, eggs and bread' },
 *   { id: 'n2', title: 'Garden', body: 'water the tomatoes' },
 * ])
 * const [best] = notes.search({ query: 'tomatoes', limit: 5 })
 * console.log(best?.id, best?.document.title) // "n2" "Garden"
 * ```
 */
export class TextSearch<Document extends object = Record<string, unknown>> {
  /** The App's index revision, part of the fingerprint. */
  readonly indexRevision: string
  /** The indexed fields. */
  readonly fields: readonly Extract<keyof Document, string>[]
  /** The stored (returned) fields. */
  readonly storedFields: readonly Extract<keyof Document, string>[]
  /** The id field. */
  readonly idField: Extract<keyof Document, string>
  /** The analyzer, when one was configured. */
  readonly analyzer: TextAnalyzer | undefined
  /** Fingerprint of the configuration (see {@link TextSearchSnapshot}), as written into snapshots. */
  readonly configurationFingerprint: string

  readonly #engineOptions: MiniSearchOptions<Record<string, unknown>>
  readonly #fieldSet: ReadonlySet<string>
  readonly #defaults: SearchOptions
  #index: MiniSearch<Record<string, unknown>>
  /** Ids whose stored fields hold data JSON cannot carry (Date, Map, ...): a snapshot is refused then. */
  #nonJson = new Set<string>()
  /** How many searches are inside a filter callback right now (changes are refused then). */
  #callbackDepth = 0

  constructor(options: TextSearchOptions<Document>) {
    assertRequest(options, 'new TextSearch', "{ indexRevision: 'v1', fields: ['title', 'body'] }", 'options')
    assertNonEmptyString(options.indexRevision, 'options.indexRevision')
    const fields = assertFieldList(options.fields, 'options.fields', {
      nonEmpty: true,
    }) as Extract<keyof Document, string>[]
    const storedFields = assertFieldList(options.storedFields ?? [], 'options.storedFields', {
      nonEmpty: false,
    }) as Extract<keyof Document, string>[]
    const idField = (options.idField ?? 'id') as Extract<keyof Document, string>
    assertNonEmptyString(idField, 'options.idField')
    assertOptionalFunction(options.tokenize, 'options.tokenize')
    assertOptionalFunction(options.processTerm, 'options.processTerm')
    const analyzer = readAnalyzer(options.analyzer, options)
    this.analyzer = analyzer
    this.indexRevision = options.indexRevision
    this.fields = Object.freeze(fields)
    this.storedFields = Object.freeze(storedFields)
    this.idField = idField
    this.#fieldSet = new Set(fields)
    const defaults = options.searchOptions ?? {}
    assertRequest(defaults, 'new TextSearch', '{ prefix: true }', 'options.searchOptions')
    this.#defaults = readQueryOptions(defaults, this.#fieldSet, {}, 'options.searchOptions')
    this.configurationFingerprint = configurationFingerprint('text-search', {
      engine: TEXT_ENGINE,
      indexRevision: this.indexRevision,
      idField,
      fields,
      storedFields,
      // Only when configured, so that the fingerprints of indexes without an analyzer stay as they were.
      ...(analyzer ? { analyzer: analyzerKey(analyzer) } : {}),
    })
    this.#engineOptions = {
      fields,
      storeFields: storedFields,
      idField,
      stringifyField: stringifyIndexedValue,
      autoVacuum: false,
      searchOptions: this.#defaults,
      ...(options.tokenize ? { tokenize: checkedTokenize(options.tokenize) } : {}),
      ...(options.processTerm ? { processTerm: checkedProcessTerm(options.processTerm) } : {}),
      ...(analyzer
        ? {
            tokenize: analyzer.tokenize as (text: string) => string[],
            processTerm: analyzer.terms as (term: string) => string[],
          }
        : {}),
    }
    this.#index = new MiniSearch(this.#engineOptions)
  }

  /** How many documents the index holds. */
  get size(): number {
    return this.#index.documentCount
  }

  /** True when a document with this id is indexed. */
  has(id: string): boolean {
    return this.#index.has(id)
  }

  /** A copy of the stored fields of the document with this id, or `undefined` when it is not indexed. */
  get(id: string): Partial<Document> | undefined {
    if (!this.#index.has(id)) return undefined
    return this.#copyStored(id, this.#index.getStoredFields(id))
  }

  /**
   * Indexes one document; its id must be new (see {@link TextSearch.upsert} to replace).
   * @throws DuplicateIdError when a document with the same id is indexed
   * @throws InvalidInputError when the id is missing or a field holds something else than text or data
   */
  add(document: Document): void {
    this.addAll([document])
  }

  /**
   * Indexes many documents, all or nothing: every document is checked first, and ids must be new and
   * distinct.
   */
  addAll(documents: readonly Document[]): void {
    this.#assertNotInCallback('add')
    if (!Array.isArray(documents)) {
      refuseField(
        'input',
        'documents',
        `must be an array of documents, but got ${describeValue(documents)}`,
        documents,
        { prefix: 'TextSearch addAll: ' },
      )
    }
    const single = documents.length === 1
    const projected: Projected[] = new Array(documents.length)
    const batch = new Set<string>()
    for (let i = 0; i < documents.length; i++) {
      const where = single ? 'document' : `documents[${i}]`
      const id = readDocumentId(documents[i], this.idField, where)
      if (batch.has(id) || this.#index.has(id)) {
        throw new DuplicateIdError(
          `TextSearch ${single ? 'add' : 'addAll'}: ${where} has the id "${id}", which is ${batch.has(id) ? 'repeated in this batch' : 'already indexed'}. Use upsert() to update a document.`,
          { details: { id } },
        )
      }
      batch.add(id)
      projected[i] = this.#project(documents[i] as Record<string, unknown>, id, where)
    }
    let added = 0
    try {
      for (const entry of projected) {
        added++
        this.#index.add(entry.fields)
      }
    } catch (error) {
      // A tokenize or processTerm hook threw midway: undo this batch (including the document that was
      // being added) so that it stays all or nothing.
      const ids = projected.slice(0, added).map((entry) => entry.id)
      this.#index.discardAll(ids.filter((id) => this.#index.has(id)))
      this.#index.vacuum(VACUUM).catch(() => {})
      throw error
    }
    for (const entry of projected) if (!entry.json) this.#nonJson.add(entry.id)
  }

  /**
   * Indexes a document, replacing the indexed one that has the same id, and waits until the old
   * version's terms are purged from the index (as {@link TextSearch.remove} does). The new version is
   * what searches see as soon as `upsert` returns its promise; the promise resolves once the purge is
   * done. The new document is checked before the old one is touched; only when a `tokenize` or
   * `processTerm` hook throws while indexing it is the document gone afterwards.
   *
   * @throws InvalidInputError (as a rejection) when the id is missing or a field holds something else
   *   than text or data; the index is unchanged
   * @example
   * ```ts
   * import { TextSearch } from '@agent-core/kits/search'
   * const notes = new TextSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.upsert({ id: 'n1', text: 'first draft' })
   * await notes.upsert({ id: 'n1', text: 'final text' })
   * console.log(notes.size) // 1
   * ```
   */
  async upsert(document: Document): Promise<void> {
    await this.#upsert([document], 'upsert', true)
  }

  /**
   * {@link TextSearch.upsert} for many documents, with one purge: every document is checked before any
   * is touched, and each id may appear once in the batch.
   *
   * @throws DuplicateIdError (as a rejection) when an id repeats in the batch
   * @example
   * ```ts
   * import { TextSearch } from '@agent-core/kits/search'
   * const notes = new TextSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * await notes.upsertAll([
   *   { id: 'n1', text: 'milk and eggs' },
   *   { id: 'n2', text: 'water the tomatoes' },
   * ])
   * ```
   */
  async upsertAll(documents: readonly Document[]): Promise<void> {
    await this.#upsert(documents, 'upsertAll', false)
  }

  /**
   * Replaces the indexed document that has the same id (or adds it), and waits until the old version's
   * terms are purged from the index.
   *
   * @deprecated Use {@link TextSearch.upsert}, the same call under the name every search index uses.
   *   `replace` will be removed in the next major release.
   */
  async replace(document: Document): Promise<void> {
    await this.#upsert([document], 'replace', true)
  }

  /** Checks a batch, swaps it in for the indexed versions, then waits for the purge of the old ones. */
  async #upsert(documents: readonly Document[], method: string, single: boolean): Promise<void> {
    this.#assertNotInCallback(method === 'replace' ? 'replace' : 'upsert')
    if (!Array.isArray(documents)) {
      refuseField(
        'input',
        'documents',
        `must be an array of documents, but got ${describeValue(documents)}`,
        documents,
        { prefix: `TextSearch ${method}: ` },
      )
    }
    const projected: Projected[] = new Array(documents.length)
    const batch = new Set<string>()
    for (let i = 0; i < documents.length; i++) {
      const where = single ? 'document' : `documents[${i}]`
      const id = readDocumentId(documents[i], this.idField, where)
      if (batch.has(id)) {
        throw new DuplicateIdError(
          `TextSearch ${method}: ${where} has the id "${id}", which is repeated in this batch. Give each id once.`,
          { details: { id } },
        )
      }
      batch.add(id)
      projected[i] = this.#project(documents[i] as Record<string, unknown>, id, where)
    }
    const present = projected.filter(({ id }) => this.#index.has(id)).map(({ id }) => id)
    if (present.length > 0) this.#index.discardAll(present)
    for (const { id } of projected) this.#nonJson.delete(id)
    try {
      for (const entry of projected) this.#index.add(entry.fields)
    } catch (error) {
      // A tokenize or processTerm hook threw: drop the half-added new versions too.
      const added = projected.filter(({ id }) => this.#index.has(id)).map(({ id }) => id)
      if (added.length > 0) this.#index.discardAll(added)
      this.#index.vacuum(VACUUM).catch(() => {})
      throw error
    }
    for (const entry of projected) if (!entry.json) this.#nonJson.add(entry.id)
    await this.#index.vacuum(VACUUM)
  }

  /**
   * Removes the document with this id and waits until its terms are purged from the index (minisearch's
   * vacuum), so the next snapshot holds nothing of it. Searches stop finding it as soon as `remove`
   * returns its promise. Resolves `false` when it was not indexed.
   */
  async remove(id: string): Promise<boolean> {
    return (await this.#remove([id], 'remove', true)) === 1
  }

  /**
   * Removes several documents with one purge of the index; resolves how many were indexed (an id given
   * twice counts once). Like {@link TextSearch.remove}, the documents are gone from searches as soon as
   * the call returns, and the promise resolves once their terms are purged.
   *
   * @example
   * ```ts
   * import { TextSearch } from '@agent-core/kits/search'
   * const notes = new TextSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'] })
   * notes.addAll([{ id: 'n1', text: 'milk' }, { id: 'n2', text: 'eggs' }])
   * console.log(await notes.removeAll(['n1', 'nope'])) // 1
   * ```
   */
  async removeAll(ids: readonly string[]): Promise<number> {
    return this.#remove(ids, 'removeAll', false)
  }

  /**
   * Removes several documents with one purge of the index; resolves how many were indexed.
   *
   * @deprecated Use {@link TextSearch.removeAll}, the same call under the name every search index uses.
   *   `removeMany` will be removed in the next major release.
   */
  async removeMany(ids: readonly string[]): Promise<number> {
    return this.#remove(ids, 'removeMany', Array.isArray(ids) && ids.length === 1)
  }

  async #remove(ids: readonly string[], method: string, single: boolean): Promise<number> {
    assertIdList(ids, `TextSearch ${method}: `, 'ids', single)
    this.#assertNotInCallback('remove')
    const present = [...new Set(ids)].filter((id) => this.#index.has(id))
    if (present.length === 0) return 0
    for (const id of present) this.#nonJson.delete(id)
    this.#index.discardAll(present)
    await this.#index.vacuum(VACUUM)
    return present.length
  }

  /**
   * The best `limit` hits for `query`, by BM25 score; equal scores are ordered by id.
   *
   * @throws InvalidInputError on a bad query, limit, option or filter
   * @throws RejectedThenableError when `filter` returns a Promise
   * @throws InvalidOutputError when `filter` returns a non-boolean
   */
  search(request: TextSearchRequest<Document>): readonly TextSearchHit<Document>[] {
    assertRequest(request, 'TextSearch search', "{ query: 'words', limit: 10 }")
    const { query, limit, filter } = request
    if (typeof query !== 'string') {
      refuseField('input', 'request.query', `must be a string, but got ${describeValue(query)}`, query, {
        prefix: 'TextSearch search: ',
      })
    }
    assertLimit(limit)
    assertOptionalFunction(filter, 'request.filter')
    const options = hasQueryOptions(request as Record<string, unknown>)
      ? readQueryOptions(request as Record<string, unknown>, this.#fieldSet, this.#defaults, 'request')
      : undefined
    if (limit === 0) return []
    const results = this.#index.search(query, options)
    const hits: TextSearchHit<Document>[] = []
    this.#callbackDepth++
    try {
      // Results arrive sorted by score; each run of equal scores is put in id order before it is used.
      for (let start = 0; start < results.length && hits.length < limit; ) {
        const score = results[start]!.score
        let end = start + 1
        while (end < results.length && results[end]!.score === score) end++
        const run = end - start > 1 ? results.slice(start, end).sort(byId) : [results[start]!]
        for (const result of run) {
          if (hits.length === limit) break
          const id = result.id as string
          const stored = this.#index.getStoredFields(id)
          if (filter && !keepByFilter(filter, this.#copyStored(id, stored), id, 'TextSearch search filter'))
            continue
          hits.push({
            id,
            score,
            document: this.#copyStored(id, stored),
            terms: result.terms,
            match: result.match,
          })
        }
        start = end
      }
    } finally {
      this.#callbackDepth--
    }
    return hits
  }

  /**
   * A JSON-serializable snapshot of the index. Removed documents are never in it, even while a removal's
   * purge is still running. Equal indexes give equal snapshots: restoring one and taking a snapshot again
   * reproduces the same text.
   */
  snapshot(): TextSearchSnapshot {
    this.#assertJsonOnly()
    const plain = this.#index.toJSON() as unknown as SerializedMiniSearch
    if ((plain.dirtCount ?? 0) > 0) purgeRemoved(plain)
    // Terms in code-unit order, so that equal indexes give equal text (the radix tree's own order
    // depends on insertion history, and a restored tree iterates in reverse).
    plain.index.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    let serializedIndex: string
    try {
      serializedIndex = JSON.stringify(plain)
    } catch (error) {
      throw new InvalidStateError(
        `TextSearch snapshot: the index is too large for one JSON string (${(error as Error).message}). ` +
          'Split the corpus over several indexes, or store fewer fields.',
        { cause: error, details: { documents: this.size } },
      )
    }
    return {
      version: 2,
      engine: TEXT_ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      serializedIndex,
      checksum: checksumOf(serializedIndex),
    }
  }

  /**
   * Replaces the contents with a snapshot. All or nothing: a rejected snapshot leaves the index unchanged.
   *
   * Restoring checks the checksum (when the snapshot has one) and every structural invariant of the
   * serialized index (counts, ids, field lengths, postings), so a corrupt snapshot is refused here rather
   * than answering wrong scores later. It stays synchronous.
   *
   * @throws InvalidStateError when the version is not 2, the engine differs, the fingerprint does not
   *   match this configuration (another indexRevision, idField, fields, storedFields or analyzer), the
   *   checksum does not match, or the index is corrupt
   */
  restore(snapshot: TextSearchSnapshot): void {
    this.#assertNotInCallback('restore')
    const bad = (problem: string, details: { field?: string; received?: string } = {}, cause?: unknown) =>
      new InvalidStateError(`Cannot restore this TextSearch snapshot: ${problem}`, {
        cause,
        details: { indexRevision: this.indexRevision, ...details },
      })
    if (typeof snapshot !== 'object' || snapshot === null) {
      throw bad(`expected an object, got ${describeValue(snapshot)}.`, {
        field: 'snapshot',
        received: describeValue(snapshot),
      })
    }
    const { version, engine, serializedIndex } = snapshot as unknown as Record<string, unknown>
    const fingerprint: unknown = snapshot.configurationFingerprint
    if (version !== 2) {
      throw bad(
        `its version is ${describeValue(version)}, but only version 2 is supported. Rebuild the index from the documents.`,
        { field: 'snapshot.version', received: describeValue(version) },
      )
    }
    if (engine !== TEXT_ENGINE) {
      throw bad(`its engine is ${describeValue(engine)}, expected "${TEXT_ENGINE}".`, {
        field: 'snapshot.engine',
        received: describeValue(engine),
      })
    }
    if (fingerprint !== this.configurationFingerprint) {
      throw bad(
        `it was taken with another configuration (fingerprint ${describeValue(fingerprint)}, this index has "${this.configurationFingerprint}"): indexRevision, idField, fields, storedFields or the analyzer differ. Rebuild the index from the documents, or restore into a TextSearch configured like the one that took the snapshot.`,
        { field: 'snapshot.configurationFingerprint', received: describeValue(fingerprint) },
      )
    }
    if (typeof serializedIndex !== 'string') {
      throw bad('serializedIndex is not a string.', {
        field: 'snapshot.serializedIndex',
        received: describeValue(serializedIndex),
      })
    }
    const checksum: unknown = (snapshot as { checksum?: unknown }).checksum
    if (checksum !== undefined) {
      if (typeof checksum !== 'string' || !/^crc32:[0-9a-f]{8}$/.test(checksum)) {
        throw bad(`its checksum ${describeValue(checksum)} is not of the form "crc32:" and 8 hex digits.`, {
          field: 'snapshot.checksum',
          received: describeValue(checksum),
        })
      }
      if (checksumOf(serializedIndex) !== checksum) {
        throw bad(
          'its serializedIndex does not match its checksum: the snapshot was corrupted or edited. Rebuild the index from the documents.',
          { field: 'snapshot.serializedIndex' },
        )
      }
    }
    let restored: MiniSearch<Record<string, unknown>>
    try {
      const plain: unknown = JSON.parse(serializedIndex)
      restored = loadCheckedIndex(plain, this.fields, this.storedFields, this.#engineOptions)
    } catch (error) {
      if (!(error instanceof CorruptIndex) && !(error instanceof SyntaxError)) throw error
      throw bad(
        `serializedIndex is corrupt: ${error.message}. Rebuild the index from the documents.`,
        { field: 'snapshot.serializedIndex' },
        error,
      )
    }
    this.#index = restored
    // Parsed JSON is JSON data by construction.
    this.#nonJson = new Set()
  }

  #assertNotInCallback(operation: string): void {
    if (this.#callbackDepth > 0) {
      throw new InvalidStateError(
        `TextSearch ${operation} was called from inside a search filter. Collect the changes and apply them after search returns.`,
        { details: { operation } },
      )
    }
  }

  #assertJsonOnly(): void {
    for (const id of this.#nonJson) {
      const stored = this.#index.getStoredFields(id) ?? {}
      const field = firstNonJsonPath(stored, 'document') ?? 'document'
      throw notJsonError('TextSearch', field, id)
    }
  }

  /** The declared fields of a checked document, copied: indexed values as text, stored values as data. */
  #project(document: Record<string, unknown>, id: string, where: string): Projected {
    const out: Record<string, unknown> = { [this.idField]: id }
    let json = true
    for (const field of this.fields) {
      const value = document[field]
      if (value === undefined || value === null) continue
      if (typeof value === 'string' || typeof value === 'boolean') out[field] = value
      else if (typeof value === 'number' && Number.isFinite(value)) out[field] = value
      else if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
        out[field] = [...value]
      else {
        refuseField(
          'input',
          `${where}.${field}`,
          `must be a string, a finite number, a boolean or an array of strings (it is an indexed field), but got ${describeValue(value)}`,
          value,
          { prefix: `TextSearch ${where} "${id}": ` },
        )
      }
    }
    for (const field of this.storedFields) {
      const value = document[field]
      if (value === undefined) continue
      const copy = copyIndexData(
        value,
        `TextSearch ${where} "${id}" stored field "${field}"`,
        `${where}.${field}`,
      )
      out[field] = copy.value
      json &&= copy.json
    }
    return { id, fields: out, json }
  }

  #copyStored(id: string, stored: Record<string, unknown> | undefined): Partial<Document> {
    const out: Record<string, unknown> = {}
    if (stored === undefined) return out as Partial<Document>
    const json = !this.#nonJson.has(id)
    for (const field of this.storedFields) {
      const value = stored[field]
      if (value !== undefined) out[field] = typeof value === 'object' ? cloneIndexData(value, json) : value
    }
    return out as Partial<Document>
  }
}

/** A checked document: its id, the fields minisearch indexes and stores, and whether they are JSON. */
interface Projected {
  readonly id: string
  readonly fields: Record<string, unknown>
  readonly json: boolean
}

function readAnalyzer(value: unknown, options: TextSearchOptions<never>): TextAnalyzer | undefined {
  if (value === undefined) return undefined
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as TextAnalyzer).name !== 'string' ||
    typeof (value as TextAnalyzer).version !== 'number' ||
    typeof (value as TextAnalyzer).tokenize !== 'function' ||
    typeof (value as TextAnalyzer).terms !== 'function'
  ) {
    refuseField(
      'input',
      'options.analyzer',
      `must be a TextAnalyzer (englishAnalyzer, standardAnalyzer or one from defineTextAnalyzer), but got ${describeValue(value)}`,
      value,
      { prefix: 'TextSearch ' },
    )
  }
  if (options.tokenize !== undefined || options.processTerm !== undefined) {
    throw new InvalidInputError(
      'TextSearch takes either an analyzer or tokenize/processTerm, not both: the analyzer already decides how text becomes terms. Put your functions into defineTextAnalyzer instead.',
      { details: { field: 'options.analyzer' } },
    )
  }
  return value as TextAnalyzer
}

function byId(a: SearchResult, b: SearchResult): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

function stringifyIndexedValue(value: unknown): string {
  return Array.isArray(value) ? value.join(' ') : String(value)
}

function checkedTokenize(tokenize: (text: string, fieldName?: string) => string[]) {
  return (text: string, fieldName?: string): string[] => {
    const terms: unknown = assertNotThenable(tokenize(text, fieldName), 'TextSearch tokenize')
    if (!Array.isArray(terms) || !terms.every((term) => typeof term === 'string')) {
      throw new InvalidOutputError(
        `TextSearch tokenize must return an array of strings, but returned ${describeValue(terms)}.`,
        { details: { hook: 'TextSearch tokenize', returned: describeValue(terms) } },
      )
    }
    return terms
  }
}

function checkedProcessTerm(
  processTerm: (term: string, fieldName?: string) => string | string[] | null | undefined | false,
) {
  return (term: string, fieldName?: string): string | string[] | null | undefined | false => {
    const out: unknown = assertNotThenable(processTerm(term, fieldName), 'TextSearch processTerm')
    if (out === null || out === undefined || out === false || typeof out === 'string') return out
    if (Array.isArray(out) && out.every((t) => typeof t === 'string')) return out
    throw new InvalidOutputError(
      `TextSearch processTerm must return a string, an array of strings, or a falsy value to drop the term, but returned ${describeValue(out)}.`,
      { details: { hook: 'TextSearch processTerm', returned: describeValue(out) } },
    )
  }
}
