import {
  assertNonEmptyString,
  assertSafeInteger,
  DuplicateIdError,
  describeValue,
  InvalidStateError,
  refuseField,
} from '@agent-core/core'
import {
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
import { base64ToFloat32, float32ToBase64 } from './internal/float32-base64.js'
import {
  adoptParsedIndexData,
  cloneIndexData,
  copyIndexData,
  firstNonJsonPath,
  isAdoptable,
  notJsonError,
} from './internal/index-data.js'
import {
  CorruptStream,
  isByteSource,
  RECORD,
  RecordReader,
  RecordWriter,
} from './internal/snapshot-stream.js'
import { RankedSlots, topK } from './internal/top-k.js'
import { Int8Vectors } from './internal/vector-int8.js'
import { allocateVectors, kernelScores } from './internal/vector-kernel.js'
import { scoreAll, writeNormalized } from './internal/vector-math.js'
import type { JsonData } from './json-data.js'
import { SearchLimitError } from './search-errors.js'
import type { VectorSearchHit } from './search-hit.js'
import type { VectorInput } from './vector-input.js'

/** The largest number of dimensions a {@link VectorSearch} accepts. */
const MAX_DIMENSIONS = 65_536
/** The most float32 values one typed array holds in V8 (2^32 - 1). */
const MAX_FLOATS = 2 ** 32 - 1
/** The longest string V8 builds (2^29 - 24 UTF-16 code units): the base64 of a JSON snapshot must fit. */
const MAX_STRING = 2 ** 29 - 24

/**
 * Options of {@link VectorSearch}.
 *
 * @example
 * ```ts
 * import { VectorSearch, type VectorSearchOptions } from '@agent-core/kits/search'
 * const options: VectorSearchOptions = { identity: 'all-MiniLM-L6-v2', dimensions: 384 }
 * const vectors = new VectorSearch(options)
 * ```
 */
export interface VectorSearchOptions {
  /**
   * Names the embedding space: the model (and its revision or settings) that produced the vectors. It is
   * part of the snapshot fingerprint, so a snapshot made with another model is refused.
   */
  readonly identity: string
  /** How many numbers every vector has, from 1 to 65536. */
  readonly dimensions: number
  /** The document field holding its id, a non-empty string. Default `"id"`. */
  readonly idField?: string
}

/**
 * A request to {@link VectorSearch.upsert}.
 *
 * @example
 * ```ts
 * import type { VectorUpsert } from '@agent-core/kits/search'
 * const entry: VectorUpsert<{ id: string }> = { document: { id: 'a' }, vector: [1, 0, 0] }
 * ```
 */
export interface VectorUpsert<Document extends object> {
  /** Plain data (see {@link VectorSearch}); its id field names the entry. */
  readonly document: Document
  /** Exactly `dimensions` finite numbers, not all zero. */
  readonly vector: VectorInput
}

/**
 * A request to {@link VectorSearch.search}.
 *
 * @example
 * ```ts
 * import type { VectorSearchRequest } from '@agent-core/kits/search'
 * const request: VectorSearchRequest<{ id: string; lang: string }> = {
 *   vector: [1, 0, 0],
 *   limit: 5,
 *   filter: (document) => document.lang === 'en',
 * }
 * ```
 */
export interface VectorSearchRequest<Document extends object> {
  /** The query vector: exactly `dimensions` finite numbers, not all zero. */
  readonly vector: VectorInput
  /** The most hits to return: a safe integer of at least 0 (0 returns no hits). */
  readonly limit: number
  /**
   * Keeps a document when it returns `true`. Must return a boolean synchronously. Receives its own copy of
   * the document; it is called best-first and only until `limit` hits are found.
   */
  readonly filter?: (document: Document, id: string) => boolean
  /** Skips hits whose cosine similarity is below this finite number. */
  readonly minScore?: number
  /**
   * Returns a group key (a string, synchronously); only the best hit of each group is kept, e.g. the best
   * chunk per source file. Receives its own copy of the document, after `filter` accepted it.
   */
  readonly groupBy?: (document: Document, id: string) => string
  /**
   * `'exact'` (the default) scores every vector in float32, exactly. `'int8'` ranks by an int8 copy of the
   * vectors (a quarter of the memory to read; a WebAssembly SIMD kernel when the dimension is a multiple of
   * 16), then scores the best `4 * limit` (at least `limit + 32`) candidates exactly and returns them by
   * that exact score, so every returned score is the exact cosine and only the choice of candidates is
   * approximate (recall at 10 against exact: see `pnpm bench search`). `filter` and `groupBy` see the
   * candidates in approximate order. The int8 copy is built on the first such search after a change.
   */
  readonly precision?: 'exact' | 'int8'
}

/**
 * What {@link VectorSearch.snapshot} returns: JSON-serializable, restored exactly by
 * {@link VectorSearch.restore} on a VectorSearch with the same identity, dimensions and idField. The
 * vectors are one base64 string, so this form holds at most 100,663,290 float32 values (65,535 vectors of
 * 1536 dimensions); larger indexes snapshot as a binary stream with {@link VectorSearch.snapshotChunks}.
 *
 * @example
 * ```ts
 * import { VectorSearch, type VectorSearchSnapshot } from '@agent-core/kits/search'
 * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
 * const snapshot: VectorSearchSnapshot = JSON.parse(JSON.stringify(vectors.snapshot()))
 * ```
 */
export interface VectorSearchSnapshot {
  /** The snapshot format; only 1 exists. */
  readonly version: 1
  /** The storage engine: unit vectors as little-endian float32. */
  readonly engine: 'agent-core/flat-cosine-f32'
  /** Fingerprint of identity, dimensions and idField. */
  readonly configurationFingerprint: string
  /** The embedding space the vectors come from. */
  readonly identity: string
  /** Numbers per vector. */
  readonly dimensions: number
  /** The documents, in storage order. */
  readonly documents: readonly JsonData[]
  /** Base64 of the unit vectors (float32, little-endian), `documents.length * dimensions` floats. */
  readonly vectors: string
}

const VECTOR_ENGINE: VectorSearchSnapshot['engine'] = 'agent-core/flat-cosine-f32'

/**
 * Exact nearest-neighbour search by cosine similarity over an in-memory set of documents and their
 * embedding vectors.
 *
 * Vectors are normalized on upsert and kept in one contiguous `Float32Array`; a search scores every
 * vector and selects the top `limit` with a heap, so it is exact (no approximate index) and fast up to a
 * few hundred thousand vectors. Ties are broken by id, ascending. When the dimension is a multiple of 8
 * and the runtime has WebAssembly SIMD, larger indexes are scored by a small WebAssembly kernel that
 * computes the same float64 sums in the same order as the JavaScript loop, so the scores are the same
 * bit for bit, only faster.
 *
 * Documents must be plain data (strings, finite numbers, booleans, null, arrays, plain objects): they
 * are copied on upsert, each hit and each `filter`/`groupBy` call gets its own copy, and snapshots
 * round-trip them exactly through JSON.
 *
 * @example
 * ```ts
 * import { VectorSearch } from '@agent-core/kits/search'
 * const vectors = new VectorSearch<{ id: string; title: string }>({ identity: 'toy-2d', dimensions: 2 })
 * vectors.upsert({ document: { id: 'north', title: 'North' }, vector: [0, 1] })
 * vectors.upsert({ document: { id: 'east', title: 'East' }, vector: [1, 0] })
 * const [best] = vectors.search({ vector: [0.1, 0.9], limit: 1 })
 * console.log(best?.id) // "north"
 * ```
 */
export class VectorSearch<Document extends object = Record<string, unknown>> {
  /** The embedding space this index holds vectors of. */
  readonly identity: string
  /** Numbers per vector. */
  readonly dimensions: number
  /** The document field holding the id. */
  readonly idField: string
  /** Fingerprint of identity, dimensions and idField, as written into snapshots. */
  readonly configurationFingerprint: string

  #vectors: Float32Array
  #ids: string[] = []
  #documents: unknown[] = []
  /** Ids whose documents hold data JSON cannot carry (Date, Map, ...): copied with structuredClone. */
  #nonJson = new Set<string>()
  #slots = new Map<string, number>()
  /** Counts changes, so that a streamed snapshot or restore can tell that the index changed meanwhile. */
  #version = 0
  #scores = new Float64Array(0)
  /** The int8 copy for `precision: 'int8'`, valid while its version is the index's. */
  #int8: Int8Vectors | undefined
  /** How many searches are inside a filter or groupBy callback right now (changes are refused then). */
  #callbackDepth = 0
  readonly #query: Float32Array

  constructor(options: VectorSearchOptions) {
    assertRequest(options, 'new VectorSearch', "{ identity: 'my-model', dimensions: 384 }", 'options')
    assertNonEmptyString(options.identity, 'options.identity')
    assertSafeInteger(options.dimensions, 'options.dimensions', { min: 1, max: MAX_DIMENSIONS })
    const idField = options.idField ?? 'id'
    assertNonEmptyString(idField, 'options.idField')
    this.identity = options.identity
    this.dimensions = options.dimensions
    this.idField = idField
    this.configurationFingerprint = configurationFingerprint('vector-search', {
      engine: VECTOR_ENGINE,
      identity: this.identity,
      dimensions: this.dimensions,
      idField,
    })
    this.#vectors = allocateVectors(16 * this.dimensions, this.dimensions)
    this.#query = new Float32Array(this.dimensions)
  }

  /** How many documents the index holds. */
  get size(): number {
    return this.#ids.length
  }

  /** True when a document with this id is indexed. */
  has(id: string): boolean {
    return this.#slots.has(id)
  }

  /** A copy of the document with this id, or `undefined`. */
  get(id: string): Document | undefined {
    const slot = this.#slots.get(id)
    return slot === undefined ? undefined : this.#copyOut(slot)
  }

  /** The ids of all documents, in storage order (removal moves the last document into the gap). */
  ids(): string[] {
    return [...this.#ids]
  }

  /**
   * Adds a document with its vector; the id must be new (see {@link VectorSearch.upsert} to replace).
   *
   * @throws DuplicateIdError when a document with the same id is indexed
   * @throws InvalidInputError when the document is not plain data with a string id, or the vector does
   *   not have exactly `dimensions` finite numbers (sparse arrays, NaN, all zeros)
   * @example
   * ```ts
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * vectors.add({ document: { id: 'a' }, vector: [1, 0] })
   * ```
   */
  add(entry: VectorUpsert<Document>): void {
    this.#store([entry], 'add', 'add', true)
  }

  /**
   * {@link VectorSearch.add} for many entries, all or nothing: every entry is checked before any is
   * stored, and the ids must be new and distinct.
   *
   * @throws DuplicateIdError when an id is indexed already or repeats in the batch
   * @example
   * ```ts
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * vectors.addAll([
   *   { document: { id: 'a' }, vector: [1, 0] },
   *   { document: { id: 'b' }, vector: [0, 1] },
   * ])
   * ```
   */
  addAll(entries: readonly VectorUpsert<Document>[]): void {
    this.#store(entries, 'addAll', 'add', false)
  }

  /**
   * Adds a document with its vector, or replaces the document and vector stored under the same id.
   *
   * @throws InvalidInputError when the document is not plain data with a string id, or the vector does
   *   not have exactly `dimensions` finite numbers (sparse arrays, NaN, all zeros)
   */
  upsert(entry: VectorUpsert<Document>): void {
    this.#store([entry], 'upsert', 'legacy', true)
  }

  /**
   * {@link VectorSearch.upsert} for many entries, all or nothing: every entry is checked before any is
   * stored. Each id may appear once in the batch, as in every `*All` method of the search indexes.
   *
   * @throws DuplicateIdError when an id repeats in the batch
   * @example
   * ```ts
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * vectors.upsertAll([
   *   { document: { id: 'a' }, vector: [1, 0] },
   *   { document: { id: 'b' }, vector: [0, 1] },
   * ])
   * ```
   */
  upsertAll(entries: readonly VectorUpsert<Document>[]): void {
    this.#store(entries, 'upsertAll', 'upsert', false)
  }

  /**
   * {@link VectorSearch.upsert} for many entries at once, all or nothing: every entry is checked before
   * any is stored. When an id repeats, the last entry wins.
   *
   * @deprecated Use {@link VectorSearch.upsertAll} (the one batch name of every search index; it refuses
   *   an id repeated in the batch). `upsertMany` will be removed in the next major release.
   */
  upsertMany(entries: readonly VectorUpsert<Document>[]): void {
    this.#store(entries, 'upsertMany', 'legacy', Array.isArray(entries) && entries.length === 1)
  }

  /**
   * Checks and stores a batch. `mode` `'add'` refuses indexed and repeated ids, `'upsert'` repeated ids,
   * `'legacy'` none (the last of a repeated id wins). `single` names the one entry `entry`.
   */
  #store(
    entries: readonly VectorUpsert<Document>[],
    method: string,
    mode: 'add' | 'upsert' | 'legacy',
    single: boolean,
  ): void {
    this.#assertNotInCallback(mode === 'add' ? 'add' : 'upsert')
    if (!Array.isArray(entries)) {
      refuseField(
        'input',
        'entries',
        `must be an array of { document, vector }, but got ${describeValue(entries)}`,
        entries,
        { prefix: `VectorSearch ${method}: ` },
      )
    }
    const dims = this.dimensions
    const count = this.#ids.length
    // Stage every vector in the spare rows after the live ones, so a rejected entry leaves the index as
    // it was and accepted ones need no second buffer.
    this.#ensureCapacity(count + entries.length)
    const vectors = this.#vectors
    const ids: string[] = new Array(entries.length)
    const documents: unknown[] = new Array(entries.length)
    const json: boolean[] = new Array(entries.length)
    const batch = mode === 'legacy' ? undefined : new Set<string>()
    for (let i = 0; i < entries.length; i++) {
      const where = single ? 'entry' : `entries[${i}]`
      const entry: unknown = entries[i]
      assertRequest(entry, `VectorSearch ${method}`, '{ document: { id: "a" }, vector: [0.1, 0.2] }', where)
      const id = readDocumentId(entry.document, this.idField, `${where}.document`)
      if (batch !== undefined) {
        const indexed = mode === 'add' && this.#slots.has(id)
        if (indexed || batch.has(id)) {
          throw new DuplicateIdError(
            `VectorSearch ${method}: ${where} has the id "${id}", which is ${indexed ? 'already indexed. Use upsert() to replace a document.' : 'repeated in this batch. Give each id once.'}`,
            { details: { id } },
          )
        }
        batch.add(id)
      }
      const copy = copyIndexData(
        entry.document,
        `VectorSearch ${where}.document "${id}"`,
        `${where}.document`,
      )
      documents[i] = copy.value
      json[i] = copy.json
      writeNormalized(entry.vector, dims, vectors, (count + i) * dims, `${where}.vector`)
      ids[i] = id
    }
    this.#version++
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      if (json[i]) this.#nonJson.delete(id)
      else this.#nonJson.add(id)
      let slot = this.#slots.get(id)
      if (slot === undefined) {
        slot = this.#ids.length
        this.#ids.push(id)
        this.#documents.push(documents[i])
        this.#slots.set(id, slot)
      } else {
        this.#documents[slot] = documents[i]
      }
      // The target row is live or already committed, never a row still waiting to be moved.
      const from = (count + i) * dims
      if (slot !== count + i) vectors.copyWithin(slot * dims, from, from + dims)
    }
  }

  /**
   * Removes the document with this id. Returns `false` when it was not indexed.
   */
  remove(id: string): boolean {
    this.#assertNotInCallback('remove')
    if (typeof id !== 'string') {
      refuseField('input', 'id', `must be a string, but got ${describeValue(id)}`, id, {
        prefix: 'VectorSearch remove: ',
      })
    }
    return this.#removeOne(id)
  }

  /**
   * Removes the documents with these ids; returns how many were indexed (an id given twice counts once).
   * Every id is checked before any is removed.
   *
   * @example
   * ```ts
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * vectors.addAll([{ document: { id: 'a' }, vector: [1, 0] }, { document: { id: 'b' }, vector: [0, 1] }])
   * console.log(vectors.removeAll(['a', 'nope'])) // 1
   * ```
   */
  removeAll(ids: readonly string[]): number {
    this.#assertNotInCallback('remove')
    assertIdList(ids, 'VectorSearch removeAll: ')
    let removed = 0
    for (const id of ids) if (this.#removeOne(id)) removed++
    return removed
  }

  #removeOne(id: string): boolean {
    const slot = this.#slots.get(id)
    if (slot === undefined) return false
    this.#version++
    this.#nonJson.delete(id)
    const last = this.#ids.length - 1
    const dims = this.dimensions
    if (slot !== last) {
      const lastId = this.#ids[last]!
      this.#vectors.copyWithin(slot * dims, last * dims, (last + 1) * dims)
      this.#ids[slot] = lastId
      this.#documents[slot] = this.#documents[last]!
      this.#slots.set(lastId, slot)
    }
    this.#ids.pop()
    this.#documents.pop()
    this.#slots.delete(id)
    return true
  }

  /**
   * The `limit` documents most similar to `vector` by cosine similarity, best first; equal scores are
   * ordered by id (ascending UTF-16 code units).
   *
   * @throws InvalidInputError on a bad vector, limit, minScore or callback
   * @throws RejectedThenableError when `filter` or `groupBy` returns a Promise
   * @throws InvalidOutputError when `filter` returns a non-boolean or `groupBy` a non-string
   */
  search(request: VectorSearchRequest<Document>): readonly VectorSearchHit<Document>[] {
    assertRequest(request, 'VectorSearch search', '{ vector: [0.1, 0.2], limit: 10 }')
    const { limit, filter, groupBy, minScore } = request
    // A search started from inside a filter or groupBy callback must not overwrite the shared buffers.
    const nested = this.#callbackDepth > 0
    const query = nested ? new Float32Array(this.dimensions) : this.#query
    writeNormalized(request.vector, this.dimensions, query, 0, 'request.vector')
    assertLimit(limit)
    assertOptionalFunction(filter, 'request.filter')
    assertOptionalFunction(groupBy, 'request.groupBy')
    if (minScore !== undefined) assertFiniteNumber(minScore, 'request.minScore')
    const precision = request.precision ?? 'exact'
    if (precision !== 'exact' && precision !== 'int8') {
      refuseField(
        'input',
        'request.precision',
        `must be 'exact' or 'int8', but got ${describeValue(precision)}`,
        precision,
        { prefix: 'VectorSearch search: ' },
      )
    }
    const count = this.#ids.length
    if (limit === 0 || count === 0) return []
    if (precision === 'int8') return this.#searchInt8(query, count, limit, filter, groupBy, minScore)
    // The WebAssembly kernel's scores are its own buffer, which a nested search would overwrite: a
    // nested search takes the JavaScript loop (the same scores, bit for bit) into an array of its own.
    let scores = nested ? undefined : kernelScores(this.#vectors, count, this.dimensions, query)
    if (scores === undefined) {
      if (!nested && this.#scores.length < count)
        this.#scores = new Float64Array(this.#vectors.length / this.dimensions)
      scores = nested ? new Float64Array(count) : this.#scores
      scoreAll(this.#vectors, count, this.dimensions, query, scores)
    }
    const floor = minScore ?? Number.NEGATIVE_INFINITY
    if (filter === undefined && groupBy === undefined) {
      return topK(scores, this.#ids, count, limit, floor).map((slot) => this.#hit(slot, scores))
    }
    const hits: VectorSearchHit<Document>[] = []
    const groups = new Set<string>()
    const ranked = new RankedSlots(scores, this.#ids, count, floor)
    this.#callbackDepth++
    try {
      for (let slot = ranked.next(); slot !== -1 && hits.length < limit; slot = ranked.next()) {
        const id = this.#ids[slot]!
        if (filter && !keepByFilter(filter, this.#copyOut(slot), id, 'VectorSearch search filter')) {
          continue
        }
        if (groupBy) {
          const key = groupKey(groupBy, this.#copyOut(slot), id, 'VectorSearch search groupBy')
          if (groups.has(key)) continue
          groups.add(key)
        }
        hits.push(this.#hit(slot, scores))
      }
    } finally {
      this.#callbackDepth--
    }
    return hits
  }

  /**
   * A JSON-serializable copy of the whole index (documents and unit vectors as base64 float32).
   * {@link VectorSearch.restore} on a VectorSearch with the same configuration reproduces it exactly.
   *
   * @throws SearchLimitError when the vectors do not fit one JavaScript string (more than 100,663,290
   *   float32 values, e.g. 65,536 vectors of 1536 dimensions): use {@link VectorSearch.snapshotChunks}
   * @throws InvalidStateError when a document holds data JSON cannot carry (a Date, a Map, ...)
   */
  snapshot(): VectorSearchSnapshot {
    const count = this.#ids.length
    const floats = count * this.dimensions
    const base64Chars = Math.ceil((floats * 4) / 3) * 4
    if (base64Chars > MAX_STRING) {
      throw new SearchLimitError(
        `VectorSearch snapshot: ${count} vectors of ${this.dimensions} dimensions need a base64 string of ${base64Chars} characters, but a JavaScript string holds at most ${MAX_STRING}. Write a binary snapshot with snapshotChunks() (to a file or a BLOB) and read it back with restoreFrom().`,
        {
          details: {
            what: 'VectorSearch JSON snapshot',
            limit: Math.floor(((MAX_STRING / 4) * 3) / 4),
            required: floats,
            unit: 'float32 values',
          },
        },
      )
    }
    this.#assertJsonOnly()
    return {
      version: 1,
      engine: VECTOR_ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      identity: this.identity,
      dimensions: this.dimensions,
      documents: this.#documents.map((document) => cloneIndexData(document, true)) as JsonData[],
      vectors: float32ToBase64(this.#vectors, floats),
    }
  }

  /**
   * Replaces the contents with a snapshot taken by {@link VectorSearch.snapshot}. All or nothing: a
   * rejected snapshot leaves the index unchanged.
   *
   * @throws InvalidStateError when the snapshot has another version or engine, was made for another
   *   identity, dimensions or idField (its fingerprint differs), or is corrupt
   */
  restore(snapshot: VectorSearchSnapshot): void {
    this.#assertNotInCallback('restore')
    const bad = this.#restoreError
    if (typeof snapshot !== 'object' || snapshot === null) {
      throw bad(`expected an object, got ${describeValue(snapshot)}.`, 'snapshot', snapshot)
    }
    const { version, engine, documents, vectors } = snapshot as unknown as Record<string, unknown>
    if (version !== 1) {
      throw bad(
        `its version is ${describeValue(version)}, but only version 1 is supported. Rebuild the index from the documents.`,
        'snapshot.version',
        version,
      )
    }
    if (engine !== VECTOR_ENGINE) {
      throw bad(
        `its engine is ${describeValue(engine)}, expected "${VECTOR_ENGINE}".`,
        'snapshot.engine',
        engine,
      )
    }
    this.#checkHeader(snapshot as unknown as Record<string, unknown>)
    if (!Array.isArray(documents))
      throw bad('its documents are not an array.', 'snapshot.documents', documents)
    const dims = this.dimensions
    const data = typeof vectors === 'string' ? base64ToFloat32(vectors) : undefined
    if (data === undefined || data.length !== documents.length * dims) {
      throw bad(
        `its vectors are not base64 of ${documents.length * dims} float32 values.`,
        'snapshot.vectors',
        vectors,
      )
    }
    const state = this.#emptyState(documents.length)
    for (let i = 0; i < documents.length; i++) this.#restoreDocument(state, documents[i], i)
    state.vectors.set(data)
    this.#checkVectors(state, 0, documents.length)
    this.#install(state)
  }

  /**
   * The whole index as a binary stream: a header, the documents as JSON lines, the unit vectors as
   * little-endian float32 and a checksum (format version 2: a CRC-32 of all but the vectors and a 32-bit
   * word hash of the vectors, which restores faster than version 1's CRC-32 of everything; `restoreFrom`
   * reads both versions), in chunks of at most 4 MiB. Write the chunks to a
   * file (`pipeline(Readable.from(index.snapshotChunks()), createWriteStream(path))`) or join them into a
   * BLOB; {@link VectorSearch.restoreFrom} reads them back. Unlike {@link VectorSearch.snapshot}, its size
   * is not bounded by the longest JavaScript string: a million vectors of 1536 dimensions (6 GB) stream in
   * constant memory. Chunks are copies, so the caller may keep them.
   *
   * @throws InvalidStateError (while iterating) when the index changes before the last chunk, or a
   *   document holds data JSON cannot carry
   * @example
   * ```ts
   * import { createWriteStream } from 'node:fs'
   * import { Readable } from 'node:stream'
   * import { pipeline } from 'node:stream/promises'
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * vectors.upsert({ document: { id: 'a' }, vector: [1, 0] })
   * await pipeline(Readable.from(vectors.snapshotChunks()), createWriteStream('/tmp/vectors.snapshot'))
   * ```
   */
  *snapshotChunks(): Generator<Uint8Array, void, undefined> {
    this.#assertJsonOnly()
    const version = this.#version
    const count = this.#ids.length
    const writer = new RecordWriter({ splitChecksum: true })
    const changed = () => {
      if (this.#version !== version) {
        throw new InvalidStateError(
          'VectorSearch snapshotChunks: the index changed while its snapshot was being read. Take the snapshot again, without changing the index until the last chunk.',
          { details: { field: 'index' } },
        )
      }
    }
    yield writer.start()
    yield writer.json(RECORD.HEADER, {
      format: 'agent-core/vector-search',
      // Version 2: the vectors are covered by the word hash instead of the CRC-32 (snapshot-stream.ts).
      version: 2,
      engine: VECTOR_ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      identity: this.identity,
      dimensions: this.dimensions,
      count,
    })
    for (const chunk of writer.lines(this.#documents.slice(0, count))) {
      changed()
      yield chunk
    }
    for (const chunk of writer.floats(this.#vectors, count * this.dimensions)) {
      changed()
      yield chunk
    }
    changed()
    yield writer.end()
  }

  /**
   * Replaces the contents with a binary snapshot from {@link VectorSearch.snapshotChunks}, read from any
   * iterable or async iterable of byte chunks (a file read stream, an array holding one BLOB). The index
   * is swapped only after every check passed: the checksum, the header (version, engine, fingerprint),
   * every document and id, and the count of vector values. All or nothing: on any error the index is as
   * it was.
   *
   * @throws InvalidStateError when the stream is corrupt, truncated or was written for another
   *   configuration, or the index changed while it was being restored
   * @throws SearchLimitError when the snapshot holds more vectors than one typed array can
   * @example
   * ```ts
   * import { createReadStream } from 'node:fs'
   * import { VectorSearch } from '@agent-core/kits/search'
   * const vectors = new VectorSearch({ identity: 'toy', dimensions: 2 })
   * await vectors.restoreFrom(createReadStream('/tmp/vectors.snapshot'))
   * ```
   */
  async restoreFrom(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    this.#assertNotInCallback('restore')
    if (!isByteSource(source)) {
      refuseField(
        'input',
        'source',
        `must be an iterable or async iterable of byte chunks (a file read stream, [bytes]), but got ${describeValue(source)}`,
        source,
        { prefix: 'VectorSearch restoreFrom: ' },
      )
    }
    const version = this.#version
    const bad = this.#restoreError
    let state: VectorState
    try {
      const reader = new RecordReader(source)
      await reader.start()
      const header = await reader.next()
      if (header?.type !== RECORD.HEADER || typeof header.value !== 'object' || header.value === null)
        throw new CorruptStream('it has no header')
      const fields = header.value as Record<string, unknown>
      if (
        fields.format !== 'agent-core/vector-search' ||
        (fields.version !== 1 && fields.version !== 2) ||
        fields.engine !== VECTOR_ENGINE
      ) {
        throw bad(
          `it is not a version 1 or 2 "${VECTOR_ENGINE}" VectorSearch snapshot (format ${describeValue(fields.format)}, version ${describeValue(fields.version)}).`,
          'snapshot.version',
          fields.version,
        )
      }
      this.#checkHeader(fields)
      if (fields.version === 2) reader.splitChecksum()
      const count = fields.count
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
        throw new CorruptStream('its header has no vector count')
      this.#checkCapacity(count, 'VectorSearch restoreFrom')
      try {
        state = this.#emptyState(count)
      } catch (error) {
        // A damaged count can ask for more memory than there is; the checksum would only tell at the end.
        if (error instanceof RangeError)
          throw new CorruptStream(`its header announces ${count} vectors, which do not fit in memory`)
        throw error
      }
      reader.floatsInto(state.vectors.subarray(0, count * this.dimensions))
      let documents = 0
      for (let record = await reader.next(); record !== undefined; record = await reader.next()) {
        if (record.type === RECORD.LINES) {
          if (reader.floatsWritten > 0) throw new CorruptStream('documents follow vectors')
          for (const line of record.lines) {
            if (documents >= count)
              throw new CorruptStream('it holds more documents than its header announces')
            // Parsed from the stream just now: adopted, not copied.
            this.#restoreParsedDocument(state, line, documents++)
          }
        } else if (record.type !== RECORD.FLOATS) throw new CorruptStream('it has an unexpected record')
      }
      if (documents !== count) throw new CorruptStream(`it holds ${documents} documents, not ${count}`)
      if (reader.floatsWritten !== count * this.dimensions)
        throw new CorruptStream(
          `it holds ${reader.floatsWritten} vector values, not ${count * this.dimensions}`,
        )
    } catch (error) {
      if (error instanceof CorruptStream)
        throw bad(`the stream is corrupt: ${error.message}. Rebuild the index from the documents.`, 'source')
      throw error
    }
    if (this.#version !== version) {
      throw new InvalidStateError(
        'VectorSearch restoreFrom: the index changed while the snapshot was being read, so restoring it would lose those changes. Restore before changing the index.',
        { details: { field: 'index' } },
      )
    }
    // The checksum covered every vector byte (the CRC-32 in version 1, the word hash in version 2), and a
    // VectorSearch only writes finite unit vectors, so they are not scanned again (the JSON form, which has
    // no checksum, is).
    this.#install(state)
  }

  readonly #restoreError = (problem: string, field: string, value?: unknown) =>
    new InvalidStateError(`Cannot restore this VectorSearch snapshot: ${problem}`, {
      details: {
        identity: this.identity,
        dimensions: this.dimensions,
        field,
        ...(value === undefined ? {} : { received: describeValue(value) }),
      },
    })

  /** Checks identity, dimensions and fingerprint of a snapshot or stream header. */
  #checkHeader(fields: Record<string, unknown>): void {
    const { identity, dimensions } = fields
    const fingerprint = fields.configurationFingerprint
    if (identity !== this.identity || dimensions !== this.dimensions) {
      throw this.#restoreError(
        `it holds vectors of ${describeValue(identity)} with ${describeValue(dimensions)} dimensions, but this index is for "${this.identity}" with ${this.dimensions}. Re-embed the documents with this model, or restore into a VectorSearch with the snapshot's identity.`,
        'snapshot.identity',
        identity,
      )
    }
    if (fingerprint !== this.configurationFingerprint) {
      throw this.#restoreError(
        `its configuration fingerprint ${describeValue(fingerprint)} does not match this index's "${this.configurationFingerprint}" (identity, dimensions or idField differ, or the snapshot was edited).`,
        'snapshot.configurationFingerprint',
        fingerprint,
      )
    }
  }

  #checkCapacity(count: number, what: string): void {
    if (count * this.dimensions > MAX_FLOATS) {
      throw new SearchLimitError(
        `${what}: ${count} vectors of ${this.dimensions} dimensions are ${count * this.dimensions} float32 values, but one VectorSearch holds at most ${MAX_FLOATS} (one typed array). Split the corpus over several indexes, or reduce the dimensions.`,
        {
          details: {
            what: 'VectorSearch capacity',
            limit: MAX_FLOATS,
            required: count * this.dimensions,
            unit: 'float32 values',
          },
        },
      )
    }
  }

  #emptyState(count: number): VectorState {
    return {
      vectors: allocateVectors(Math.max(16, count) * this.dimensions, this.dimensions),
      ids: new Array(count),
      documents: new Array(count),
      nonJson: new Set(),
      slots: new Map(),
    }
  }

  /** Checks snapshot document `i` and files it into `state` (a copy, unless it was parsed just now). */
  #restoreDocument(state: VectorState, document: unknown, i: number, parsed = false): void {
    let id: string
    try {
      id = readDocumentId(document, this.idField, `snapshot.documents[${i}]`)
      const copy = (parsed ? adoptParsedIndexData : copyIndexData)(
        document,
        `snapshot document "${id}"`,
        `snapshot.documents[${i}]`,
      )
      state.documents[i] = copy.value
      if (!copy.json) state.nonJson.add(id)
    } catch (error) {
      throw this.#restoreError(
        `document ${i} is not valid (${(error as Error).message})`,
        `snapshot.documents[${i}]`,
      )
    }
    if (state.slots.has(id))
      throw this.#restoreError(`the id "${id}" occurs twice.`, `snapshot.documents[${i}]`)
    state.slots.set(id, i)
    state.ids[i] = id
  }

  /**
   * {@link VectorSearch.#restoreDocument} for a document `JSON.parse` made just now, with the same checks
   * in a fast path that builds no strings: a document that fails any of them takes the full path, which
   * throws the error it always threw.
   */
  #restoreParsedDocument(state: VectorState, document: unknown, i: number): void {
    if (typeof document === 'object' && document !== null && !Array.isArray(document)) {
      const id: unknown = (document as Record<string, unknown>)[this.idField]
      if (typeof id === 'string' && id.length > 0 && !state.slots.has(id) && isAdoptable(document)) {
        state.documents[i] = document
        state.slots.set(id, i)
        state.ids[i] = id
        return
      }
    }
    this.#restoreDocument(state, document, i, true)
  }

  /** Every vector in `[from, to)` has finite values and unit length. */
  #checkVectors(state: VectorState, from: number, to: number): void {
    const dims = this.dimensions
    const data = state.vectors
    for (let i = from; i < to; i++) {
      let norm = 0
      for (let j = i * dims, end = j + dims; j < end; j++) {
        const x = data[j]!
        norm += x * x
      }
      // NaN or Infinity anywhere makes the norm NaN or Infinity, which fails this test too.
      if (!(Math.abs(norm - 1) <= 1e-3)) {
        throw this.#restoreError(
          `the vector of "${state.ids[i]}" is not a finite unit vector.`,
          `snapshot.vectors`,
        )
      }
    }
  }

  #install(state: VectorState): void {
    this.#version++
    this.#vectors = state.vectors
    this.#ids = state.ids
    this.#documents = state.documents
    this.#nonJson = state.nonJson
    this.#slots = state.slots
  }

  #assertJsonOnly(): void {
    for (const id of this.#nonJson) {
      const slot = this.#slots.get(id)!
      throw notJsonError(
        'VectorSearch',
        firstNonJsonPath(this.#documents[slot], 'document') ?? 'document',
        id,
      )
    }
  }

  #copyOut(slot: number): Document {
    return cloneIndexData(this.#documents[slot], !this.#nonJson.has(this.#ids[slot]!)) as Document
  }

  /** `precision: 'int8'`: candidates by the int8 scores, then exact scores for them (see the request). */
  #searchInt8(
    query: Float32Array,
    count: number,
    limit: number,
    filter: VectorSearchRequest<Document>['filter'],
    groupBy: VectorSearchRequest<Document>['groupBy'],
    minScore: number | undefined,
  ): readonly VectorSearchHit<Document>[] {
    let int8 = this.#int8
    if (int8 === undefined || int8.version !== this.#version || int8.count !== count) {
      int8 = new Int8Vectors(this.#vectors, count, this.dimensions, this.#version)
      this.#int8 = int8
    }
    const scores = new Float64Array(count)
    int8.scores(query, scores)
    const pool = Math.min(count, Math.max(limit * 4, limit + 32))
    let candidates: number[]
    if (filter === undefined && groupBy === undefined) {
      candidates = topK(scores, this.#ids, count, pool, Number.NEGATIVE_INFINITY)
    } else {
      candidates = []
      const groups = new Set<string>()
      const ranked = new RankedSlots(scores, this.#ids, count, Number.NEGATIVE_INFINITY)
      this.#callbackDepth++
      try {
        for (let slot = ranked.next(); slot !== -1 && candidates.length < pool; slot = ranked.next()) {
          const id = this.#ids[slot]!
          if (filter && !keepByFilter(filter, this.#copyOut(slot), id, 'VectorSearch search filter')) continue
          if (groupBy) {
            const key = groupKey(groupBy, this.#copyOut(slot), id, 'VectorSearch search groupBy')
            if (groups.has(key)) continue
            groups.add(key)
          }
          candidates.push(slot)
        }
      } finally {
        this.#callbackDepth--
      }
    }
    // The exact score of each candidate: the same loop as an exact search, on that one row.
    const one = new Float64Array(1)
    const dims = this.dimensions
    for (const slot of candidates) {
      scoreAll(this.#vectors.subarray(slot * dims, slot * dims + dims), 1, dims, query, one)
      scores[slot] = one[0]!
    }
    const floor = minScore ?? Number.NEGATIVE_INFINITY
    const ids = this.#ids
    return candidates
      .filter((slot) => scores[slot]! >= floor)
      .sort((a, b) => scores[b]! - scores[a]! || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0))
      .slice(0, limit)
      .map((slot) => this.#hit(slot, scores))
  }

  #hit(slot: number, scores: Float64Array): VectorSearchHit<Document> {
    return { id: this.#ids[slot]!, score: scores[slot]!, document: this.#copyOut(slot) }
  }

  #assertNotInCallback(operation: string): void {
    if (this.#callbackDepth > 0) {
      throw new InvalidStateError(
        `VectorSearch ${operation} was called from inside a search filter or groupBy callback. Collect the changes and apply them after search returns.`,
        { details: { operation } },
      )
    }
  }

  #ensureCapacity(count: number): void {
    const needed = count * this.dimensions
    if (needed <= this.#vectors.length) return
    this.#checkCapacity(count, 'VectorSearch upsert')
    const grown = allocateVectors(
      Math.min(MAX_FLOATS - (MAX_FLOATS % this.dimensions), Math.max(needed, this.#vectors.length * 2)),
      this.dimensions,
    )
    grown.set(this.#vectors)
    this.#vectors = grown
  }
}

/** A complete index state, built aside and installed at once. */
interface VectorState {
  readonly vectors: Float32Array
  readonly ids: string[]
  readonly documents: unknown[]
  readonly nonJson: Set<string>
  readonly slots: Map<string, number>
}
