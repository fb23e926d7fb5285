import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AgentCoreError,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  RegistrySealedError,
  RejectedThenableError,
  UnknownIdError,
} from './index.js'
import { Registry } from './registry.js'

describe('Registry', () => {
  it('preserves registration order across ids, entries and values', () => {
    const r = new Registry<{ id: string; n: number }>().register({ id: 'b', n: 1 }).registerAll([
      { id: 'a', n: 2 },
      { id: 'c', n: 3 },
    ])
    expect(r.ids()).toEqual(['b', 'a', 'c'])
    expect(r.values().map((v) => v.n)).toEqual([1, 2, 3])
    expect(r.entries().map(([id]) => id)).toEqual(['b', 'a', 'c'])
    expect(r.size).toBe(3)
  })

  it('get returns undefined and require throws a typed unknown-id error listing known ids', () => {
    const r = Registry.create([{ id: 'x' }], { kind: 'tool' })
    expect(r.get('y')).toBeUndefined()
    expect(r.has('y')).toBe(false)
    const error = (() => {
      try {
        r.require('y')
      } catch (e) {
        return e
      }
    })()
    expect(UnknownIdError.isInstance(error)).toBe(true)
    expect((error as UnknownIdError).details).toMatchObject({ id: 'y', kind: 'tool', known: ['x'] })
    expect((error as Error).message).toContain('"x"')
  })

  it('rejects duplicates, also within one batch, atomically', () => {
    const r = new Registry<{ id: string }>().register({ id: 'a' })
    expect(() => r.register({ id: 'a' })).toThrow(DuplicateIdError)
    expect(() => r.registerAll([{ id: 'b' }, { id: 'b' }])).toThrow(DuplicateIdError)
    expect(() => r.registerAll([{ id: 'c' }, { id: 'a' }])).toThrow(DuplicateIdError)
    expect(r.ids()).toEqual(['a'])
  })

  it('rejects registration after seal, before any other check', () => {
    const r = Registry.create([{ id: 'a' }])
    expect(r.sealed).toBe(true)
    expect(() => r.register({ id: 'a' })).toThrow(RegistrySealedError)
    expect(() => r.register({ id: '' })).toThrow(RegistrySealedError)
  })

  it('checks ids against idPattern (ignoring a global flag state) and rejects non-string ids', () => {
    const r = new Registry<{ id: string }>({ idPattern: /^[a-z]+$/g })
    r.register({ id: 'abc' })
    r.register({ id: 'def' })
    expect(() => r.register({ id: 'Abc' })).toThrow(InvalidIdError)
    for (const bad of [undefined, null, 1, '', {}, Number.NaN]) {
      expect(() => r.register({ id: bad } as unknown as { id: string })).toThrow(InvalidIdError)
    }
    expect(() => r.register(null as unknown as { id: string })).toThrow(InvalidDefinitionError)
    expect(() => r.registerAll(5 as unknown as [])).toThrow(InvalidDefinitionError)
  })

  it('runs assertDefinition after id and duplicate checks and rejects a thenable from it', () => {
    const calls: string[] = []
    const r = new Registry<{ id: string; ok?: boolean }>({
      assertDefinition(d) {
        calls.push(d.id)
        if (!d.ok) throw new InvalidDefinitionError(`${d.id} is not ok`)
      },
    })
    r.register({ id: 'a', ok: true })
    expect(() => r.register({ id: 'a', ok: true })).toThrow(DuplicateIdError)
    expect(calls).toEqual(['a'])
    expect(() => r.register({ id: 'b' })).toThrow(/b is not ok/)
    const asyncPolicy = new Registry<{ id: string }>({
      assertDefinition: (async () => {}) as unknown as () => void,
    })
    expect(() => asyncPolicy.register({ id: 'x' })).toThrow(RejectedThenableError)
    expect(asyncPolicy.has('x')).toBe(false)
  })

  it('uses custom error factories', () => {
    class MyDup extends AgentCoreError {
      constructor(id: string) {
        super('my-dup', `dup ${id}`)
      }
    }
    const r = new Registry<{ id: string }>({ errors: { duplicate: (id) => new MyDup(id) } }).register({
      id: 'a',
    })
    expect(() => r.register({ id: 'a' })).toThrow(MyDup)
  })

  it('calls class-based error factories as methods (prototype methods and receiver kept)', () => {
    class Errors {
      readonly prefix = 'catalog'
      duplicate(id: string) {
        return new AgentCoreError('catalog-duplicate', `${this.prefix}: ${id} twice`)
      }
    }
    const r = new Registry<{ id: string }>({ errors: new Errors() }).register({ id: 'a' })
    expect(() => r.register({ id: 'a' })).toThrow('catalog: a twice')
    expect(() => r.require('zz')).toThrow(UnknownIdError)
  })

  it('keeps class instances as given (prototype getters intact)', () => {
    class Tool {
      readonly id = 't'
      get label() {
        return `tool ${this.id}`
      }
    }
    const tool = new Tool()
    const r = Registry.create([tool])
    expect(r.require('t')).toBe(tool)
    expect(r.require('t').label).toBe('tool t')
  })

  it('rejects a malformed policy', () => {
    expect(() => new Registry(null as never)).toThrow(InvalidDefinitionError)
    expect(() => new Registry({ idPattern: '^a$' as never })).toThrow(InvalidDefinitionError)
    expect(() => new Registry({ assertDefinition: 3 as never })).toThrow(InvalidDefinitionError)
  })

  it('behaves like an insertion-ordered map with first-wins rejection (model test)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 4 }), { maxLength: 8 }),
        (batches) => {
          const r = new Registry<{ id: string }>()
          const model: string[] = []
          for (const batch of batches) {
            const dup = batch.some((id, i) => model.includes(id) || batch.indexOf(id) !== i)
            if (dup) expect(() => r.registerAll(batch.map((id) => ({ id })))).toThrow(DuplicateIdError)
            else {
              r.registerAll(batch.map((id) => ({ id })))
              model.push(...batch)
            }
            expect(r.ids()).toEqual(model)
          }
        },
      ),
    )
  })
})
