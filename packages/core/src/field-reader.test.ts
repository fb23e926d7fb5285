import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  FieldReader,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  refuseField,
} from './index.js'

function refusal(run: () => unknown): InvalidInputError | InvalidDefinitionError | InvalidOutputError {
  try {
    run()
  } catch (error) {
    if (
      InvalidInputError.isInstance(error) ||
      InvalidDefinitionError.isInstance(error) ||
      InvalidOutputError.isInstance(error)
    )
      return error
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
    const prefixed = refusal(() =>
      refuseField('input', 'request.query', 'must be a string, but got the number 1', 1, {
        prefix: 'TextSearch search: ',
        details: { id: 'docs' },
      }),
    )
    expect(prefixed.message).toBe('TextSearch search: request.query must be a string, but got the number 1.')
    expect(prefixed.details).toEqual({ id: 'docs', field: 'request.query', received: 'the number 1' })
  })

  it("the 'output' kind refuses what a hook returned; a refusal keeps its cause and a received of its own", () => {
    const output = refusal(() => refuseField('output', 'summarize()', 'must return a string', 3))
    expect(InvalidOutputError.isInstance(output)).toBe(true)
    expect(output.details).toEqual({ field: 'summarize()', received: 'the number 3' })
    const fields = new FieldReader({ text: 1 }, 'result', 'a hook result', 'output')
    expect(InvalidOutputError.isInstance(refusal(() => fields.string('text')))).toBe(true)
    const cause = new SyntaxError('Unexpected end of JSON input')
    const caused = refusal(() =>
      refuseField('input', 'options.metadata', 'must be JSON text', '{"a":', {
        cause,
        received: 'text cut short',
        details: { id: 'docs' },
      }),
    )
    expect(caused.cause).toBe(cause)
    expect(caused.details).toEqual({ id: 'docs', field: 'options.metadata', received: 'text cut short' })
    expect('cause' in refusal(() => refuseField('input', 'f', 'is wrong', 1, {}))).toBe(false)
    // a JavaScript caller's unknown kind (even a prototype key) still gets a typed error, as input
    for (const kind of ['nonsense', 'toString', '__proto__'])
      expect(
        InvalidInputError.isInstance(refusal(() => refuseField(kind as never, 'f', 'is wrong', 1))),
      ).toBe(true)
  })

  it('required twins refuse a missing field without "or be left out"; optional reads say it', () => {
    const fields = new FieldReader({ mode: 'slow', n: 7 }, 'o', 'options')
    expect(refusal(() => fields.requiredString('name')).message).toBe(
      'o.name must be a non-empty string, but got undefined.',
    )
    expect(refusal(() => fields.oneOf('mode', ['fast', 'careful'])).message).toBe(
      'o.mode must be one of "fast", "careful" or be left out, but got the string "slow".',
    )
    expect(refusal(() => fields.requiredInteger('n', 1, 5, 'ms')).message).toBe(
      'o.n must be a safe integer from 1 to 5 (ms), but got the number 7.',
    )
    expect(fields.integer('n', 0, 10)).toBe(7)
    expect(refusal(() => fields.requiredBoolean('flag')).details).toEqual({
      field: 'o.flag',
      received: 'undefined',
    })
    expect(refusal(() => fields.requiredFunc('run')).message).toMatch(/^o\.run must be a function, but got/)
    expect(fields.oneOf('absent', ['a'])).toBeUndefined()
    expect(fields.number('absent')).toBeUndefined()
  })

  it('number accepts exactly the finite numbers within its bounds (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.integer(), fc.string(), fc.constant(null)),
        fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
        fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
        (value, min, max) => {
          const fields = new FieldReader({ x: value }, 'o', 'options', 'input')
          const ok =
            typeof value === 'number' &&
            Number.isFinite(value) &&
            (min === undefined || value >= min) &&
            (max === undefined || value <= max)
          if (ok) expect(fields.requiredNumber('x', min, max)).toBe(value)
          else
            expect(InvalidInputError.isInstance(refusal(() => fields.requiredNumber('x', min, max)))).toBe(
              true,
            )
        },
      ),
    )
  })

  it('reads arrays, string lists, string records and nested objects, naming items by path', () => {
    const fields = new FieldReader(
      { args: ['a', 'b'], env: { A: '1' }, bad: ['a', 2], badEnv: { B: 3 }, inner: { x: 1 }, none: [] },
      'options',
      'options',
      'definition',
    )
    const args = fields.strings('args')
    expect(args).toEqual(['a', 'b'])
    expect(Object.isFrozen(args)).toBe(true)
    expect(fields.stringRecord('env')).toEqual({ A: '1' })
    expect(refusal(() => fields.strings('bad')).details).toEqual({
      field: 'options.bad[1]',
      received: 'the number 2',
    })
    expect(refusal(() => fields.stringRecord('badEnv')).details.field).toBe('options.badEnv.B')
    const inner = fields.requiredObject('inner', 'an inner { x }')
    expect(inner.requiredInteger('x', 0)).toBe(1)
    expect(InvalidDefinitionError.isInstance(refusal(() => inner.string('x')))).toBe(true)
    expect(refusal(() => fields.requiredArray('none', { empty: false })).message).toBe(
      'options.none must be a non-empty array, but got an array of length 0.',
    )
    expect(fields.array('none')).toEqual([])
    expect(fields.object('missing', 'an object')).toBeUndefined()
  })

  it('carries a context prefix and details into every refusal, and names top-level fields bare', () => {
    const step = new FieldReader({ id: '' }, 'steps[0]', 'a step', 'definition', {
      prefix: 'Durable task "t": ',
      details: { id: 't', field: 'overridden' },
    })
    const error = refusal(() => step.requiredString('id'))
    expect(error.message).toBe(
      'Durable task "t": steps[0].id must be a non-empty string, but got the string "".',
    )
    expect(error.details).toEqual({ id: 't', field: 'steps[0].id', received: 'the string ""' })
    const top = new FieldReader({ list: [1] }, '', 'a request')
    expect(top.path('prompt')).toBe('prompt')
    expect(new FieldReader({}, 'a', 'x').path('[2]')).toBe('a[2]')
    expect(refusal(() => top.failObject('is wrong')).message).toBe(' is wrong.')
  })

  it('only() refuses an unknown field before any read, naming the object and its known fields', () => {
    const value = { type: 'http', bearer_token: 'x' }
    const error = refusal(() =>
      new FieldReader(value, 'options.transport', 'a transport').only(['type', 'url']),
    )
    expect(error.message).toBe(
      'options.transport has an unknown field "bearer_token"; the known fields are type, url. Check its spelling.',
    )
    expect(error.details).toEqual({ field: 'options.transport.bearer_token', received: 'the string "x"' })
    const fine = new FieldReader({ type: 'http' }, 'o', 'a transport').only(['type', 'url'])
    expect(() => fine.done()).not.toThrow()
  })
})
