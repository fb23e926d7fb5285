import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Details of a {@link DuplicateRetrievalError}: the retrieval and the deduplication key the request
 * already read.
 * @example
 * ```ts
 * import { DuplicateRetrievalError, defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'
 *
 * const notes = defineRetrieval({
 *   id: 'notes',
 *   assertInput(input: unknown): asserts input is string {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query: string) => query.trim().toLowerCase(),
 *   ledger: (context: { app: { ledger: RetrievalLedger } }) => context.app.ledger,
 *   execute: (query: string) => [`a note on ${query}`],
 * })
 * const app = { ledger: new RetrievalLedger({ limit: 5 }) }
 * notes.run('Deploy', { app })
 * try {
 *   notes.run('deploy ', { app })
 * } catch (error) {
 *   if (DuplicateRetrievalError.isInstance(error))
 *     console.log(`${error.details.retrievalId} already read "${error.details.key}"`) // notes already read "deploy"
 * }
 * ```
 */
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
