import assert from 'node:assert/strict'
import {
  type ArtifactReference,
  ArtifactUnavailableError,
  defineArtifactCatalog,
} from '@agent-core/kits/artifacts'

const reports = new Map([['q1', { revision: 'r3', text: 'Revenue grew 12%.' }]])
const catalog = defineArtifactCatalog([
  {
    id: 'reports' as const,
    resolve(reference: ArtifactReference) {
      const report = reports.get(reference.artifactId)
      if (!report || (reference.revision !== undefined && reference.revision !== report.revision)) {
        throw new ArtifactUnavailableError(`There is no report "${reference.artifactId}" at that revision.`, {
          details: {
            reason: report ? 'revision-mismatch' : 'not-found',
            resolverId: reference.resolverId,
            artifactId: reference.artifactId,
            revision: reference.revision,
            currentRevision: report?.revision,
          },
        })
      }
      return report.text
    },
  },
])

// Extra members of a reference (a url, a path) never reach the resolver.
const tampered = { resolverId: 'reports' as const, artifactId: 'q1', url: 'https://elsewhere.example/q9' }
assert.equal(await catalog.resolve(tampered), 'Revenue grew 12%.')
await assert.rejects(
  catalog.resolve({ resolverId: 'reports', artifactId: 'q1', revision: 'r1' }),
  (error) => ArtifactUnavailableError.isInstance(error) && error.details.reason === 'revision-mismatch',
)
