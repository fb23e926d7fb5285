import { InvalidInputError, type JsonSchema } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { assertSupportedSchema } from './assert-supported-schema.js'

/** Asserts the rejection: an InvalidInputError naming the pointer and keyword, with advice. */
function rejection(schema: unknown, pointer: string, keyword: string, problem: RegExp): void {
  let caught: unknown
  try {
    assertSupportedSchema(schema as JsonSchema)
  } catch (error) {
    caught = error
  }
  expect(InvalidInputError.isInstance(caught), `expected a rejection at ${pointer} (${keyword})`).toBe(true)
  const error = caught as InvalidInputError
  expect(error.message).toContain(`at ${pointer} (keyword "${keyword}")`)
  expect(error.message).toMatch(problem)
  expect(error.message).toMatch(/To fix: \S.{8,}\.$/)
  expect(error.details).toMatchObject({ path: pointer, keyword })
}

describe('assertSupportedSchema: accepted schemas', () => {
  it.each<[string, unknown]>([
    ['true', true],
    ['empty', {}],
    [
      'annotations and x- extensions',
      { title: 't', description: 'd', examples: [1], default: 1, 'x-foo': 1 },
    ],
    ['a nullable contradiction that null satisfies', { type: ['integer', 'null'], minimum: 5, maximum: 1 }],
    ['a $ref to definitions', { definitions: { a: { type: 'string' } }, $ref: '#/definitions/a' }],
    ['escaped pointers', { $defs: { 'a/b': { type: 'string' } }, $ref: '#/$defs/a~1b' }],
    [
      'root $schema and $id',
      { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:x', type: 'null' },
    ],
    ['a recursive $ref', { type: 'object', properties: { next: { $ref: '#' } } }],
    ['a tuple', { type: 'array', items: [{ type: 'string' }], additionalItems: false, minItems: 1 }],
  ])('accepts %s', (_, schema) => {
    expect(() => assertSupportedSchema(schema as JsonSchema)).not.toThrow()
  })
})

describe('assertSupportedSchema: shapes and unsupported features', () => {
  it('rejects schemas that are not objects or booleans', () => {
    rejection([], '#', 'schema', /must be an object or a boolean, but got an array/)
    rejection({ properties: { a: 5 } }, '#/properties/a', 'schema', /the number 5/)
    rejection(false, '#', 'false', /no value satisfies/)
  })

  it('rejects cyclic object graphs', () => {
    const a: Record<string, unknown> = { type: 'object' }
    a.properties = { self: a }
    rejection(a, '#/properties/self', 'schema', /cyclic/)
  })

  it.each([
    'not',
    'if',
    'then',
    'else',
    'patternProperties',
    'propertyNames',
    'dependencies',
    'dependentRequired',
    'dependentSchemas',
    'contains',
    'minContains',
    'unevaluatedProperties',
    'unevaluatedItems',
    '$anchor',
    '$dynamicRef',
    '$recursiveRef',
  ])('rejects the unsupported keyword %s', (keyword) => {
    rejection(
      { type: 'object', properties: { a: { [keyword]: {} } } },
      '#/properties/a',
      keyword,
      /is not supported/,
    )
  })

  it.each([
    ['minLength', { type: 'string', minLength: 10_001 }],
    ['minItems', { type: 'array', minItems: 1_000_000_000 }],
    ['minProperties', { type: 'object', minProperties: 50_000 }],
  ])('rejects a %s too large to generate', (keyword, schema) => {
    rejection(schema, '#', keyword, /more than the 10000 MockGPT generates/)
  })

  it('accepts size bounds up to the limit', () => {
    expect(() =>
      assertSupportedSchema({ type: 'string', minLength: 10_000, maxLength: 1_000_000 }),
    ).not.toThrow()
  })

  it('rejects unknown keywords', () => {
    rejection({ type: 'string', minlength: 3 }, '#', 'minlength', /unknown keyword "minlength"/)
  })

  it('rejects nested $schema/$id and malformed $defs', () => {
    rejection({ properties: { a: { $id: 'x' } } }, '#/properties/a', '$id', /only supported on the root/)
    rejection({ items: { $schema: 'x' } }, '#/items', '$schema', /only supported on the root/)
    rejection({ $defs: [] }, '#', '$defs', /object of named schemas/)
  })

  it('rejects references it cannot follow', () => {
    rejection({ $ref: 5 }, '#', '$ref', /must be a string/)
    rejection({ $ref: 'https://example.com/s.json' }, '#', '$ref', /same-document references/)
    rejection({ $ref: '#foo' }, '#', '$ref', /anchor references/)
    rejection({ $defs: {}, $ref: '#/$defs/missing' }, '#', '$ref', /does not resolve/)
    rejection(
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      '#/$defs/b',
      '$ref',
      /loops/,
    )
  })

  it('rejects malformed keyword values', () => {
    rejection({ type: 'text' }, '#', 'type', /must be one of/)
    rejection({ type: [] }, '#', 'type', /must be one of/)
    rejection({ type: ['string', 'string'] }, '#', 'type', /twice/)
    rejection({ type: 'string', nullable: 'yes' }, '#', 'nullable', /boolean/)
    rejection({ nullable: true }, '#', 'nullable', /needs "type"/)
    rejection({ enum: [] }, '#', 'enum', /non-empty array/)
    rejection(
      {
        enum: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      },
      '#',
      'enum',
      /lists a value twice/,
    )
    rejection({ properties: [] }, '#', 'properties', /object of schemas/)
    rejection({ required: 'a' }, '#', 'required', /array of property names/)
    rejection({ required: ['a', 'a'] }, '#', 'required', /twice/)
    rejection({ additionalProperties: 'no' }, '#', 'additionalProperties', /boolean or a schema/)
    rejection(
      { items: { type: 'string' }, additionalItems: false },
      '#',
      'additionalItems',
      /array-form "items"/,
    )
    rejection({ items: 3 }, '#', 'items', /must be a schema/)
    rejection({ prefixItems: [{}], items: [{}] }, '#', 'items', /cannot be combined/)
    rejection({ uniqueItems: 1 }, '#', 'uniqueItems', /boolean/)
    rejection({ pattern: 5 }, '#', 'pattern', /must be a string/)
    rejection({ pattern: '(' }, '#', 'pattern', /not a valid regular expression/)
    rejection({ format: 'color' }, '#', 'format', /"color" is not supported.*date-time/)
    rejection({ multipleOf: 0 }, '#', 'multipleOf', /positive number/)
    rejection({ minLength: -1 }, '#', 'minLength', /non-negative integer/)
    rejection({ maxItems: 1.5 }, '#', 'maxItems', /non-negative integer/)
    rejection({ minimum: 1, exclusiveMinimum: true }, '#', 'exclusiveMinimum', /draft-04 boolean form/)
    rejection({ maximum: '3' }, '#', 'maximum', /finite number/)
    rejection({ anyOf: [] }, '#', 'anyOf', /non-empty array of schemas/)
    rejection({ oneOf: {} }, '#', 'oneOf', /non-empty array of schemas/)
  })

  it('rejects unsupported regex features with a hint', () => {
    rejection(
      { type: 'string', pattern: '^(?=.*\\d).{8,}$' },
      '#',
      'pattern',
      /lookahead.*To fix: express the constraint/,
    )
    rejection({ type: 'string', pattern: '(?<!x)y' }, '#', 'pattern', /lookbehind/)
    rejection(
      { type: 'string', pattern: '^(a)\\1$' },
      '#',
      'pattern',
      /backreference.*To fix: repeat the group/,
    )
    rejection({ type: 'string', pattern: '\\bx' }, '#', 'pattern', /word boundary/)
  })

  it('reports what ajv rejects in parts it does not walk', () => {
    rejection(
      { definitions: { unused: { type: 'nope' } }, type: 'string' },
      '#',
      'schema',
      /ajv rejects the schema/,
    )
  })
})

describe('assertSupportedSchema: contradictions', () => {
  it('rejects empty numeric ranges', () => {
    rejection(
      { type: 'number', minimum: 5, maximum: 1 },
      '#',
      'minimum',
      /minimum 5 and maximum 1 leave no number/,
    )
    rejection({ type: 'number', exclusiveMinimum: 1, maximum: 1 }, '#', 'exclusiveMinimum', /leave no number/)
    rejection(
      { type: 'integer', minimum: 1.2, maximum: 1.8 },
      '#',
      'type',
      /no integer lies between 1.2 and 1.8/,
    )
    rejection(
      { type: 'integer', minimum: 1, maximum: 4, multipleOf: 5 },
      '#',
      'multipleOf',
      /no multiple of 5/,
    )
    rejection({ allOf: [{ type: 'number', minimum: 3 }, { maximum: 2 }] }, '#', 'minimum', /leave no number/)
  })

  it('rejects impossible strings', () => {
    rejection(
      { type: 'string', minLength: 5, maxLength: 2 },
      '#',
      'minLength',
      /minLength 5 is greater than maxLength 2/,
    )
    rejection(
      { type: 'string', format: 'uuid', maxLength: 20 },
      '#',
      'format',
      /"uuid" strings have 36 characters/,
    )
    rejection(
      { allOf: [{ type: 'string', format: 'date' }, { format: 'email' }] },
      '#',
      'format',
      /formats date and email/,
    )
    rejection(
      { type: 'string', pattern: '^\\d{5}$', maxLength: 3 },
      '#',
      'pattern',
      /longer than maxLength 3/,
    )
    rejection(
      { type: 'string', pattern: '^\\d{1,2}$', minLength: 3 },
      '#',
      'pattern',
      /shorter than minLength 3/,
    )
  })

  it('rejects impossible objects', () => {
    rejection(
      { type: 'object', required: ['x'], properties: { y: {} }, additionalProperties: false },
      '#',
      'required',
      /required property "x" is forbidden by additionalProperties: false.*To fix: add "x" to properties/,
    )
    rejection(
      { type: 'object', required: ['x'], properties: { x: false } },
      '#',
      'required',
      /has the schema false/,
    )
    rejection(
      { type: 'object', minProperties: 3, maxProperties: 2 },
      '#',
      'minProperties',
      /greater than maxProperties/,
    )
    rejection(
      { type: 'object', required: ['a', 'b'], maxProperties: 1 },
      '#',
      'maxProperties',
      /2 properties are required/,
    )
    rejection(
      { type: 'object', properties: { a: {} }, additionalProperties: false, minProperties: 2 },
      '#',
      'minProperties',
      /needs more properties than the 1 allowed/,
    )
  })

  it('rejects impossible arrays', () => {
    rejection({ type: 'array', minItems: 3, maxItems: 2 }, '#', 'minItems', /greater than maxItems/)
    rejection({ type: 'array', items: false, minItems: 1 }, '#', 'minItems', /more elements than the 0/)
    rejection(
      { type: 'array', prefixItems: [{ type: 'string' }], items: false, minItems: 1 },
      '#',
      'prefixItems',
      /draft-07 validator ignores prefixItems.*To fix: write the tuple as items: \[\.\.\.\]/,
    )
    rejection(
      { type: 'array', items: { type: 'boolean' }, uniqueItems: true, minItems: 3 },
      '#',
      'uniqueItems',
      /only 2 distinct/,
    )
    rejection(
      { type: 'array', items: { enum: [1, 2] }, uniqueItems: true, minItems: 3 },
      '#',
      'uniqueItems',
      /only 2 distinct/,
    )
  })

  it('rejects enums and types that cannot be met', () => {
    rejection({ type: 'string', enum: [1, 2] }, '#', 'enum', /no enum\/const value satisfies.*must be string/)
    rejection({ type: 'integer', const: 'a' }, '#', 'const', /no enum\/const value/)
    rejection({ allOf: [{ enum: [1] }, { enum: [2] }] }, '#', 'enum', /no value in common/)
    rejection({ allOf: [{ type: 'string' }, { type: 'integer' }] }, '#', 'type', /share no type/)
    rejection({ allOf: [{ type: 'string' }, false] }, '#', 'allOf', /reaches `false`/)
    rejection(
      { properties: { a: { type: 'string', minLength: 3, maxLength: 1 } } },
      '#/properties/a',
      'minLength',
      /greater/,
    )
  })

  it('reports the pointer of a referenced definition', () => {
    rejection(
      {
        $defs: { age: { type: 'integer', minimum: 10, maximum: 1 } },
        properties: { age: { $ref: '#/$defs/age' } },
      },
      '#/$defs/age',
      'minimum',
      /leave no number/,
    )
  })
})
