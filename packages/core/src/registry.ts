import { describeValue } from './errors/agent-core-error.js'
import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  RegistrySealedError,
  UnknownIdError,
} from './errors/errors.js'
import { refuseField } from './field-reader.js'
import type { ReadonlyRegistry } from './registry-view.js'
import { assertNotThenable } from './sync.js'
import { assertFunction, assertObject } from './validate.js'

/**
 * Anything registrable: an object with a string `id`.
 * @example
 * ```ts
 * import { type Identified, Registry } from '@agent-core/core'
 * interface Port extends Identified { readonly url: string }
 * const ports = Registry.create<Port>([{ id: 'brest', url: 'https://tides.example/brest' }])
 * ```
 */
export interface Identified {
  readonly id: string
}

/**
 * Error factories a registry uses; each may be replaced to throw a domain-specific error.
 * @example
 * ```ts
 * import { Registry, type RegistryErrorFactories } from '@agent-core/core'
 * const errors: Partial<RegistryErrorFactories> = {
 *   unknown: (id, kind, known) => new Error(`no ${kind} "${id}"; pick one of ${known.join(', ')}`),
 * }
 * const tools = Registry.create([{ id: 'search' }], { kind: 'tool', errors })
 * ```
 */
export interface RegistryErrorFactories {
  duplicate(id: string, kind: string): Error
  unknown(id: string, kind: string, known: readonly string[]): Error
  sealed(id: string, kind: string): Error
  invalidId(id: unknown, kind: string, pattern: RegExp | undefined): Error
}

/**
 * How a registry validates what it accepts.
 * @example
 * ```ts
 * import { Registry, type RegistryPolicy } from '@agent-core/core'
 * interface Tool { readonly id: string; readonly run: () => void }
 * const policy: RegistryPolicy<Tool> = {
 *   kind: 'tool',
 *   idPattern: /^[a-z][a-z-]*$/,
 *   assertDefinition: (tool) => {
 *     if (typeof tool.run !== 'function') throw new TypeError(`tool "${tool.id}" needs run()`)
 *   },
 * }
 * const tools = new Registry(policy).registerAll([{ id: 'search', run: () => {} }]).seal()
 * ```
 */
export interface RegistryPolicy<Definition extends Identified> {
  /** What the definitions are called in messages, e.g. `"intent"`. Default `"definition"`. */
  readonly kind?: string
  /** Ids must match this pattern in full (anchor it yourself). Default: any non-empty string. */
  readonly idPattern?: RegExp
  /** Synchronous check of a definition; throw to reject it. Runs after the id and duplicate checks. */
  readonly assertDefinition?: (definition: Definition) => void
  /** Replacements for the default error factories. */
  readonly errors?: Partial<RegistryErrorFactories>
}

const defaultErrors: RegistryErrorFactories = {
  duplicate: (id, kind) =>
    new DuplicateIdError(
      `A ${kind} with id "${id}" is already registered. Ids must be unique; rename one of them.`,
      { details: { id, kind } },
    ),
  unknown: (id, kind, known) =>
    new UnknownIdError(
      `No ${kind} is registered with id "${id}". Known ids: ${known.length ? known.map((k) => `"${k}"`).join(', ') : '(none)'}.`,
      { details: { id, kind, known } },
    ),
  sealed: (id, kind) =>
    new RegistrySealedError(
      `Cannot register ${kind} "${id}": the registry is sealed. Register everything before seal(), or build a new registry.`,
      {
        details: { id, kind },
      },
    ),
  invalidId: (id, kind, pattern) =>
    new InvalidIdError(
      typeof id === 'string' && id.length > 0
        ? `The ${kind} id "${id}" does not match the required pattern ${pattern}. Choose an id that matches it.`
        : `A ${kind} id must be a non-empty string, but got ${describeValue(id)}.`,
      { details: { id: typeof id === 'string' ? id : describeValue(id), kind, pattern: pattern?.source } },
    ),
}

/**
 * The shared registration contract: ordered, id-keyed, validated definitions that can be sealed.
 *
 * Checks run in this order for each definition: sealed, shape, id pattern, duplicate, `assertDefinition`.
 * `registerAll` is atomic: when any definition is rejected, none of the batch is registered. Definitions
 * are stored as given (class instances keep their prototype); the registry never copies or freezes them.
 *
 * @example
 * ```ts
 * import { Registry } from '@agent-core/core'
 * const tools = Registry.create([{ id: 'search' }, { id: 'fetch' }], { kind: 'tool', idPattern: /^[a-z-]+$/ })
 * tools.ids() // ['search', 'fetch']
 * tools.require('search')
 * ```
 */
export class Registry<Definition extends Identified> implements ReadonlyRegistry<Definition> {
  readonly #map = new Map<string, Definition>()
  readonly #policy: RegistryPolicy<Definition>
  readonly #kind: string
  #sealed = false

