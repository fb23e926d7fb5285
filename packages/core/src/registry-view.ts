import { describeValue } from './errors/agent-core-error.js'
import { refuseField } from './field-reader.js'
import { type Identified, Registry } from './registry.js'

/**
 * The read side of a {@link Registry}: ordered, id-keyed lookups. {@link Registry} has it, and so does
 * every catalog built on one ({@link RegistryView}), so code that only reads takes this type.
 * @example
 * ```ts
 * import { type ReadonlyRegistry, Registry } from '@agent-core/core'
 * function describe(registry: ReadonlyRegistry<{ id: string }>): string {
 *   return `${registry.size} ids: ${registry.ids().join(', ')}`
 * }
 * describe(Registry.create([{ id: 'search' }]))
 * ```
 */
export interface ReadonlyRegistry<Definition extends Identified, Id extends string = string> {
  /** Number of registered definitions. */
  readonly size: number
  /** Registered ids in registration order. */
  ids(): readonly Id[]
  /** True when a definition has this id (never for an inherited name such as `toString`). */
  has(id: string): boolean
  /** The definition with this id, or `undefined`. */
  get(id: string): Definition | undefined
  /**
   * The definition with this id.
   * @throws the registry's unknown-id error (`UnknownIdError` listing the known ids, unless its policy
   *   replaced it) when no definition has this id
   */
  require(id: string): Definition
  /** `[id, definition]` pairs in registration order. */
  entries(): readonly (readonly [string, Definition])[]
  /** The definitions as given, in registration order. */
  values(): readonly Definition[]
}

/**
 * A read-only view of a {@link Registry}, the base of the catalogs and registries the kits build on one:
 * each lookup reads the registry as it is now (a registry still open for registration shows what was
 * registered so far), with the registry's own errors. A class extends it, passing its registry to
 * `super`, and keeps registration (when it allows any) to itself.
 * @throws `InvalidDefinitionError` when given anything but a {@link Registry}
 * @example
 * ```ts
 * import { Registry, RegistryView } from '@agent-core/core'
 * interface Port { readonly id: string; readonly url: string }
 * class Ports extends RegistryView<Port> {
 *   constructor(ports: readonly Port[]) {
 *     super(Registry.create(ports, { kind: 'port' }))
 *   }
 *   urls(): string[] {
 *     return this.values().map((port) => port.url)
 *   }
 * }
 * const ports = new Ports([{ id: 'brest', url: 'https://tides.example/brest' }])
 * ports.require('brest').url // 'https://tides.example/brest'
 * ```
 */
export class RegistryView<Definition extends Identified, Id extends string = string>
  implements ReadonlyRegistry<Definition, Id>
{
  readonly #registry: Registry<Definition>

  constructor(registry: Registry<Definition>) {
    if (!(registry instanceof Registry)) {
      refuseField(
        'definition',
        'registry',
        `must be the Registry it reads, but got ${describeValue(registry)}. Pass a Registry from @agent-core/core`,
        registry,
        { prefix: 'RegistryView: ' },
      )
    }
    this.#registry = registry
  }

  /** Number of registered definitions. */
  get size(): number {
    return this.#registry.size
  }

  /** Registered ids in registration order. */
  ids(): readonly Id[] {
    return this.#registry.ids() as readonly Id[]
  }

  /** True when a definition has this id (never for an inherited name such as `toString`). */
  has(id: string): boolean {
    return this.#registry.has(id)
  }

  /** The definition with this id, or `undefined`. */
  get(id: string): Definition | undefined {
    return this.#registry.get(id)
  }

  /**
   * The definition with this id.
   * @throws the registry's unknown-id error (`UnknownIdError` listing the known ids, unless its policy
   *   replaced it) when no definition has this id
   */
  require(id: string): Definition {
    return this.#registry.require(id)
  }

  /** `[id, definition]` pairs in registration order. */
  entries(): readonly (readonly [string, Definition])[] {
    return this.#registry.entries()
  }

  /** The definitions as given, in registration order. */
  values(): readonly Definition[] {
    return this.#registry.values()
  }
}
