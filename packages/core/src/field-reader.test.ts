import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FieldReader, InvalidDefinitionError, InvalidInputError, refuseField } from './index.js'

function refusal(run: () => unknown): InvalidInputError | InvalidDefinitionError {
  try {
    run()
  } catch (error) {
    if (InvalidInputError.isInstance(error) || InvalidDefinitionError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('FieldReader', () => {
  it('reads optional typed fields and refuses a field nobody read, by its full path', () => {
    const fields = new FieldReader(
      { label: 'x', rounds: 2, verbose: true, run: () => 1, extra: 5 },
      'options',
      'an options object',
      'input',
    )
    expect(fields.string('label')).toBe('x')
    expect(fields.integer('rounds', 1)).toBe(2)
    expect(fields.boolean('verbose')).toBe(true)
    expect(typeof fields.func<() => number>('run')).toBe('function')
    expect(fields.string('missing')).toBeUndefined()
    const error = refusal(() => fields.done())
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect(error.message).toBe(
      'options.extra is not a known field (known: label, rounds, verbose, run, missing); remove it or fix its spelling.',
    )
    expect(error.details).toEqual({ field: 'options.extra', received: 'the number 5' })
  })

  it('refuses a non-object, a wrong type and a getter with the chosen class, and never runs the getter', () => {
    expect(
      InvalidDefinitionError.isInstance(
        refusal(() => new FieldReader([], 'd', 'a definition', 'definition')),
      ),
    ).toBe(true)
    expect(refusal(() => new FieldReader(null, 'd', 'a definition', 'input')).message).toBe(
      'd must be a definition, but got null.',
    )
    const fields = new FieldReader({ n: 0.5, s: '', b: 'yes' }, 'o', 'options', 'input')
    expect(refusal(() => fields.integer('n', 0)).details.field).toBe('o.n')
    expect(refusal(() => fields.string('s')).message).toMatch(/o\.s must be a non-empty string/)
    expect(fields.string('s', { empty: true }) ?? 'absent').toBe('')
    expect(refusal(() => fields.boolean('b')).details.field).toBe('o.b')
    let ran = false
    const withGetter = Object.defineProperty({}, 'g', {
      enumerable: true,
      get() {
        ran = true
        return 1
      },
    })
    const reader = new FieldReader(withGetter, 'o', 'options', 'input')
    expect(refusal(() => reader.get('g')).message).toBe('o.g must be a data property, not a getter.')
    expect(ran).toBe(false)
  })

  it('ignores symbol keys and inherited fields', () => {
    const value = Object.assign(Object.create({ inherited: 1 }), { [Symbol('tag')]: 1, own: 'a' })
    const fields = new FieldReader(value, 'o', 'options', 'input')
    expect(fields.get('inherited')).toBeUndefined()
    expect(fields.string('own')).toBe('a')
    expect(() => fields.done()).not.toThrow()
  })

  it('integer accepts exactly the safe integers of at least min (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double(), fc.string()),
        fc.integer({ min: -5, max: 5 }),
        (value, min) => {
          const fields = new FieldReader({ n: value }, 'o', 'options', 'input')
          const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= min
          if (ok) expect(fields.integer('n', min)).toBe(value)
          else expect(InvalidInputError.isInstance(refusal(() => fields.integer('n', min)))).toBe(true)
        },
      ),
    )
  })

  it('refuseField throws the class its kind names', () => {
    expect(
      InvalidDefinitionError.isInstance(refusal(() => refuseField('definition', 'f', 'is wrong', 1))),
    ).toBe(true)
    expect(refusal(() => refuseField('input', 'f', 'is wrong', 'v')).message).toBe('f is wrong.')
  })
})