  constructor(policy: RegistryPolicy<Definition> = {}) {
    assertObject(policy as unknown, 'policy', {
      where: 'Registry',
      error: InvalidDefinitionError,
      hint: 'Pass { kind, idPattern, assertDefinition, errors }, or nothing.',
    })
    if (policy.idPattern !== undefined && !(policy.idPattern instanceof RegExp)) {
      refuseField(
        'definition',
        'policy.idPattern',
        `must be a RegExp, but got ${describeValue(policy.idPattern)}. Pass a regular expression such as /^[a-z-]+$/`,
        policy.idPattern,
        { prefix: 'Registry: ' },
      )
    }
    if (policy.assertDefinition !== undefined)
      assertFunction(policy.assertDefinition, 'policy.assertDefinition', {
        where: 'Registry',
        error: InvalidDefinitionError,
        hint: 'Pass a function that throws on a bad definition, or leave it out.',
      })
    this.#policy = policy
    this.#kind = policy.kind ?? 'definition'
  }

  /** Builds, fills and seals a registry in one step. */
  static create<Definition extends Identified>(
    definitions: Iterable<Definition>,
    policy: RegistryPolicy<Definition> = {},
  ): Registry<Definition> {
    return new Registry<Definition>(policy).registerAll(definitions).seal()
  }

  /** True after {@link Registry.seal}. */
  get sealed(): boolean {
    return this.#sealed
  }

  /** Number of registered definitions. */
  get size(): number {
    return this.#map.size
  }

  /** Registers one definition. */
  register(definition: Definition): this {
    return this.registerAll([definition])
  }

  /** Registers several definitions atomically, in order. */
  registerAll(definitions: Iterable<Definition>): this {
    if (
      definitions === null ||
      typeof definitions !== 'object' ||
      typeof (definitions as Iterable<Definition>)[Symbol.iterator] !== 'function'
    ) {
      refuseField(
        'definition',
        'definitions',
        `must be an array (or iterable) of ${this.#kind} definitions, but got ${describeValue(definitions)}. Pass an array of { id, ... } objects`,
        definitions,
        { prefix: 'registerAll: ' },
      )
    }
    const batch = [...definitions]
    if (this.#sealed && batch.length > 0) {
      const first = batch[0] as { id?: unknown } | null | undefined
      throw this.#error(
        'sealed',
        typeof first?.id === 'string' ? first.id : describeValue(first?.id),
        this.#kind,
      )
    }
    const seen = new Set<string>()
    for (const definition of batch) {
      const id = this.#checkId(definition)
      if (this.#map.has(id) || seen.has(id)) throw this.#error('duplicate', id, this.#kind)
      seen.add(id)
      if (this.#policy.assertDefinition) {
        assertNotThenable(
          this.#policy.assertDefinition(definition),
          `assertDefinition for ${this.#kind} "${id}"`,
        )
      }
    }
    for (const definition of batch) this.#map.set(definition.id, definition)
    return this
  }

  /** Forbids further registration. Idempotent. */
  seal(): this {
    this.#sealed = true
    return this
  }

  /** Registered ids in registration order. */
  ids(): readonly string[] {
    return [...this.#map.keys()]
  }

  /** True when a definition has this id (never for an inherited name such as `toString`). */
  has(id: string): boolean {
    return typeof id === 'string' && this.#map.has(id)
  }

  /** The definition, or `undefined` when the id is not registered. */
  get(id: string): Definition | undefined {
    return typeof id === 'string' ? this.#map.get(id) : undefined
  }

  /** The definition; throws the registry's unknown-id error when absent. */
  require(id: string): Definition {
    const definition = typeof id === 'string' ? this.#map.get(id) : undefined
    if (definition === undefined) {
      if (typeof id !== 'string') throw this.#error('invalidId', id, this.#kind, this.#policy.idPattern)
      throw this.#error('unknown', id, this.#kind, this.ids())
    }
    return definition
  }

  /** `[id, definition]` pairs in registration order. */
  entries(): readonly (readonly [string, Definition])[] {
    return [...this.#map.entries()]
  }

  /** Definitions in registration order. */
  values(): readonly Definition[] {
    return [...this.#map.values()]
  }

  /** Builds an error with the policy's factory (called on its own object, so class-based factories keep `this`) or the default. */
  #error<K extends keyof RegistryErrorFactories>(
    kind: K,
    ...args: Parameters<RegistryErrorFactories[K]>
  ): Error {
    const custom = this.#policy.errors
    const factory = custom?.[kind]
    if (typeof factory === 'function') return Reflect.apply(factory, custom, args) as Error
    return Reflect.apply(defaultErrors[kind], defaultErrors, args) as Error
  }

  #checkId(definition: unknown): string {
    if (typeof definition !== 'object' || definition === null) {
      refuseField(
        'definition',
        'definition',
        `must be an object with an id, but got ${describeValue(definition)}. Pass { id, ... }`,
        definition,
        { prefix: `A ${this.#kind} `, details: { kind: this.#kind } },
      )
    }
    const id = (definition as { id?: unknown }).id
    if (typeof id !== 'string' || id.length === 0)
      throw this.#error('invalidId', id, this.#kind, this.#policy.idPattern)
    const pattern = this.#policy.idPattern
    if (pattern) {
      pattern.lastIndex = 0
      const ok = pattern.test(id)
      pattern.lastIndex = 0
      if (!ok) throw this.#error('invalidId', id, this.#kind, pattern)
    }
    return id
  }
}
