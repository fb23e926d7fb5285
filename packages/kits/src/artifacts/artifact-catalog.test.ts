import {
  AbortedError,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  type OperationContext,
  Registry,
  UnauthorizedError,
  UnknownIdError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import {
  type ArtifactReference,
  type ArtifactResolver,
  ArtifactUnavailableError,
  defineArtifactCatalog,
} from './index.js'

interface Doc {
  readonly owner: string
  readonly revision: string
  readonly status: 'published' | 'retired' | 'processing'
  readonly body: string
}
interface App {
  readonly userId: string
}

const store = new Map<string, Doc>([
  ['doc-1', { owner: 'u1', revision: 'r2', status: 'published', body: 'Deploy with cf push.' }],
  ['doc-2', { owner: 'u2', revision: 'r1', status: 'published', body: 'Private.' }],
  ['doc-3', { owner: 'u1', revision: 'r5', status: 'retired', body: 'Old.' }],
  ['doc-4', { owner: 'u1', revision: 'r1', status: 'processing', body: '' }],
])

/** A resolver over the store that validates account, existence, revision and lifecycle, and records calls. */
function docsResolver(log: string[]): ArtifactResolver<string, App, 'docs'> {
  return {
    id: 'docs',
    resolve(reference, context) {
      log.push(`resolve ${JSON.stringify(reference)}`)
      const doc = store.get(reference.artifactId)
      const where = {
        resolverId: reference.resolverId,
        artifactId: reference.artifactId,
        revision: reference.revision,
      }
      if (!doc || doc.owner !== context.app.userId) {
        if (doc)
          throw new UnauthorizedError(`User ${context.app.userId} may not read ${reference.artifactId}.`)
        throw new ArtifactUnavailableError('No such document.', {
          details: { reason: 'not-found', ...where },
        })
      }
      if (reference.revision !== undefined && reference.revision !== doc.revision) {
        throw new ArtifactUnavailableError('Wrong revision.', {
          details: { reason: 'revision-mismatch', ...where, currentRevision: doc.revision },
        })
      }
      if (doc.status === 'retired')
        throw new ArtifactUnavailableError('Retired.', { details: { reason: 'retired', ...where } })
      if (doc.status !== 'published') {
        throw new ArtifactUnavailableError('Not ready.', { details: { reason: 'not-ready', ...where } })
      }
      return doc.body
    },
  }
}

const u1 = { app: { userId: 'u1' } }

describe('defineArtifactCatalog', () => {
  it('routes a reference to its resolver, which validates account, existence, revision and lifecycle', async () => {
    const catalog = defineArtifactCatalog([docsResolver([])])
    await expect(catalog.resolve({ resolverId: 'docs', artifactId: 'doc-1' }, u1)).resolves.toBe(
      'Deploy with cf push.',
    )
    await expect(
      catalog.resolve({ resolverId: 'docs', artifactId: 'doc-1', revision: 'r2' }, u1),
    ).resolves.toBe('Deploy with cf push.')
    const reasons = await Promise.all(
      [
        { resolverId: 'docs', artifactId: 'doc-9' },
        { resolverId: 'docs', artifactId: 'doc-1', revision: 'r1' },
        { resolverId: 'docs', artifactId: 'doc-3' },
        { resolverId: 'docs', artifactId: 'doc-4' },
      ].map((reference) =>
        catalog
          .resolve(reference as ArtifactReference & { resolverId: 'docs' }, u1)
          .catch((error: unknown) => error),
      ),
    )
    expect(reasons.map((error) => (error as ArtifactUnavailableError).details.reason)).toEqual([
      'not-found',
      'revision-mismatch',
      'retired',
      'not-ready',
    ])
    expect((reasons[1] as ArtifactUnavailableError).details.currentRevision).toBe('r2')
    await expect(catalog.resolve({ resolverId: 'docs', artifactId: 'doc-2' }, u1)).rejects.toSatisfy(
      (error) => UnauthorizedError.isInstance(error),
    )
  })

  it('hands the resolver only resolverId, artifactId and revision: extra URL or path fields never select', async () => {
    const log: string[] = []
    const catalog = defineArtifactCatalog([docsResolver(log)])
    const reference = {
      resolverId: 'docs' as const,
      artifactId: 'doc-1',
      url: 'https://evil.example/doc-2',
      path: '../../doc-2',
      id: 'doc-2',
    }
    await expect(catalog.resolve(reference, u1)).resolves.toBe('Deploy with cf push.')
    expect(log).toEqual(['resolve {"resolverId":"docs","artifactId":"doc-1"}'])
  })

  it('reads each reference field once, so a class instance or getter cannot switch the resource', async () => {
    let reads = 0
    class Ref {
      readonly resolverId = 'docs' as const
      get artifactId() {
        reads += 1
        return reads === 1 ? 'doc-1' : 'doc-2'
      }
    }
    const received: ArtifactReference[] = []
    const catalog = defineArtifactCatalog([
      {
        id: 'docs',
        resolve: (reference: ArtifactReference) => {
          received.push(reference)
          return reference.artifactId
        },
      },
    ])
    await expect(catalog.resolve(new Ref())).resolves.toBe('doc-1')
    expect(reads).toBe(1)
    expect(Object.isFrozen(received[0])).toBe(true)
  })

  it('checks in order: reference, resolver, signal, then calls the resolver as a method', async () => {
    const log: string[] = []
    class Counter implements ArtifactResolver<number> {
      readonly id = 'count'
      #calls = 0
      resolve() {
        log.push('resolve')
        this.#calls += 1
        return this.#calls
      }
    }
    const catalog = defineArtifactCatalog([new Counter()])
    const aborted = new AbortController()
    aborted.abort()
    await expect(catalog.resolve({ resolverId: 'count', artifactId: '' })).rejects.toThrow(/artifactId/)
    await expect(catalog.resolve({ resolverId: 'nope', artifactId: 'a' } as never)).rejects.toSatisfy(
      (error) => UnknownIdError.isInstance(error),
    )
    await expect(
      catalog.resolve({ resolverId: 'count', artifactId: 'a' }, { signal: aborted.signal }),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(log).toEqual([])
    await expect(catalog.resolve({ resolverId: 'count', artifactId: 'a' })).resolves.toBe(1)
    await expect(catalog.resolve({ resolverId: 'count', artifactId: 'a' })).resolves.toBe(2)
  })

  it('a cancellation interrupts the wait; the late rejection is consumed and never unhandled', async () => {
    let rejectLate: (error: Error) => void = () => {}
    let seen: AbortSignal | undefined
    const catalog = defineArtifactCatalog([
      {
        id: 'slow',
        resolve: (_reference: ArtifactReference, context: OperationContext) => {
          seen = context.signal
          return new Promise<string>((_resolve, reject) => {
            rejectLate = reject
          })
        },
      },
    ])
    const controller = new AbortController()
    const pending = catalog.resolve({ resolverId: 'slow', artifactId: 'a' }, { signal: controller.signal })
    controller.abort(new Error('user navigated away'))
    const error = await pending.catch((e: unknown) => e)
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).details.point).toBe('resolving artifact "a" of resolver "slow"')
    expect(seen?.aborted).toBe(true)
    rejectLate(new Error('the read failed later'))
    await new Promise((resolve) => setTimeout(resolve, 5))
  })

  it('a synchronous throw becomes a rejection; returning undefined is refused', async () => {
    const boom = new Error('disk error')
    const catalog = defineArtifactCatalog([
      {
        id: 'throws',
        resolve: () => {
          throw boom
        },
      },
      { id: 'nothing', resolve: () => undefined },
    ])
    const pending = catalog.resolve({ resolverId: 'throws', artifactId: 'a' })
    await expect(pending).rejects.toBe(boom)
    await expect(catalog.resolve({ resolverId: 'nothing', artifactId: 'a' })).rejects.toSatisfy((error) =>
      InvalidOutputError.isInstance(error),
    )
  })

  it('opens one artifact-resolve span per call that reached its resolver', async () => {
    const sink = new MemoryDiagnosticSink()
    const catalog = defineArtifactCatalog([docsResolver([])])
    await catalog.resolve({ resolverId: 'docs', artifactId: 'doc-1' }, { ...u1, diagnostics: sink.sink })
    await catalog
      .resolve({ resolverId: 'docs', artifactId: 'doc-9' }, { ...u1, diagnostics: sink.sink })
      .catch(() => {})
    await catalog
      .resolve({ resolverId: 'docs', artifactId: '' }, { ...u1, diagnostics: sink.sink })
      .catch(() => {})
    expect(sink.kinds()).toEqual([
      'artifact-resolve-start',
      'artifact-resolve-end',
      'artifact-resolve-start',
      'artifact-resolve-end',
    ])
    expect(sink.events[0]?.data).toEqual({ resolverId: 'docs', artifactId: 'doc-1' })
    expect(sink.events[3]?.data).toMatchObject({ outcome: 'error', errorCode: 'artifact-unavailable' })
  })

  it('refuses malformed references and catalogs with typed errors', async () => {
    const catalog = defineArtifactCatalog([docsResolver([])])
    for (const reference of [
      null,
      'docs/doc-1',
      { artifactId: 'a' },
      { resolverId: 'docs', artifactId: 1 },
      { resolverId: 'docs', artifactId: 'a', revision: '' },
    ]) {
      await expect(catalog.resolve(reference as never, u1)).rejects.toSatisfy((error) =>
        InvalidInputError.isInstance(error),
      )
    }
    expect(() => defineArtifactCatalog([{ id: 'x' } as never])).toThrow(InvalidDefinitionError)
    expect(() =>
      defineArtifactCatalog([
        { id: 'x', resolve: () => 1 },
        { id: 'x', resolve: () => 2 },
      ]),
    ).toThrow(DuplicateIdError)
    expect(() => defineArtifactCatalog(new Registry<ArtifactResolver>())).toThrow(/sealed/)
    const sealed = Registry.create<ArtifactResolver>([{ id: 'r', resolve: () => 'ok' }])
    expect(defineArtifactCatalog(sealed).resolvers).toBe(sealed)
  })
})
