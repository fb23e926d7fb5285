import { defineKnowledgePublication } from './define-knowledge-publication.js'

/**
 * The knowledge kit's namespace, as the contract names it: `Knowledge.defineKnowledgePublication`.
 * The same function is also a named export.
 *
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge } from '@agent-core/kits/knowledge'
 * const handbook = Knowledge.defineKnowledgePublication({ id: 'handbook', store: createMemoryKnowledgeStore() })
 * ```
 */
export const Knowledge: {
  /** Defines a knowledge publication (see {@link defineKnowledgePublication}). */
  readonly defineKnowledgePublication: typeof defineKnowledgePublication
} = Object.freeze({ defineKnowledgePublication })
