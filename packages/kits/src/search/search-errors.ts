import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Details of {@link SearchLimitError}: what hit which engine limit, and by how much.
 * @example
 * ```ts
 * import { SearchLimitError, type SearchLimitErrorDetails } from '@agent-core/kits/search'
 *
 * function explain(error: unknown): string | undefined {
 *   if (!SearchLimitError.isInstance(error)) return undefined
 *   const { what, limit, required, unit }: SearchLimitErrorDetails = error.details
 *   return `${what} needs ${required} ${unit}, the limit is ${limit}`
 * }
 * ```
 */
export interface SearchLimitErrorDetails extends ErrorDetails {
  /** What hit the limit, e.g. `"VectorSearch JSON snapshot"` or `"VectorSearch capacity"`. */
  readonly what: string
  /** The limit, in `unit`. */
  readonly limit: number
  /** What was asked for, in `unit`. */
  readonly required: number
  /** The unit of `limit` and `required`, e.g. `"float32 values"`. */
  readonly unit: string
}

/**
 * An index or snapshot would pass a hard limit of the JavaScript engine (the longest string, the largest
 * typed array). The message states the limit and what to do instead, for example to write the snapshot
 * as a binary stream with `snapshotChunks()` rather than as JSON.
 *
 * @example
 * ```ts
 * import { SearchLimitError } from '@agent-core/kits/search'
 * import type { VectorSearch } from '@agent-core/kits/search'
 * declare const vectors: VectorSearch
 * try {
 *   vectors.snapshot()
 * } catch (error) {
 *   if (SearchLimitError.isInstance(error)) console.log(error.details.limit, error.details.unit)
 * }
 * ```
 */
export class SearchLimitError extends AgentCoreError<SearchLimitErrorDetails> {
  static override readonly code = 'search-limit'
  declare readonly code: 'search-limit'
  constructor(message: string, options?: AgentCoreErrorOptions<SearchLimitErrorDetails>) {
    super('search-limit', message, options)
  }
}

/**
 * Details of {@link EmbeddingError}: which embedder failed, on how many texts, and the HTTP status when
 * an endpoint answered.
 * @example
 * ```ts
 * import { EmbeddingError, type EmbeddingErrorDetails } from '@agent-core/kits/search'
 *
 * function retryable(error: unknown): boolean {
 *   if (!EmbeddingError.isInstance(error)) return false
 *   const { status }: EmbeddingErrorDetails = error.details
 *   return status === undefined || status === 429 || status >= 500
 * }
 * ```
 */
export interface EmbeddingErrorDetails extends ErrorDetails {
  /** The embedder's identity. */
  readonly identity?: string
  /** How many texts the failed call carried. */
  readonly texts?: number
  /** The HTTP status, when an HTTP endpoint answered with an error. */
  readonly status?: number
}

/**
 * An embedder could not embed a batch: the App's embedder threw, or an embeddings endpoint answered with
 * an error or could not be reached. The original error is the `cause`. An index whose update needed the
 * embeddings is left exactly as it was.
 *
 * @example
 * ```ts
 * import { EmbeddingError } from '@agent-core/kits/search'
 * import type { HybridSearch } from '@agent-core/kits/search'
 * declare const index: HybridSearch
 * declare const passages: Parameters<HybridSearch['upsertAll']>[0]
 * try {
 *   await index.upsertAll(passages)
 * } catch (error) {
 *   if (EmbeddingError.isInstance(error)) console.log('nothing changed; retry later', error.details.status)
 * }
 * ```
 */
export class EmbeddingError extends AgentCoreError<EmbeddingErrorDetails> {
  static override readonly code = 'embedding-failed'
  declare readonly code: 'embedding-failed'
  constructor(message: string, options?: AgentCoreErrorOptions<EmbeddingErrorDetails>) {
    super('embedding-failed', message, options)
  }
}
