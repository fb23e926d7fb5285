import type { MaybePromise, OperationContext, OperationContextInit } from '@agent-core/core'
import type {
  Embedder,
  HybridFusionOptions,
  HybridSearchHit,
  HybridSearchRequest,
  TextAnalyzer,
} from '@agent-core/kits/search'
import type { KnowledgeStore } from './knowledge-store.js'
import type {
  KnowledgeDocument,
  KnowledgeLoadResult,
  KnowledgeMaterial,
  KnowledgePassage,
  KnowledgeProgress,
  KnowledgeReceipt,
} from './knowledge-types.js'

/**
 * How materials are cut into passages (`TextBlocks.passages`). Changing either makes every document a new
 * revision on its next publication (its passages change), but passages whose text is unchanged keep their
 * vectors.
 *
 * @example
 * ```ts
 * import type { KnowledgePassageOptions } from '@agent-core/kits/knowledge'
 * // A model that reads 512 tokens sees about 2,000 characters of English.
 * const passages: KnowledgePassageOptions = { targetChars: 1800, overlapChars: 150 }
 * ```
 */
export interface KnowledgePassageOptions {
  /** The size a passage should not grow past: a positive safe integer. Default 900. */
  readonly targetChars?: number | undefined
  /** How much of the previous passage of the same section to repeat: 0 (default) to `targetChars - 1`. */
  readonly overlapChars?: number | undefined
}

/**
 * How the publication's hybrid index ranks passages (see `HybridSearch` of `@agent-core/kits/search`).
 *
 * @example
 * ```ts
 * import type { KnowledgeSearchOptions } from '@agent-core/kits/knowledge'
 * import { standardAnalyzer } from '@agent-core/kits/search'
 * const search: KnowledgeSearchOptions = { boost: { title: 3, headingPath: 2 }, analyzer: standardAnalyzer }
 * ```
 */
export interface KnowledgeSearchOptions {
  /** Text-score multipliers per field. Default `{ title: 3, headingPath: 2 }`. */
  readonly boost?:
    | { readonly title?: number; readonly headingPath?: number; readonly text?: number }
    | undefined
  /** The text analysis. Default `englishAnalyzer`. */
  readonly analyzer?: TextAnalyzer | undefined
  /** How the text and vector rankings fuse. */
  readonly fusion?: HybridFusionOptions | undefined
}

/**
 * What `authorize` is asked: who publishes or retracts is in the context (`context.app`), what is in
 * the request.
 *
 * @example
 * ```ts
 * import type { KnowledgeAuthorization } from '@agent-core/kits/knowledge'
 * const describe = (request: KnowledgeAuthorization) =>
 *   request.action === 'publish' ? `${request.materials.length} materials` : `${request.ids.length} retractions`
 * ```
 */
export type KnowledgeAuthorization =
  | {
      readonly action: 'publish'
      readonly publicationId: string
      /** The checked materials (frozen copies), unchanged ones included. */
      readonly materials: readonly KnowledgeMaterial[]
    }
  | {
      readonly action: 'retract'
      readonly publicationId: string
      readonly ids: readonly string[]
    }

/**
 * A knowledge publication: what an App publishes, where, and who may.
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, type KnowledgePublicationDefinition } from '@agent-core/kits/knowledge'
 * import { UnauthorizedError } from '@agent-core/core'
 * interface App { readonly role: 'editor' | 'reader' }
 * const definition: KnowledgePublicationDefinition<App> = {
 *   id: 'handbook',
 *   store: createMemoryKnowledgeStore(),
 *   passages: { targetChars: 900 },
 *   authorize: (_request, context) => {
 *     if (context.app.role !== 'editor') throw new UnauthorizedError('Only editors publish to the handbook.')
 *   },
 * }
 * ```
 */
export interface KnowledgePublicationDefinition<App = unknown> {
  /** Names the publication: its key in the store, so one store can hold several publications. */
  readonly id: string
  /** Where documents, revisions, passages and vectors are kept (the App's store port). */
  readonly store: KnowledgeStore
  /**
   * The embedding model (the search kit's `Embedder` port). Without one, passages are searched by text
   * only. Its `identity` and `dimensions` key the stored vectors: a different model re-embeds.
   */
  readonly embedder?: Embedder | undefined
  /** How materials are cut into passages. */
  readonly passages?: KnowledgePassageOptions | undefined
  /**
   * The App's own check of each material (synchronous, after the kit's checks): throw to refuse; the
   * call is refused before anything is authorized, embedded or written.
   */
  readonly assertMaterial?: ((material: KnowledgeMaterial) => void) | undefined
  /**
   * Decides whether this caller may publish or retract (identity stays in `context.app`). Return nothing
   * to allow, throw to refuse (the error passes through unchanged; nothing is embedded or written). May
   * be async.
   */
  readonly authorize?:
    | ((request: KnowledgeAuthorization, context: OperationContext<App>) => MaybePromise<void>)
    | undefined
  /**
   * How many passages one store transaction holds, at most about (a document is never split across two):
   * a safe integer of at least 1. Default 256.
   */
  readonly passagesPerBatch?: number | undefined
  /** How the index ranks passages. */
  readonly search?: KnowledgeSearchOptions | undefined
}

