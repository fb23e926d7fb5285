import { InvalidInputError } from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { generateJson } from './generate-json.js'

const PERSON = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'age', 'tags'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 20 },
    age: { type: 'integer', minimum: 0, maximum: 130 },
    tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, uniqueItems: true },
    email: { type: 'string', format: 'email' },
  },
}

describe('generateJson', () => {
  it('generates values ajv accepts, the same for the same seed', () => {
    const validator = compileJsonSchema(PERSON)
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const value = generateJson(PERSON, { seed })
        expect(validator.validate(value)).toEqual({ ok: true })
        expect(generateJson(PERSON, { seed })).toEqual(value)
      }),
      { numRuns: 100 },
    )
  })

  it('honours maxDepth', () => {
    const tree = {
      $defs: {
        node: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        },
      },
      $ref: '#/$defs/node',
    }
    const depth = (v: unknown): number =>
      typeof v === 'object' && v !== null
        ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depth))
        : 0
    expect(depth(generateJson(tree, { seed: 3, maxDepth: 0 }))).toBeLessThanOrEqual(2)
  })

  it.each([
    ['options missing', PERSON, undefined, 'generateJson options'],
    ['a seed that is not an integer', PERSON, { seed: 1.5 }, 'seed'],
    ['maxDepth out of range', PERSON, { seed: 1, maxDepth: 99 }, 'maxDepth'],
    ['an unknown option', PERSON, { seed: 1, depth: 3 }, 'generateJson options.depth'],
    ['a schema that is not one', 'string', { seed: 1 }, 'schema'],
    ['an unsupported keyword', { not: { type: 'string' } }, { seed: 1 }, '#'],
    ['a regex bomb', { type: 'string', pattern: '^((a{1000}){1000}){1000}$' }, { seed: 1 }, '#'],
    ['an invalid schema', { type: 'object', properties: 5 }, { seed: 1 }, '#'],
  ])('refuses %s with InvalidInputError naming the field', (_, schema, options, field) => {
    let caught: unknown
    try {
      generateJson(schema as never, options as never)
    } catch (error) {
      caught = error
    }
    expect(InvalidInputError.isInstance(caught)).toBe(true)
    expect((caught as InvalidInputError).details.field).toBe(field)
  })
})
