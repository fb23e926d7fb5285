/**
 * Knowledge publication: an App publishes documents (Markdown or plain text) into a corpus that is
 * searchable at once and survives a restart. `Knowledge.defineKnowledgePublication` validates the
 * material, asks the App's `authorize` hook, splits it into retrieval passages (`TextBlocks.passages`),
 * embeds through the search kit's `Embedder` port only the passages whose text has no stored vector,
 * writes through the App's {@link KnowledgeStore} port one transaction per batch, and swaps a
 * document's passages in its `HybridSearch` in one step, so a concurrent search sees all of the old
 * revision or all of the new. Retraction removes them. The receipt says what was written, skipped and
 * why. `createMemoryKnowledgeStore` keeps it in memory; `@agent-core/kits/knowledge/sqlite` is the
 * embedded default store.
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge } from '@agent-core/kits/knowledge'
 *
 * const handbook = Knowledge.defineKnowledgePublication({ id: 'handbook', store: createMemoryKnowledgeStore() })
 * await handbook.publish({ materials: [{ id: 'leave.md', text: '# Leave\n\nAsk your manager two weeks ahead.\n' }] })
 * const again = await handbook.publish({ materials: [{ id: 'leave.md', text: '# Leave\n\nAsk your manager two weeks ahead.\n' }] })
 * console.log(again.skipped) // [{ id: 'leave.md', reason: 'unchanged', revision: 1 }]
 * const [hit] = await handbook.search({ query: 'manager', limit: 1 })
 * console.log(hit?.document.headingPath) // ['Leave']
 * ```
 *
 * @module
 */
export { defineKnowledgePublication } from './define-knowledge-publication.js'
export { Knowledge } from './knowledge.js'
export type {
  KnowledgeAuthorization,
  KnowledgeLoadRequest,
  KnowledgePassageOptions,
  KnowledgeProgressListener,
  KnowledgePublication,
  KnowledgePublicationDefinition,
  KnowledgePublishRequest,
  KnowledgeRetractRequest,
  KnowledgeSearchOptions,
} from './knowledge-definition.js'
export { KnowledgeStoreError, type KnowledgeStoreErrorDetails } from './knowledge-errors.js'
export {
  type KnowledgeFilter,
  type KnowledgeFilterValue,
  knowledgeFilterPredicate,
} from './knowledge-filter.js'
export type {
  KnowledgeDocumentChange,
  KnowledgeDocumentRecord,
  KnowledgeEmbeddingSpace,
  KnowledgePassageRecord,
  KnowledgeStore,
  KnowledgeStoreBatch,
  KnowledgeStoreCallOptions,
  KnowledgeStoreContents,
} from './knowledge-store.js'
export type {
  KnowledgeDocument,
  KnowledgeLoadResult,
  KnowledgeMaterial,
  KnowledgeMetadata,
  KnowledgePassage,
  KnowledgeProgress,
  KnowledgePublished,
  KnowledgeReceipt,
  KnowledgeRetracted,
  KnowledgeSkipped,
  KnowledgeSkipReason,
} from './knowledge-types.js'
export { createMemoryKnowledgeStore } from './memory-knowledge-store.js'
