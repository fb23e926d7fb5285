/** Garbage in, typed errors out: artifact catalogs (property). */
import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, garbage } from '../testing/garbage.js'
import { defineArtifactCatalog } from './index.js'

async function typedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AppError) return
    if (!AgentCoreError.isInstance(error))
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

describe('artifacts kit: garbage input (property)', () => {
  it('rejects garbage only with AgentCoreError', async () => {
    const catalog = defineArtifactCatalog([{ id: 'docs', resolve: (reference) => reference.artifactId }])
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (a, b, c) => {
        await typedOrSuccess(() => defineArtifactCatalog(a as never))
        await typedOrSuccess(() => defineArtifactCatalog([{ id: a, resolve: b }] as never))
        await typedOrSuccess(() => catalog.resolve(a as never, b as never))
        await typedOrSuccess(() =>
          catalog.resolve({ resolverId: 'docs', artifactId: a, revision: b } as never, c as never),
        )
        await typedOrSuccess(() => catalog.resolve({ resolverId: a, artifactId: 'x' } as never))
        const odd = defineArtifactCatalog([{ id: 'odd', resolve: () => a }])
        // A resolver may answer a thenable that never settles: the signal bounds the wait.
        await typedOrSuccess(() =>
          odd.resolve({ resolverId: 'odd', artifactId: 'x' }, { signal: AbortSignal.timeout(20) }),
        )
      }),
      { numRuns: 500 },
    )
  })
})