/**
 * Reports progress; synchronous (a returned Promise is refused). Called only between steps, never while
 * a batch is half-applied.
 *
 * @example
 * ```ts
 * import type { KnowledgeProgressListener } from '@agent-core/kits/knowledge'
 * const log: KnowledgeProgressListener = (progress) => console.log(progress.phase, progress.embedded, progress.toEmbed)
 * ```
 */
export type KnowledgeProgressListener = (progress: KnowledgeProgress) => void

/**
 * What `publish` takes.
 *
 * @example
 * ```ts
 * import type { KnowledgePublishRequest } from '@agent-core/kits/knowledge'
 * const request: KnowledgePublishRequest = {
 *   materials: [{ id: 'faq.md', text: '# FAQ\n\nAsk us anything.\n' }],
 *   onProgress: (progress) => console.log(progress.documentsDone, '/', progress.documents),
 * }
 * ```
 */
export interface KnowledgePublishRequest {
  /** The documents to publish, each with a distinct id. */
  readonly materials: readonly KnowledgeMaterial[]
  readonly onProgress?: KnowledgeProgressListener | undefined
}

/**
 * What `retract` takes.
 *
 * @example
 * ```ts
 * import type { KnowledgeRetractRequest } from '@agent-core/kits/knowledge'
 * const request: KnowledgeRetractRequest = { ids: ['old/notes.md'] }
 * ```
 */
export interface KnowledgeRetractRequest {
  /** The ids of the documents to retract, each once. */
  readonly ids: readonly string[]
  readonly onProgress?: KnowledgeProgressListener | undefined
}

/**
 * What `load` takes.
 *
 * @example
 * ```ts
 * import type { KnowledgeLoadRequest } from '@agent-core/kits/knowledge'
 * const request: KnowledgeLoadRequest = { onProgress: (progress) => console.log(progress.phase, progress.passagesDone) }
 * ```
 */
export interface KnowledgeLoadRequest {
  readonly onProgress?: KnowledgeProgressListener | undefined
}

/**
 * A defined publication: publish, retract, list and search. It keeps the hybrid index of its published
 * passages in memory and its store in step with it. The first call reads the store; the in-memory index
 * is built from what it read on the first call that needs it (a search, a passage, a change to apply) or
 * by `load`, so a list or a publish of unchanged materials does not analyse every stored passage.
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge } from '@agent-core/kits/knowledge'
 * const handbook = Knowledge.defineKnowledgePublication({ id: 'handbook', store: createMemoryKnowledgeStore() })
 * await handbook.publish({ materials: [{ id: 'leave.md', text: '# Leave\n\nAsk your manager two weeks ahead.\n' }] })
 * const [hit] = await handbook.search({ query: 'leave', limit: 1 })
 * console.log(hit?.document.documentId) // "leave.md"
 * ```
 */
export interface KnowledgePublication<App = unknown> {
  /** The definition's id. */
  readonly id: string
  /** The definition's embedder. */
  readonly embedder: Embedder | undefined
  /**
   * Loads the index from the store and builds it now (the first call of any other method reads the store
   * too, and builds the index when it first needs it): documents, passages and their stored vectors,
   * without embedding anything the store holds a vector for. A later call reloads; searches keep using
   * the previous index until the new one is complete.
   */
  load(
    request?: KnowledgeLoadRequest,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<KnowledgeLoadResult>
  /**
   * Publishes materials: checks them, authorizes, skips unchanged ones, splits the others into passages,
   * embeds the passages whose text has no stored vector, and writes each batch to the store in one
   * transaction before the index swaps the document's old passages for the new ones in one step.
   */
  publish(
    request: KnowledgePublishRequest,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<KnowledgeReceipt>
  /** Retracts documents: authorizes, then removes their passages from the store and the index. */
  retract(
    request: KnowledgeRetractRequest,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<KnowledgeReceipt>
  /** The published documents, ordered by id. */
  list(context?: OperationContext<App> | OperationContextInit<App>): Promise<readonly KnowledgeDocument[]>
  /** Searches the published passages (hybrid: text and vectors, see `HybridSearch.search`). */
  search(
    request: HybridSearchRequest<KnowledgePassage>,
  ): Promise<readonly HybridSearchHit<KnowledgePassage>[]>
  /** A published passage by id, or `undefined` (a passage of an older revision is gone). */
  passage(id: string): Promise<KnowledgePassage | undefined>
}
