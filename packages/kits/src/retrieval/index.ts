/**
 * Retrieval with its rules in one place: {@link defineRetrieval} checks the input, deduplicates queries
 * per request, enforces the request's query limit, authorizes, reads, binds each result to a request-wide
 * source id and submits the evidence through named effects, in that order. The request's state and
 * budget live in a {@link RetrievalLedger} that the App keeps in `context.app`; definitions bind none.
 *
 * @example
 * ```ts
 * import { defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'
 *
 * const faq = ['How do I deploy?', 'How do I preview?']
 * const search = defineRetrieval({
 *   id: 'faq',
 *   assertInput(input: unknown): asserts input is string {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query: string) => query.toLowerCase(),
 *   ledger: (context: { app: { ledger: RetrievalLedger } }) => context.app.ledger,
 *   execute: (query: string) => faq.filter((entry) => entry.toLowerCase().includes(query.toLowerCase())),
 * })
 * const receipt = search.run('deploy', { app: { ledger: new RetrievalLedger({ limit: 3 }) } })
 * console.log(receipt.sources[0]?.sourceId) // "S1"
 * ```
 *
 * @module
 */
export {
  type AsyncRetrieval,
  type AsyncRetrievalDefinition,
  type AsyncRetrievalEffect,
  defineRetrieval,
  type Retrieval,
  type RetrievalDefinition,
  type RetrievalDefinitionBase,
  type RetrievalEffect,
  type RetrievalErrorFactories,
  type RetrievalReceipt,
  type RetrievalRejection,
  type RetrievalSource,
  type RetrievalSubmission,
} from './define-retrieval.js'
export { DuplicateRetrievalError, type DuplicateRetrievalErrorDetails } from './retrieval-errors.js'
export {
  RetrievalLedger,
  type RetrievalLedgerInit,
  type RetrievalLedgerSnapshot,
  type SeenRetrievalKey,
} from './retrieval-ledger.js'
