import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Why a resolver could not hand out an artifact:
 * - `not-found`: no artifact with this id (for this account);
 * - `revision-mismatch`: the artifact exists, but not at the requested revision;
 * - `retired`: it existed and was deleted, archived or withdrawn;
 * - `not-ready`: it exists but is not usable yet (uploading, processing, under review).
 * @example
 * ```ts
 * import type { ArtifactUnavailableReason } from '@agent-core/kits/artifacts'
 * const reason: ArtifactUnavailableReason = 'revision-mismatch'
 * ```
 */
export type ArtifactUnavailableReason = 'not-found' | 'revision-mismatch' | 'retired' | 'not-ready'

/**
 * Details of an {@link ArtifactUnavailableError}: why the artifact cannot be handed out, which one, and the
 * revisions asked for and current, so a caller can retry at the current revision or tell the user.
 * @example
 * ```ts
 * import { ArtifactUnavailableError, defineArtifactCatalog } from '@agent-core/kits/artifacts'
 *
 * const catalog = defineArtifactCatalog([
 *   {
 *     id: 'docs',
 *     resolve(reference): string {
 *       throw new ArtifactUnavailableError(`Document "${reference.artifactId}" is at revision "r3".`, {
 *         details: { reason: 'revision-mismatch', ...reference, currentRevision: 'r3' },
 *       })
 *     },
 *   },
 * ])
 * try {
 *   await catalog.resolve({ resolverId: 'docs', artifactId: 'doc-7', revision: 'r9' })
 * } catch (error) {
 *   if (ArtifactUnavailableError.isInstance(error) && error.details.reason === 'revision-mismatch')
 *     console.log(`ask for ${error.details.currentRevision} instead of ${error.details.revision}`)
 * }
 * ```
 */
export interface ArtifactUnavailableErrorDetails extends ErrorDetails {
  readonly reason: ArtifactUnavailableReason
  readonly resolverId: string
  readonly artifactId: string
  /** The revision asked for, when one was. */
  readonly revision?: string | undefined
  /** The artifact's current revision, when the resolver may say it. */
  readonly currentRevision?: string | undefined
}

/**
 * What a resolver throws when the referenced artifact cannot be handed out: it does not exist (for this
 * account), not at that revision, any more, or not yet. Refusing the account itself is core's
 * `UnauthorizedError`.
 * @example
 * ```ts
 * import { ArtifactUnavailableError } from '@agent-core/kits/artifacts'
 * throw new ArtifactUnavailableError('Document "doc-7" has no revision "r9"; the current one is "r3".', {
 *   details: { reason: 'revision-mismatch', resolverId: 'docs', artifactId: 'doc-7', revision: 'r9', currentRevision: 'r3' },
 * })
 * ```
 */
export class ArtifactUnavailableError extends AgentCoreError<ArtifactUnavailableErrorDetails> {
  static override readonly code = 'artifact-unavailable'
  declare readonly code: 'artifact-unavailable'
  constructor(message: string, options?: AgentCoreErrorOptions<ArtifactUnavailableErrorDetails>) {
    super('artifact-unavailable', message, options)
  }
}
