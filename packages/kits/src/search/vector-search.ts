import {
  assertNonEmptyString,
  assertSafeInteger,
  describeValue,
  InvalidInputError,
  InvalidStateError,
} from '@agent-core/core'
import {
  assertFiniteNumber,
  assertLimit,
  assertOptionalFunction,
  assertRequest,
  groupKey,
  keepByFilter,
  readDocumentId,
} from './internal/checks.js'
import { configurationFingerprint } from './internal/fingerprint.js'
import { base64ToFloat32, float32ToBase64 } from './internal/float32-base64.js'
import { cloneJsonData, copyJsonData } from './internal/json-data.js'
import { RankedSlots, topK } from './internal/top-k.js'
import { scoreAll, writeNormalized } from './internal/vector-math.js'
import type { JsonData } from './json-data.js'
import type { VectorSearchHit } from './search-hit.js'
import type { VectorInput } from './vector-input.js'

/** The largest number of dimensions a {@link VectorSearch} accepts. */
const MAX_DIMENSIONS = 65_536

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
}

/**
 * What {@link VectorSearch.snapshot} returns: JSON-serializable, restored exactly by
 * {@link VectorSearch.restore} on a VectorSearch with the same identity, dimensions and idField.
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
 * vector with an unrolled dot-product loop and selects the top `limit` with a heap, so it is exact (no
 * approximate index) and fast up to a few hundred thousand vectors. Ties are broken by id, ascending.
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
  #documents: JsonData[] = []
  #slots = new Map<string, number>()
  #scores = new Float64Array(0)
  /** How many searches are inside a filter or groupBy callback right now (changes are refused then). */
  #callbackDepth = 0
  readonly #query: Float32Array

  constructor(options: VectorSearchOptions) {
    assertRequest(options, 'new VectorSearch', "{ identity: 'my-model', dimensions: 384 }")
    assertNonEmptyString(options.identity, 'VectorSearch identity')
    assertSafeInteger(options.dimensions, 'VectorSearch dimensions', { min: 1, max: MAX_DIMENSIONS })
    const idField = options.idField ?? 'id'
    assertNonEmptyString(idField, 'VectorSearch idField')
    this.identity = options.identity
    this.dimensions = options.dimensions
    this.idField = idField
    this.configurationFingerprint = configurationFingerprint('vector-search', {
      engine: VECTOR_ENGINE,
      identity: this.identity,
      dimensions: this.dimensions,
      idField,
    })
    this.#vectors = new Float32Array(16 * this.dimensions)
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
    return slot === undefined ? undefined : (cloneJsonData(this.#documents[slot]) as Document)
  }

  /** The ids of all documents, in storage order (removal moves the last document into the gap). */
  ids(): string[] {
    return [...this.#ids]
  }

  /**
   * Adds a document with its vector, or replaces the document and vector stored under the same id.
   *
   * @throws InvalidInputError when the document is not plain data with a string id, or the vector does
   *   not have exactly `dimensions` finite numbers (sparse arrays, NaN, all zeros)
   */
  upsert(entry: VectorUpsert<Document>): void {
    this.upsertMany([entry])
  }

  /**
   * {@link VectorSearch.upsert} for many entries at once, all or nothing: every entry is checked before
   * any is stored. When an id repeats, the last entry wins.
   */
  upsertMany(entries: readonly VectorUpsert<Document>[]): void {
    this.#assertNotInCallback('upsert')
    if (!Array.isArray(entries)) {
      throw new InvalidInputError(
        `VectorSearch upsertMany takes an array of { document, vector }, but got ${describeValue(entries)}.`,
        { details: { received: describeValue(entries) } },
      )
    }
    const dims = this.dimensions
    const count = this.#ids.length
    // Stage every vector in the spare rows after the live ones, so a rejected entry leaves the index as
    // it was and accepted ones need no second buffer.
    this.#ensureCapacity(count + entries.length)
    const vectors = this.#vectors
    const ids: string[] = new Array(entries.length)
    const documents: JsonData[] = new Array(entries.length)
    for (let i = 0; i < entries.length; i++) {
      const where = entries.length === 1 ? 'VectorSearch upsert' : `VectorSearch upsertMany entry ${i}`
      const entry: unknown = entries[i]
      assertRequest(entry, where, '{ document: { id: "a" }, vector: [0.1, 0.2] }')
      const id = readDocumentId(entry.document, this.idField, `${where} document`)
      documents[i] = copyJsonData(entry.document, `${where} document "${id}"`, 'document')
      writeNormalized(entry.vector, dims, vectors, (count + i) * dims, `${where} vector of "${id}"`)
      ids[i] = id
    }
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      let slot = this.#slots.get(id)
      if (slot === undefined) {
        slot = this.#ids.length
        this.#ids.push(id)
        this.#documents.push(documents[i]!)
        this.#slots.set(id, slot)
      } else {
        this.#documents[slot] = documents[i]!
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
      throw new InvalidInputError(`VectorSearch remove takes a string id, but got ${describeValue(id)}.`, {
        details: { received: describeValue(id) },
      })
    }
    const slot = this.#slots.get(id)
    if (slot === undefined) return false
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
  search(request: VectorSearchRequest<Document>): VectorSearchHit<Document>[] {
    assertRequest(request, 'VectorSearch search', '{ vector: [0.1, 0.2], limit: 10 }')
    const { limit, filter, groupBy, minScore } = request
    // A search started from inside a filter or groupBy callback must not overwrite the shared buffers.
    const nested = this.#callbackDepth > 0
    const query = nested ? new Float32Array(this.dimensions) : this.#query
    writeNormalized(request.vector, this.dimensions, query, 0, 'VectorSearch search vector')
    assertLimit(limit, 'VectorSearch search')
    assertOptionalFunction(filter, 'VectorSearch search filter')
    assertOptionalFunction(groupBy, 'VectorSearch search groupBy')
    if (minScore !== undefined) assertFiniteNumber(minScore, 'VectorSearch search minScore')
    const count = this.#ids.length
    if (limit === 0 || count === 0) return []
    if (!nested && this.#scores.length < count)
      this.#scores = new Float64Array(this.#vectors.length / this.dimensions)
    const scores = nested ? new Float64Array(count) : this.#scores
    scoreAll(this.#vectors, count, this.dimensions, query, scores)
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
        const stored = this.#documents[slot]
        if (
          filter &&
          !keepByFilter(filter, cloneJsonData(stored) as Document, id, 'VectorSearch search filter')
        ) {
          continue
        }
        if (groupBy) {
          const key = groupKey(groupBy, cloneJsonData(stored) as Document, id, 'VectorSearch search groupBy')
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
   */
  snapshot(): VectorSearchSnapshot {
    const count = this.#ids.length
    return {
      version: 1,
      engine: VECTOR_ENGINE,
      configurationFingerprint: this.configurationFingerprint,
      identity: this.identity,
      dimensions: this.dimensions,
      documents: this.#documents.map(cloneJsonData),
      vectors: float32ToBase64(this.#vectors, count * this.dimensions),
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
    const bad = (problem: string, details: Record<string, unknown> = {}) =>
      new InvalidStateError(`Cannot restore this VectorSearch snapshot: ${problem}`, {
        details: { identity: this.identity, dimensions: this.dimensions, ...details },
      })
    if (typeof snapshot !== 'object' || snapshot === null) {
      throw bad(`expected an object, got ${describeValue(snapshot)}.`)
    }
    const { version, engine, identity, dimensions, documents, vectors } = snapshot as unknown as Record<
      string,
      unknown
    >
    const fingerprint: unknown = snapshot.configurationFingerprint
    if (version !== 1) {
      throw bad(
        `its version is ${describeValue(version)}, but only version 1 is supported. Rebuild the index from the documents.`,
        { version },
      )
    }
    if (engine !== VECTOR_ENGINE) {
      throw bad(`its engine is ${describeValue(engine)}, expected "${VECTOR_ENGINE}".`, { engine })
    }
    if (identity !== this.identity || dimensions !== this.dimensions) {
      throw bad(
        `it holds vectors of ${describeValue(identity)} with ${describeValue(dimensions)} dimensions, but this index is for "${this.identity}" with ${this.dimensions}. Re-embed the documents with this model, or restore into a VectorSearch with the snapshot's identity.`,
        { snapshotIdentity: identity, snapshotDimensions: dimensions },
      )
    }
    if (fingerprint !== this.configurationFingerprint) {
      throw bad(
        `its configuration fingerprint ${describeValue(fingerprint)} does not match this index's "${this.configurationFingerprint}" (identity, dimensions or idField differ, or the snapshot was edited).`,
        { expected: this.configurationFingerprint, received: fingerprint },
      )
    }
    if (!Array.isArray(documents)) throw bad('its documents are not an array.')
    const dims = this.dimensions
    const data = typeof vectors === 'string' ? base64ToFloat32(vectors) : undefined
    if (data === undefined || data.length !== documents.length * dims) {
      throw bad(`its vectors are not base64 of ${documents.length * dims} float32 values.`)
    }
    const ids: string[] = new Array(documents.length)
    const copies: JsonData[] = new Array(documents.length)
    const slots = new Map<string, number>()
    for (let i = 0; i < documents.length; i++) {
      let id: string
      try {
        id = readDocumentId(documents[i], this.idField, `snapshot document ${i}`)
        copies[i] = copyJsonData(documents[i], `snapshot document "${id}"`, 'document')
      } catch (error) {
        throw bad(`document ${i} is not valid (${(error as Error).message})`, { index: i })
      }
      if (slots.has(id)) throw bad(`the id "${id}" occurs twice.`, { id })
      slots.set(id, i)
      ids[i] = id
      let norm = 0
      for (let j = i * dims; j < (i + 1) * dims; j++) {
        const x = data[j]!
        if (!Number.isFinite(x)) throw bad(`the vector of "${id}" has a non-finite value.`, { id })
        norm += x * x
      }
      if (Math.abs(norm - 1) > 1e-3) throw bad(`the vector of "${id}" is not unit length.`, { id })
    }
    this.#vectors = new Float32Array(Math.max(16, documents.length) * dims)
    this.#vectors.set(data)
    this.#ids = ids
    this.#documents = copies
    this.#slots = slots
  }

  #hit(slot: number, scores: Float64Array): VectorSearchHit<Document> {
    return {
      id: this.#ids[slot]!,
      score: scores[slot]!,
      document: cloneJsonData(this.#documents[slot]) as Document,
    }
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
    const grown = new Float32Array(Math.max(needed, this.#vectors.length * 2))
    grown.set(this.#vectors)
    this.#vectors = grown
  }
}
