import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidDefinitionError, InvalidIdError, type ReadonlyRegistry, UnknownIdError } from './index.js'
import { Registry } from './registry.js'
import { RegistryView } from './registry-view.js'

interface Port {
  readonly id: string
  readonly url: string
}

class Ports extends RegistryView<Port, 'brest' | 'cork'> {
  readonly #registry: Registry<Port>
  constructor() {
    const registry = new Registry<Port>({ kind: 'port' })
    super(registry)
    this.#registry = registry
  }
  add(port: Port): this {
    this.#registry.register(port)
    return this
  }
}

function caught(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('RegistryView', () => {
  it('answers every lookup as the registry it reads does, for any ids and probes', () => {
    const id = fc.stringMatching(/^[a-z]{1,4}$/)
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 8 }), fc.array(id, { maxLength: 8 }), (ids, probes) => {
        const registry = Registry.create(ids.map((each, n) => ({ id: each, n })))
        const view: ReadonlyRegistry<{ id: string; n: number }> = new RegistryView(registry)
        expect(view.size).toBe(registry.size)
        expect(view.ids()).toEqual(registry.ids())
        expect(view.entries()).toEqual(registry.entries())
        expect(view.values()).toEqual(registry.values())
        for (const probe of [...probes, 'toString', '__proto__']) {
          expect(view.has(probe)).toBe(registry.has(probe))
          expect(view.get(probe)).toBe(registry.get(probe))
          if (registry.has(probe)) expect(view.require(probe)).toBe(registry.require(probe))
          else expect(caught(() => view.require(probe))).toEqual(caught(() => registry.require(probe)))
        }
      }),
    )
  })

  it('reads a registry still open for registration as it is now', () => {
    const ports = new Ports()
    expect(ports.ids()).toEqual([])
    ports.add({ id: 'brest', url: 'https://tides.example/brest' })
    expect(ports.ids()).toEqual(['brest'])
    expect(ports.size).toBe(1)
    expect(ports.require('brest').url).toBe('https://tides.example/brest')
  })

  it("throws the registry's own errors, replaced factories included", () => {
    const plain = new RegistryView(Registry.create([{ id: 'a' }], { kind: 'tool' }))
    const unknown = caught(() => plain.require('b'))
    expect(UnknownIdError.isInstance(unknown)).toBe(true)
    expect((unknown as UnknownIdError).details).toMatchObject({ id: 'b', kind: 'tool', known: ['a'] })
    const invalid = caught(() => plain.require(42 as unknown as string))
    expect(InvalidIdError.isInstance(invalid)).toBe(true)

    class NoSuchTool extends Error {}
    const custom = new RegistryView(
      Registry.create([{ id: 'a' }], { errors: { unknown: (id) => new NoSuchTool(`no ${id}`) } }),
    )
    expect(caught(() => custom.require('b'))).toBeInstanceOf(NoSuchTool)
  })

  it('refuses anything but a Registry, naming what it got', () => {
    for (const bad of [undefined, null, {}, { ids: () => [] }, [], 'registry']) {
      const error = caught(() => new RegistryView(bad as unknown as Registry<{ id: string }>))
      expect(InvalidDefinitionError.isInstance(error)).toBe(true)
      expect((error as InvalidDefinitionError).details).toMatchObject({ field: 'registry' })
      expect((error as Error).message).toContain('Pass a Registry')
    }
  })

  it('lets a subclass refine one lookup and keep the rest', () => {
    class Strict extends RegistryView<Port> {
      override get(id: string): Port | undefined {
        return this.has(id) ? super.get(id) : undefined
      }
    }
    const strict = new Strict(Registry.create([{ id: 'cork', url: 'https://tides.example/cork' }]))
    expect(strict.get('cork')?.url).toBe('https://tides.example/cork')
    expect(strict.get('nope')).toBeUndefined()
    expect(strict.values()).toHaveLength(1)
  })
})
