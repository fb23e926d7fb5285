import {
  createOperationContext,
  describeValue,
  type MaybePromise,
  type OperationContext,
  type OperationContextInit,
  Registry,
  raceSignal,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'

/**
 * Names one artifact: the resolver that owns it, the artifact's id, and optionally the revision wanted.
 * Other members an implementation carries (a URL, a path, a title) are never read: only these fields select
 * the resource.
 * @example
 * ```ts
 * import type { ArtifactReference } from '@agent-core/kits/artifacts'
 * const reference: ArtifactReference = { resolverId: 'docs', artifactId: 'doc-7', revision: 'r3' }
 * ```
 */
export interface ArtifactReference {
  readonly resolverId: string
  readonly artifactId: string
  readonly revision?: string
}

/**
 * Resolves the artifacts of one kind. `resolve` is responsible for the real checks: the account may read
 * it (throw core's `UnauthorizedError`), it exists, the revision matches and its lifecycle allows it
 * (throw `ArtifactUnavailableError`). It receives a reference holding only the three interface fields.
 * @example
 * ```ts
 * import type { ArtifactResolver } from '@agent-core/kits/artifacts'
 * const notes: ArtifactResolver<string, { userId: string }> = {
 *   id: 'notes',
 *   resolve: (reference, context) => `note ${reference.artifactId} for ${context.app.userId}`,
 * }
 * ```
 */
export interface ArtifactResolver<Output = unknown, App = unknown, Id extends string = string> {
  readonly id: Id
  resolve(reference: ArtifactReference, context: OperationContext<App>): MaybePromise<Output>
}

/**
 * Any resolver, whatever it returns and whatever App it expects: the bound of a catalog's resolvers, and the
 * type to collect resolvers of several kinds in before the catalog is built (the catalog then types its
 * outputs as `unknown`, since the ids are no longer literals).
 * @example
 * ```ts
 * import { type AnyArtifactResolver, defineArtifactCatalog } from '@agent-core/kits/artifacts'
 *
 * // each plug-in contributes the resolvers of its own artifact kinds
 * const plugins: { resolvers: AnyArtifactResolver[] }[] = [
 *   { resolvers: [{ id: 'notes', resolve: (reference) => `note ${reference.artifactId}` }] },
 *   { resolvers: [{ id: 'sizes', resolve: (reference) => reference.artifactId.length }] },
 * ]
 * const catalog = defineArtifactCatalog(plugins.flatMap((plugin) => plugin.resolvers))
 * const note = await catalog.resolve({ resolverId: 'notes', artifactId: 'n1' }) // unknown: no literal ids
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the widest resolver type, so that every resolver is assignable
export type AnyArtifactResolver = ArtifactResolver<any, any>

/**
 * The ids of a union of resolvers: what a catalog of them accepts as `resolverId`.
 * @example
 * ```ts
 * import type { ArtifactResolver, ArtifactResolverIdOf } from '@agent-core/kits/artifacts'
 *
 * type Notes = ArtifactResolver<string, unknown, 'notes'>
 * type Sizes = ArtifactResolver<number, unknown, 'sizes'>
 * const id: ArtifactResolverIdOf<Notes | Sizes> = 'sizes' // 'notes' | 'sizes'
 * ```
 */
export type ArtifactResolverIdOf<Resolver> = Resolver extends { readonly id: infer Id extends string }
  ? Id
  : never

/**
 * What the resolver registered as `Id` returns; `unknown` for a dynamic (`string`) id. It types the result
 * of `catalog.resolve`.
 * @example
 * ```ts
 * import type { ArtifactOutputFor, ArtifactResolver } from '@agent-core/kits/artifacts'
 *
 * type Notes = ArtifactResolver<string, unknown, 'notes'>
 * type Sizes = ArtifactResolver<number, unknown, 'sizes'>
 * const size: ArtifactOutputFor<Notes | Sizes, 'sizes'> = 42 // number
 * const anything: ArtifactOutputFor<Notes | Sizes, string> = null // unknown
 * ```
 */
export type ArtifactOutputFor<Resolver, Id extends string> = string extends Id
  ? unknown
  : Extract<Resolver, { readonly id: Id }> extends ArtifactResolver<infer Output, infer _App>
    ? Output
    : never

/**
 * The App type the resolver registered as `Id` expects in its context; `unknown` for a dynamic (`string`)
 * id. It types the `context` argument of `catalog.resolve`.
 * @example
 * ```ts
 * import type { ArtifactAppFor, ArtifactResolver } from '@agent-core/kits/artifacts'
 *
 * type Private = ArtifactResolver<string, { userId: string }, 'private'>
 * type Public = ArtifactResolver<string, unknown, 'public'>
 * const app: ArtifactAppFor<Private | Public, 'private'> = { userId: 'u1' }
 * ```
 */
export type ArtifactAppFor<Resolver, Id extends string> = string extends Id
  ? unknown
  : Extract<Resolver, { readonly id: Id }> extends ArtifactResolver<infer _Output, infer App>
    ? App
    : unknown

/**
 * A catalog of resolvers, resolving references by `resolverId`.
 * @example
 * ```ts
 * import { defineArtifactCatalog } from '@agent-core/kits/artifacts'
 * const catalog = defineArtifactCatalog([{ id: 'echo', resolve: (reference) => reference.artifactId }])
 * const text = await catalog.resolve({ resolverId: 'echo', artifactId: 'a-1' })
 * ```
 */
export interface ArtifactCatalog<Resolver extends AnyArtifactResolver = AnyArtifactResolver> {
  /** The registered resolvers (sealed). */
  readonly resolvers: Registry<Resolver>
  /**
   * Resolves a reference: checks its fields, finds the resolver, checks the signal, and calls the
   * resolver with a reference of only `resolverId`, `artifactId` and `revision`. The wait is raced against
   * the signal: a cancellation rejects at once and the resolver's late rejection is consumed (the read
   * itself stops only if the resolver honours the signal). An `artifact-resolve` span covers the call.
   * @throws `InvalidInputError` for a malformed reference or context; `UnknownIdError` for an unknown resolver
   * @throws `AbortedError` on cancellation; `InvalidOutputError` when a resolver returns `undefined`
   * @throws whatever the resolver throws, unchanged
   */
  resolve<Id extends string>(
    reference: ArtifactReference & {
      readonly resolverId: Id & (string extends Id ? unknown : ArtifactResolverIdOf<Resolver>)
    },
    context?: OperationContextInit<ArtifactAppFor<Resolver, Id>>,
  ): Promise<ArtifactOutputFor<Resolver, Id>>
}

function readReference(reference: unknown): ArtifactReference {
  if (typeof reference !== 'object' || reference === null) {
    refuseField(
      'input',
      'reference',
      `must be an object { resolverId, artifactId, revision? }, but got ${describeValue(reference)}`,
      reference,
      { prefix: 'An artifact ' },
    )
  }
  // Each field is read once, so a getter cannot answer one value to the check and another to the resolver.
  const { resolverId, artifactId, revision } = reference as Record<string, unknown>
  if (typeof resolverId !== 'string' || resolverId === '') {
    refuseField(
      'input',
      'reference.resolverId',
      `must name a registered resolver, but got ${describeValue(resolverId)}`,
      resolverId,
    )
  }
  if (typeof artifactId !== 'string' || artifactId === '') {
    refuseField(
      'input',
      'reference.artifactId',
      `must be a non-empty string, but got ${describeValue(artifactId)}`,
      artifactId,
    )
  }
  if (revision !== undefined && (typeof revision !== 'string' || revision === '')) {
    refuseField(
      'input',
      'reference.revision',
      `must be a non-empty string or left out, but got ${describeValue(revision)}`,
      revision,
    )
  }
  return Object.freeze(
    revision === undefined ? { resolverId, artifactId } : { resolverId, artifactId, revision },
  )
}

const assertResolver = (resolver: AnyArtifactResolver) => {
  if (typeof resolver.resolve !== 'function') {
    refuseField(
      'definition',
      'resolve',
      `must be a method resolve(reference, context), but got ${describeValue(resolver.resolve)}`,
      resolver.resolve,
      { prefix: `Artifact resolver "${resolver.id}": `, details: { id: resolver.id } },
    )
  }
}

async function resolveWith(
  resolvers: Registry<AnyArtifactResolver>,
  reference: unknown,
  context: OperationContextInit<unknown> = {},
): Promise<unknown> {
  const checked = readReference(reference)
  const resolver = resolvers.require(checked.resolverId)
  const operation = createOperationContext(context)
  const label = `artifact "${checked.artifactId}" of resolver "${checked.resolverId}"`
  throwIfAborted(operation.signal, `before resolving ${label}`)
  const span = operation.diagnostics.span('artifact-resolve', { ...checked })
  try {
    let pending: unknown
    try {
      pending = resolver.resolve(checked, { ...operation, diagnostics: span.diagnostics })
    } catch (error) {
      pending = Promise.reject(error)
    }
    const output = await raceSignal(Promise.resolve(pending), operation.signal, `resolving ${label}`)
    if (output === undefined) {
      refuseField(
        'output',
        'resolve',
        `returned undefined for "${checked.artifactId}". A resolver throws when the artifact is missing, retired or at another revision (ArtifactUnavailableError); it never answers nothing`,
        output,
        {
          prefix: `Artifact resolver "${checked.resolverId}" `,
          details: { hook: `resolver "${checked.resolverId}" resolve` },
        },
      )
    }
    span.end('ok')
    return output
  } catch (error) {
    span.fail(error)
    throw error
  }
}

/**
 * Builds an artifact catalog from resolvers (an array, or a sealed core `Registry` of them).
 * `catalog.resolve({ resolverId, artifactId, revision? }, context)` hands the reference to the resolver
 * registered as `resolverId`; the resolver validates account, existence, revision and lifecycle. Output
 * types follow the resolver id.
 *
 * @throws `InvalidDefinitionError` for a malformed resolver or an unsealed registry; `DuplicateIdError` for
 *   a repeated id
 * @example
 * ```ts
 * import { UnauthorizedError } from '@agent-core/core'
 * import { ArtifactUnavailableError, defineArtifactCatalog } from '@agent-core/kits/artifacts'
 *
 * const files = new Map([['f1', { owner: 'u1', revision: 'r2', body: 'hello' }]])
 * const catalog = defineArtifactCatalog([
 *   {
 *     id: 'files',
 *     resolve(reference, context: { app: { userId: string } }) {
 *       const file = files.get(reference.artifactId)
 *       if (!file) throw new ArtifactUnavailableError('No such file.', { details: { reason: 'not-found', ...reference } })
 *       if (file.owner !== context.app.userId) throw new UnauthorizedError('Not your file.')
 *       return file.body
 *     },
 *   },
 * ])
 * const body = await catalog.resolve({ resolverId: 'files', artifactId: 'f1' }, { app: { userId: 'u1' } })
 * ```
 */
export function defineArtifactCatalog<Resolver extends AnyArtifactResolver>(
  resolvers: Iterable<Resolver> | Registry<Resolver>,
): ArtifactCatalog<Resolver> {
  let registry: Registry<AnyArtifactResolver>
  if (resolvers instanceof Registry) {
    if (!resolvers.sealed) {
      refuseField(
        'definition',
        'resolvers',
        'must be a sealed Registry of resolvers (or an array), so the catalog cannot change while it is used. Call seal() first, or pass an array',
        resolvers,
        { prefix: 'defineArtifactCatalog: ' },
      )
    }
    for (const resolver of resolvers.values()) assertResolver(resolver)
    registry = resolvers as unknown as Registry<AnyArtifactResolver>
  } else {
    registry = Registry.create<AnyArtifactResolver>(resolvers as Iterable<AnyArtifactResolver>, {
      kind: 'artifact resolver',
      assertDefinition: assertResolver,
    })
  }
  return Object.freeze({
    resolvers: registry,
    resolve: (reference: unknown, context?: OperationContextInit<unknown>) =>
      resolveWith(registry, reference, context),
  }) as unknown as ArtifactCatalog<Resolver>
}
