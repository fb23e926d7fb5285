import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  ConflictError,
  describeValue,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type {
  KnowledgeDocumentRecord,
  KnowledgeEmbeddingSpace,
  KnowledgePassageRecord,
  KnowledgeStore,
  KnowledgeStoreBatch,
  KnowledgeStoreCallOptions,
  KnowledgeStoreContents,
} from './knowledge-store.js'

interface PublicationData {
  readonly documents: Map<string, KnowledgeDocumentRecord>
  readonly passages: Map<string, readonly KnowledgePassageRecord[]>
  /** Vectors per embedding space (`identity` and `dimensions`), by hash. */
  readonly vectors: Map<string, Map<string, Float32Array>>
  /** How many stored passages have each hash. */
  readonly refs: Map<string, number>
}

/** A deep copy of plain data (records are data); anything structuredClone refuses is a typed error. */
function copy<T>(value: T, field: string): T {
  try {
    return structuredClone(value)
  } catch (error) {
    refuseField(
      'input',
      field,
      `holds ${describeValue(value)} with something that is not data (a function, a symbol, ...). Pass plain records`,
      value,
      { cause: error },
    )
  }
}

function spaceKey(space: KnowledgeEmbeddingSpace): string {
  return JSON.stringify([space.identity, space.dimensions])
}

function checkSpace(space: unknown, field: string): void {
  assertObject(space, field, { arrays: false })
  assertNonEmptyString(space.identity, `${field}.identity`)
  assertSafeInteger(space.dimensions, `${field}.dimensions`, { min: 1 })
}

function checkSignal(options: unknown, point: string): void {
  assertObject(options, 'options', { arrays: false, hint: 'Pass { signal }.' })
  if (!(options.signal instanceof AbortSignal)) {
    refuseField(
      'input',
      'options.signal',
      `must be an AbortSignal, but got ${describeValue(options.signal)}`,
      options.signal,
    )
  }
  throwIfAborted(options.signal, point)
}

/** Checks what a memory store needs of a batch, so that a wrong call is refused before anything changes. */
function checkBatch(batch: unknown): KnowledgeStoreBatch {
  assertObject(batch, 'batch', { arrays: false, hint: 'Pass { publicationId, space, documents, vectors }.' })
  assertNonEmptyString(batch.publicationId, 'batch.publicationId')
  if (batch.space !== undefined) checkSpace(batch.space, 'batch.space')
  for (const key of ['documents', 'vectors'] as const) {
    if (!Array.isArray(batch[key])) {
      refuseField(
        'input',
        `batch.${key}`,
        `must be an array, but got ${describeValue(batch[key])}`,
        batch[key],
      )
    }
  }
  const documents = batch.documents as unknown[]
  const seen = new Set<string>()
  for (let i = 0; i < documents.length; i++) {
    const change = documents[i]
    assertObject(change, `batch.documents[${i}]`, { arrays: false })
    assertSafeInteger(change.expectedRevision, `batch.documents[${i}].expectedRevision`, { min: 0 })
    assertObject(change.record, `batch.documents[${i}].record`, { arrays: false })
    assertNonEmptyString(change.record.id, `batch.documents[${i}].record.id`)
    assertSafeInteger(change.record.revision, `batch.documents[${i}].record.revision`, { min: 1 })
    if (seen.has(change.record.id)) {
      refuseField(
        'input',
        `batch.documents[${i}].record.id`,
        `repeats "${change.record.id}", a document this batch already changes. Change each document once per batch`,
        change.record.id,
      )
    }
    seen.add(change.record.id)
    if (!Array.isArray(change.passages)) {
      refuseField(
        'input',
        `batch.documents[${i}].passages`,
        `must be an array, but got ${describeValue(change.passages)}`,
        change.passages,
      )
    }
  }
  const vectors = batch.vectors as unknown[]
  for (let i = 0; i < vectors.length; i++) {
    const entry = vectors[i]
    assertObject(entry, `batch.vectors[${i}]`, { arrays: false })
    assertNonEmptyString(entry.hash, `batch.vectors[${i}].hash`)
    if (
      batch.space === undefined ||
      !(entry.vector instanceof Float32Array) ||
      entry.vector.length !== (batch.space as KnowledgeEmbeddingSpace).dimensions
    ) {
      refuseField(
        'input',
        `batch.vectors[${i}].vector`,
        `must be a Float32Array of batch.space.dimensions numbers, but got ${describeValue(entry.vector)}`,
        entry.vector,
      )
    }
  }
  return batch as unknown as KnowledgeStoreBatch
}

/**
 * A {@link KnowledgeStore} in memory: for tests, and for Apps that publish at every start and need no
 * persistence. It keeps the store rules exactly (atomic batches, revision checks, vectors per embedding
 * space, unreferenced vectors deleted) and copies everything in and out.
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge } from '@agent-core/kits/knowledge'
 * const store = createMemoryKnowledgeStore()
 * const notes = Knowledge.defineKnowledgePublication({ id: 'notes', store })
 * await notes.publish({ materials: [{ id: 'a', text: 'Buy milk.' }] })
 * // A second publication over the same store loads what the first one published.
 * const again = Knowledge.defineKnowledgePublication({ id: 'notes', store })
 * console.log((await again.list()).map((document) => document.id)) // ['a']
 * ```
 */
