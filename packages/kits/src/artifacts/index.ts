/**
 * Artifacts by reference: {@link defineArtifactCatalog} routes an {@link ArtifactReference}
 * (`{ resolverId, artifactId, revision? }`) to the resolver registered as `resolverId`, which checks the
 * account, existence, revision and lifecycle and returns the artifact. Only those fields select the
 * resource; cancellation interrupts the wait and consumes late rejections.
 *
 * @example
 * ```ts
 * import { ArtifactUnavailableError, defineArtifactCatalog } from '@agent-core/kits/artifacts'
 *
 * const reports = new Map([['q1', { revision: 'r2', text: 'Revenue grew.' }]])
 * const catalog = defineArtifactCatalog([
 *   {
 *     id: 'reports',
 *     resolve(reference) {
 *       const report = reports.get(reference.artifactId)
 *       if (!report) throw new ArtifactUnavailableError('No such report.', { details: { reason: 'not-found', ...reference } })
 *       return report.text
 *     },
 *   },
 * ])
 * const text = await catalog.resolve({ resolverId: 'reports', artifactId: 'q1' })
 * ```
 *
 * @module
 */
export {
  type AnyArtifactResolver,
  type ArtifactAppFor,
  type ArtifactCatalog,
  type ArtifactOutputFor,
  type ArtifactReference,
  type ArtifactResolver,
  type ArtifactResolverIdOf,
  defineArtifactCatalog,
} from './artifact-catalog.js'
export {
  ArtifactUnavailableError,
  type ArtifactUnavailableErrorDetails,
  type ArtifactUnavailableReason,
} from './artifact-errors.js'
