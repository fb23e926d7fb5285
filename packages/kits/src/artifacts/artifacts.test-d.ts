import { describe, expectTypeOf, it } from 'vitest'
import { type ArtifactReference, defineArtifactCatalog } from './index.js'

describe('ArtifactCatalog types', () => {
  it('infers the output from the resolver id; a dynamic id stays unknown', () => {
    const catalog = defineArtifactCatalog([
      { id: 'text' as const, resolve: (reference: ArtifactReference) => reference.artifactId },
      { id: 'bytes' as const, resolve: () => ({ size: 1 }) },
    ])
    expectTypeOf(catalog.resolve({ resolverId: 'text', artifactId: 'a' })).toEqualTypeOf<Promise<string>>()
    expectTypeOf(catalog.resolve({ resolverId: 'bytes', artifactId: 'a' })).toEqualTypeOf<
      Promise<{ size: number }>
    >()
    // @ts-expect-error: no resolver has this id
    catalog.resolve({ resolverId: 'video', artifactId: 'a' })
    const id: string = 'text'
    expectTypeOf(catalog.resolve({ resolverId: id, artifactId: 'a' })).toEqualTypeOf<Promise<unknown>>()
  })
})
