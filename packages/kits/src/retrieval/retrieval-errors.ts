import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/** Details of a {@link DuplicateRetrievalError}. */
export interface DuplicateRetrievalErrorDetails extends ErrorDetails {
  readonly retrievalId: string
  readonly key: string
}

/**
 * The request already started a query with this deduplication key (the default `errors.duplicate`).
 * @example
 * ```ts
 * import { DuplicateRetrievalError } from '@agent-core/kits/retrieval'
 * function explain(error: unknown) {
 *   if (DuplicateRetrievalError.isInstance(error)) console.log(`already read: ${error.details.key}`)
 * }
 * ```
 */
export class DuplicateRetrievalError extends AgentCoreError<DuplicateRetrievalErrorDetails> {
  static override readonly code = 'retrieval-duplicate'
  declare readonly code: 'retrieval-duplicate'
  constructor(message: string, options?: AgentCoreErrorOptions<DuplicateRetrievalErrorDetails>) {
    super('retrieval-duplicate', message, options)
  }
}
