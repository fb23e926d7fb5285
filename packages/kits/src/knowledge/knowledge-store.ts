import type { KnowledgeMetadata } from './knowledge-types.js'

/**
 * The embedding space a store keeps vectors for: the embedder's `identity` and `dimensions`. Vectors of
 * another identity or length are never returned, so a changed model re-embeds instead of mixing vectors.
 *
 * @example
 * ```ts
 * import type { KnowledgeEmbeddingSpace } from '@agent-core/kits/knowledge'
 * const space: KnowledgeEmbeddingSpace = { identity: 'text-embedding-3-small', dimensions: 1536 }
 * ```
 */
export interface KnowledgeEmbeddingSpace {
  readonly identity: string
  readonly dimensions: number
}

/**
 * A document row of a store: the current revision of a published document, or the last revision of a
 * retracted one (`retractedAtMs` set, no passages). Retracted rows keep revision numbers from being
 * reused.
 *
 * @example
 * ```ts
 * import type { KnowledgeDocumentRecord } from '@agent-core/kits/knowledge'
 * const record: KnowledgeDocumentRecord = {
 *   id: 'guide.md', revision: 2, contentHash: 'q1-...', passageCount: 4, publishedAtMs: 1_700_000_000_000,
 * }
 * ```
 */
export interface KnowledgeDocumentRecord {
  readonly id: string
  readonly revision: number
  readonly contentHash: string
  readonly title?: string | undefined
  readonly metadata?: KnowledgeMetadata | undefined
  readonly passageCount: number
  readonly publishedAtMs: number
  /** Set when the document is retracted. */
  readonly retractedAtMs?: number | undefined
}

/**
 * A passage row of a store. `hash` is the SHA-256 (base64url) of the text that was embedded for it, the
 * key of its vector.
 *
 * @example
 * ```ts
 * import type { KnowledgePassageRecord } from '@agent-core/kits/knowledge'
 * const record: KnowledgePassageRecord = {
 *   id: 'guide.md@2#1', documentId: 'guide.md', revision: 2, number: 1, headingPath: ['Guide'],
 *   text: '# Guide\n\nHello.\n', start: 0, end: 16, startLine: 1, endLine: 3, hash: 'x3...',
 * }
 * ```
 */
export interface KnowledgePassageRecord {
  readonly id: string
  readonly documentId: string
  readonly revision: number
  readonly number: number
  readonly headingPath: readonly string[]
  readonly text: string
  readonly start: number
  readonly end: number
  readonly startLine: number
  readonly endLine: number
  readonly hash: string
}

/**
 * One document's change in a {@link KnowledgeStoreBatch}: its new row (a new revision, or a retraction)
 * and the passages that replace all of its stored passages. `expectedRevision` is the revision the
 * publication believes is stored (0 for none); a store refuses the whole batch when it differs.
 *
 * @example
 * ```ts
 * import type { KnowledgeDocumentChange } from '@agent-core/kits/knowledge'
 * const retraction: KnowledgeDocumentChange = {
 *   expectedRevision: 2,
 *   record: { id: 'old.md', revision: 2, contentHash: 'q1-...', passageCount: 0, publishedAtMs: 1, retractedAtMs: 2 },
 *   passages: [],
 * }
 * ```
 */
export interface KnowledgeDocumentChange {
  readonly expectedRevision: number
  readonly record: KnowledgeDocumentRecord
  readonly passages: readonly KnowledgePassageRecord[]
}

/**
 * What one store transaction writes: document changes and the new vectors of one embedding space.
 *
 * @example
 * ```ts
 * import type { KnowledgeStoreBatch } from '@agent-core/kits/knowledge'
 * const vectorsOnly: KnowledgeStoreBatch = {
 *   publicationId: 'docs',
 *   space: { identity: 'toy', dimensions: 2 },
 *   documents: [],
 *   vectors: [{ hash: 'x3...', vector: new Float32Array([0.6, 0.8]) }],
 * }
 * ```
 */
export interface KnowledgeStoreBatch {
  readonly publicationId: string
  /** The embedding space of `vectors`; `undefined` for a publication without an embedder. */
  readonly space: KnowledgeEmbeddingSpace | undefined
  readonly documents: readonly KnowledgeDocumentChange[]
  /** New vectors by passage hash (a store keeps the first vector written for a hash). */
  readonly vectors: readonly { readonly hash: string; readonly vector: Float32Array }[]
}

/**
 * What a store holds for one publication.
 *
 * @example
 * ```ts
 * import type { KnowledgeStoreContents } from '@agent-core/kits/knowledge'
 * const count = (contents: KnowledgeStoreContents) => `${contents.passages.length} passages, ${contents.vectors.size} vectors`
 * ```
 */
export interface KnowledgeStoreContents {
  /** Every document row, published or retracted. */
  readonly documents: readonly KnowledgeDocumentRecord[]
  /** The passages of the published documents. */
  readonly passages: readonly KnowledgePassageRecord[]
  /** The stored vectors of the requested embedding space, by passage hash. */
  readonly vectors: ReadonlyMap<string, Float32Array>
}

/**
 * Options of every store call.
 *
 * @example
 * ```ts
 * import type { KnowledgeStoreCallOptions } from '@agent-core/kits/knowledge'
 * const options: KnowledgeStoreCallOptions = { signal: AbortSignal.timeout(5_000) }
 * ```
 */
export interface KnowledgeStoreCallOptions {
  /** Cancels the call; a store checks it before it starts writing and never stops half-way. */
  readonly signal: AbortSignal
}

/**
 * The App's store port: where a publication keeps documents, revisions, passages and their vectors so
 * that they survive a restart without re-embedding. `@agent-core/kits/knowledge/sqlite` ships the
 * embedded default and {@link createMemoryKnowledgeStore} an in-memory one; any object with these three
 * methods works.
 *
 * The rules a store keeps:
 * - `write` is atomic: it resolves once everything is committed, or rejects with nothing written. It
 *   refuses a batch (a `ConflictError`, nothing written) when a document's stored revision is not its
 *   `expectedRevision` (0 = no row), which is how a publication notices another writer.
 * - A document change replaces all stored passages of that document. After a write, a store may delete
 *   vectors that no passage of the publication references any more (of any embedding space).
 * - `load` and `vectors` return only vectors of the requested space (identity and dimensions).
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, type KnowledgeStore } from '@agent-core/kits/knowledge'
 * const store: KnowledgeStore = createMemoryKnowledgeStore()
 * const contents = await store.load({ publicationId: 'docs', space: undefined }, { signal: new AbortController().signal })
 * console.log(contents.documents.length) // 0
 * ```
 */
export interface KnowledgeStore {
  /** Everything one publication holds, with the vectors of `space`. */
  load(
    request: { readonly publicationId: string; readonly space: KnowledgeEmbeddingSpace | undefined },
    options: KnowledgeStoreCallOptions,
  ): Promise<KnowledgeStoreContents>
  /** The stored vectors of `space` for these hashes (missing ones are left out). */
  vectors(
    request: {
      readonly publicationId: string
      readonly space: KnowledgeEmbeddingSpace
      readonly hashes: readonly string[]
    },
    options: KnowledgeStoreCallOptions,
  ): Promise<ReadonlyMap<string, Float32Array>>
  /** Applies one batch atomically (see the rules above). */
  write(batch: KnowledgeStoreBatch, options: KnowledgeStoreCallOptions): Promise<void>
}
