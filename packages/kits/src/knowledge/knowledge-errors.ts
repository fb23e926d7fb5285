import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Details of {@link KnowledgeStoreError}.
 *
 * @example
 * ```ts
 * import type { KnowledgeStoreErrorDetails } from '@agent-core/kits/knowledge'
 * const details: KnowledgeStoreErrorDetails = { publicationId: 'docs', operation: 'write' }
 * ```
 */
export interface KnowledgeStoreErrorDetails extends ErrorDetails {
  /** The publication whose data was read or written. */
  readonly publicationId?: string
  /** `"open"`, `"load"`, `"vectors"` or `"write"`. */
  readonly operation?: string
}

/**
 * A knowledge store could not complete an operation: the database is unreachable, busy, closed, corrupt,
 * or the App's store threw. The original error is the `cause`. A failed `write` wrote nothing, and the
 * publication's index is unchanged.
 *
 * @example
 * ```ts
 * import { KnowledgeStoreError } from '@agent-core/kits/knowledge'
 * import type { KnowledgeMaterial, KnowledgePublication } from '@agent-core/kits/knowledge'
 * declare const materials: KnowledgeMaterial[]
 * declare const publication: KnowledgePublication
 * try {
 *   await publication.publish({ materials })
 * } catch (error) {
 *   if (KnowledgeStoreError.isInstance(error)) console.log('nothing was published; retry later', error.details.operation)
 * }
 * ```
 */
export class KnowledgeStoreError extends AgentCoreError<KnowledgeStoreErrorDetails> {
  static override readonly code = 'knowledge-store-failed'
  declare readonly code: 'knowledge-store-failed'
  constructor(message: string, options?: AgentCoreErrorOptions<KnowledgeStoreErrorDetails>) {
    super('knowledge-store-failed', message, options)
  }
}