export function createMemoryKnowledgeStore(): KnowledgeStore {
  const publications = new Map<string, PublicationData>()
  const dataOf = (publicationId: string): PublicationData => {
    let data = publications.get(publicationId)
    if (data === undefined) {
      data = { documents: new Map(), passages: new Map(), vectors: new Map(), refs: new Map() }
      publications.set(publicationId, data)
    }
    return data
  }
  return Object.freeze({
    async load(
      request: { readonly publicationId: string; readonly space: KnowledgeEmbeddingSpace | undefined },
      options: KnowledgeStoreCallOptions,
    ): Promise<KnowledgeStoreContents> {
      assertObject(request, 'request', { arrays: false })
      assertNonEmptyString(request.publicationId, 'request.publicationId')
      if (request.space !== undefined) checkSpace(request.space, 'request.space')
      checkSignal(options, 'before loading from the memory knowledge store')
      const data = publications.get(request.publicationId)
      const documents =
        data === undefined
          ? []
          : [...data.documents.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const passages = copy(
        documents.flatMap((record) => data?.passages.get(record.id) ?? []),
        'passages',
      )
      const vectors = new Map<string, Float32Array>()
      const stored = request.space === undefined ? undefined : data?.vectors.get(spaceKey(request.space))
      for (const [hash, vector] of stored ?? []) vectors.set(hash, new Float32Array(vector))
      return { documents: copy(documents, 'documents'), passages, vectors }
    },
    async vectors(
      request: {
        readonly publicationId: string
        readonly space: KnowledgeEmbeddingSpace
        readonly hashes: readonly string[]
      },
      options: KnowledgeStoreCallOptions,
    ): Promise<ReadonlyMap<string, Float32Array>> {
      assertObject(request, 'request', { arrays: false })
      assertNonEmptyString(request.publicationId, 'request.publicationId')
      checkSpace(request.space, 'request.space')
      if (!Array.isArray(request.hashes)) {
        refuseField(
          'input',
          'request.hashes',
          `must be an array, but got ${describeValue(request.hashes)}`,
          request.hashes,
        )
      }
      checkSignal(options, 'before reading vectors from the memory knowledge store')
      const stored = publications.get(request.publicationId)?.vectors.get(spaceKey(request.space))
      const out = new Map<string, Float32Array>()
      for (const hash of request.hashes as unknown[]) {
        const vector = typeof hash === 'string' ? stored?.get(hash) : undefined
        if (vector !== undefined) out.set(hash as string, new Float32Array(vector))
      }
      return out
    },
    async write(batch: KnowledgeStoreBatch, options: KnowledgeStoreCallOptions): Promise<void> {
      const checked = checkBatch(batch)
      checkSignal(options, 'before writing to the memory knowledge store')
      const data = dataOf(checked.publicationId)
      // Every check first, so that a refused batch changes nothing.
      for (const { expectedRevision, record } of checked.documents) {
        const stored = data.documents.get(record.id)?.revision ?? 0
        if (stored !== expectedRevision) {
          throw new ConflictError(
            `Document "${record.id}" of publication "${checked.publicationId}" is at revision ${stored} in the store, but the writer expected ${expectedRevision}: another writer changed it. Nothing was written; publish again (the publication reloads from the store first).`,
            {
              details: {
                publicationId: checked.publicationId,
                documentId: record.id,
                expectedRevision,
                storedRevision: stored,
              },
            },
          )
        }
      }
      // Copies first (a record that is not data is refused before anything changes).
      const copies = checked.documents.map((change, i) => ({
        record: copy(change.record, `batch.documents[${i}].record`),
        passages: copy([...change.passages], `batch.documents[${i}].passages`),
      }))
      const released = new Set<string>()
      for (const { record, passages } of copies) {
        for (const old of data.passages.get(record.id) ?? []) {
          const count = (data.refs.get(old.hash) ?? 1) - 1
          if (count === 0) {
            data.refs.delete(old.hash)
            released.add(old.hash)
          } else data.refs.set(old.hash, count)
        }
        data.documents.set(record.id, record)
        if (passages.length > 0) data.passages.set(record.id, passages)
        else data.passages.delete(record.id)
        for (const passage of passages) data.refs.set(passage.hash, (data.refs.get(passage.hash) ?? 0) + 1)
      }
      if (checked.space !== undefined && checked.vectors.length > 0) {
        const key = spaceKey(checked.space)
        let space = data.vectors.get(key)
        if (space === undefined) data.vectors.set(key, (space = new Map()))
        for (const { hash, vector } of checked.vectors)
          if (!space.has(hash)) space.set(hash, new Float32Array(vector))
      }
      for (const hash of released) {
        if (data.refs.has(hash)) continue
        for (const space of data.vectors.values()) space.delete(hash)
      }
    },
  })
}
