import { formatSchemaIssues, InvalidInputError, type JsonSchema } from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import { generateFromSchema } from './generate-from-schema.js'

const SEEDS = Array.from({ length: 40 }, (_, i) => i * 7919 + 1)

/** Generates for many seeds, asserts ajv validity and determinism, returns the values. */
function many(schema: JsonSchema, options: { maxDepth?: number } = {}): unknown[] {
  const validator = compileJsonSchema(schema)
  return SEEDS.map((seed) => {
    const value = generateFromSchema(schema, { seed, ...options })
    const result = validator.validate(value)
    if (!result.ok)
      throw new Error(`seed ${seed}: ${JSON.stringify(value)}: ${formatSchemaIssues(result.issues)}`)
    expect(generateFromSchema(schema, { seed, ...options })).toEqual(value)
    return value
  })
}

const distinct = (values: unknown[]): number => new Set(values.map((v) => JSON.stringify(v))).size

describe('generateFromSchema: primitives', () => {
  it('generates null, booleans and untyped values', () => {
    expect(many({ type: 'null' }).every((v) => v === null)).toBe(true)
    expect(new Set(many({ type: 'boolean' }))).toEqual(new Set([true, false]))
    expect(distinct(many({}))).toBeGreaterThan(5)
    expect(distinct(many(true))).toBeGreaterThan(5)
  })

  it('honours integer bounds, exclusive bounds and multipleOf', () => {
    const ints = many({ type: 'integer', minimum: -5, maximum: 5 }) as number[]
    expect(ints.every((v) => Number.isInteger(v) && v >= -5 && v <= 5)).toBe(true)
    expect(distinct(ints)).toBeGreaterThan(4)
    const ex = many({ type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 3 }) as number[]
    expect(new Set(ex)).toEqual(new Set([2]))
    const mult = many({ type: 'integer', minimum: 10, maximum: 100, multipleOf: 7 }) as number[]
    expect(mult.every((v) => v % 7 === 0 && v >= 10 && v <= 100)).toBe(true)
    many({ type: 'integer', multipleOf: 0.5, minimum: 1, maximum: 3 })
    many({ allOf: [{ type: 'integer', multipleOf: 4 }, { multipleOf: 6 }] })
  })

  it('honours number bounds, exclusive bounds and fractional multipleOf', () => {
    const nums = many({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }) as number[]
    expect(nums.every((v) => v > 0 && v < 1)).toBe(true)
    expect(distinct(nums)).toBeGreaterThan(10)
    many({ type: 'number', multipleOf: 0.1, minimum: 0, maximum: 1 })
    many({ type: 'number', multipleOf: 0.01, minimum: 1.5 })
    many({ type: 'number', minimum: 1e6 })
    many({ type: 'number', maximum: -1e6 })
    many({ type: 'number', minimum: 2.5, maximum: 2.5 })
    many({ type: 'number', exclusiveMinimum: 1, maximum: 1.0000001 })
  })

  it('honours string lengths, counted in code points', () => {
    const strings = many({ type: 'string', minLength: 5, maxLength: 8 }) as string[]
    expect(strings.every((s) => s.length >= 5 && s.length <= 8)).toBe(true)
    expect(many({ type: 'string', maxLength: 0 })).toEqual(SEEDS.map(() => ''))
    many({ type: 'string', minLength: 200 })
    many({ type: 'string', pattern: '^\\u{1F600}{2}$', minLength: 2, maxLength: 2 })
  })

  it('generates every supported format, also with length bounds', () => {
    for (const format of ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname']) {
      expect(distinct(many({ type: 'string', format }))).toBeGreaterThan(10)
    }
    many({ type: 'string', format: 'email', minLength: 100, maxLength: 120 })
    many({ type: 'string', format: 'email', maxLength: 10 })
    many({ type: 'string', format: 'hostname', minLength: 150 })
    many({ type: 'string', format: 'hostname', maxLength: 3 })
    many({ type: 'string', format: 'uri', minLength: 60 })
    many({ type: 'string', format: 'date-time', minLength: 26 })
    many({ type: 'string', format: 'time', minLength: 12, maxLength: 12 })
    many({ type: 'string', format: 'uuid', pattern: '^[0-9a-f-]+$' })
  })

  it('generates strings for patterns, padding unanchored ones to minLength', () => {
    const codes = many({ type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' }) as string[]
    expect(codes.every((s) => /^[A-Z]{3}-\d{4}$/.test(s))).toBe(true)
    expect(distinct(codes)).toBe(SEEDS.length)
    many({ type: 'string', pattern: '^[a-z]+$', minLength: 30 })
    many({ type: 'string', pattern: '^[a-z]*$', maxLength: 2 })
    many({ type: 'string', pattern: 'abc', minLength: 10 })
    many({ type: 'string', pattern: '^abc', minLength: 10 })
    many({ type: 'string', pattern: 'abc$', minLength: 10 })
    many({ allOf: [{ type: 'string', pattern: '^[a-c]+$' }, { pattern: 'b' }] })
  })

  it('picks enum and const values, including ones of mixed types', () => {
    expect(new Set(many({ enum: ['a', 1, null, { x: [1] }] }).map((v) => JSON.stringify(v)))).toEqual(
      new Set(['"a"', '1', 'null', '{"x":[1]}']),
    )
    expect(many({ type: 'string', enum: ['a', 2, 'b'] }).every((v) => v === 'a' || v === 'b')).toBe(true)
    expect(many({ const: { deep: [1, 2] } })[0]).toEqual({ deep: [1, 2] })
    expect(new Set(many({ allOf: [{ enum: [1, 2, 3] }, { enum: [2, 3, 4] }] }))).toEqual(new Set([2, 3]))
  })

  it('handles type unions and nullable types', () => {
    const values = many({ type: ['string', 'null'], minLength: 2 })
    expect(values.some((v) => v === null)).toBe(true)
    expect(values.some((v) => typeof v === 'string')).toBe(true)
    expect(many({ type: 'integer', nullable: true }).some((v) => v === null)).toBe(true)
    const mixed = many({ type: ['integer', 'boolean', 'array'], items: { type: 'null' } })
    expect(new Set(mixed.map((v) => (Array.isArray(v) ? 'array' : typeof v)))).toEqual(
      new Set(['number', 'boolean', 'array']),
    )
  })

  it('uses valid examples/default as candidates and ignores invalid ones', () => {
    const values = many({ type: 'string', minLength: 3, examples: ['hello', 'no'], default: 'x' })
    expect(values).toContain('hello')
    expect(values).not.toContain('no')
    expect(values).not.toContain('x')
  })
})

describe('generateFromSchema: objects and arrays', () => {
  const person = {
    type: 'object',
    required: ['name', 'age'],
    properties: {
      name: { type: 'string', minLength: 1 },
      age: { type: 'integer', minimum: 0, maximum: 130 },
      email: { type: 'string', format: 'email' },
      nick: { type: 'string' },
    },
    additionalProperties: false,
  }

  it('always includes required properties and sometimes optional ones', () => {
    const values = many(person) as Record<string, unknown>[]
    expect(values.every((v) => 'name' in v && 'age' in v)).toBe(true)
    expect(values.some((v) => 'email' in v)).toBe(true)
    expect(values.some((v) => !('email' in v))).toBe(true)
    expect(values.every((v) => Object.keys(v).every((k) => k in person.properties))).toBe(true)
  })

  it('keeps a sibling property stable when another property is added to the schema', () => {
    const wider = { ...person, properties: { ...person.properties, zzz: { type: 'boolean' } } }
    for (const seed of SEEDS) {
      const a = generateFromSchema(person, { seed }) as Record<string, unknown>
      const b = generateFromSchema(wider, { seed }) as Record<string, unknown>
      expect(b.name).toEqual(a.name)
      expect(b.age).toEqual(a.age)
    }
  })

  it('honours minProperties/maxProperties and additionalProperties schemas', () => {
    const values = many({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      minProperties: 2,
      maxProperties: 2,
    }) as object[]
    expect(values.every((v) => Object.keys(v).length === 2)).toBe(true)
    const extra = many({
      type: 'object',
      minProperties: 3,
      additionalProperties: { type: 'integer', minimum: 100 },
    }) as Record<string, number>[]
    expect(extra.every((v) => Object.keys(v).length >= 3 && Object.values(v).every((n) => n >= 100))).toBe(
      true,
    )
    many({ type: 'object', required: ['free'], additionalProperties: { type: 'boolean' } })
    const proto = many(
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}'),
    )
    expect(
      proto.every((v) => typeof Object.getOwnPropertyDescriptor(v, '__proto__')?.value === 'string'),
    ).toBe(true)
  })

  it('merges allOf object schemas with per-member additionalProperties semantics', () => {
    const values = many({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] },
        { properties: { b: { minimum: 5 }, c: { type: 'string' } }, required: ['b'] },
        { properties: { a: {}, b: {} }, additionalProperties: false },
      ],
    }) as Record<string, unknown>[]
    expect(values.every((v) => typeof v.a === 'string' && (v.b as number) >= 5 && !('c' in v))).toBe(true)
  })

  it('honours items, minItems/maxItems and uniqueItems', () => {
    const values = many({
      type: 'array',
      items: { type: 'integer', minimum: 0, maximum: 9 },
      minItems: 2,
      maxItems: 4,
    })
    expect(values.every((v) => Array.isArray(v) && v.length >= 2 && v.length <= 4)).toBe(true)
    const unique = many({
      type: 'array',
      items: { enum: ['a', 'b', 'c', 'd'] },
      minItems: 4,
      uniqueItems: true,
    }) as string[][]
    expect(unique.every((v) => new Set(v).size === v.length && v.length === 4)).toBe(true)
    many({ type: 'array', items: { type: 'boolean' }, uniqueItems: true, minItems: 2 })
    many({ type: 'array', items: false })
    many({ type: 'array', minItems: 3 })
  })

  it('generates tuples from prefixItems and from draft-07 array items', () => {
    const tuples = many({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      minItems: 2,
    }) as unknown[][]
    expect(tuples.every((t) => typeof t[0] === 'string' && Number.isInteger(t[1]))).toBe(true)
    const closed = many({
      type: 'array',
      items: [{ const: 'x' }, { type: 'boolean' }],
      additionalItems: false,
      minItems: 2,
    }) as unknown[][]
    expect(closed.every((t) => t.length === 2 && t[0] === 'x' && typeof t[1] === 'boolean')).toBe(true)
    many({
      type: 'array',
      prefixItems: [{ type: 'integer' }],
      items: { type: 'number', minimum: 0 },
      minItems: 3,
    })
  })
})

describe('generateFromSchema: combinators and references', () => {
  it('produces values matching exactly one oneOf branch, even when branches overlap', () => {
    const schema = {
      oneOf: [
        { type: 'integer' },
        { type: 'number', minimum: 0 },
        { type: 'string', maxLength: 3 },
        { type: 'string' },
      ],
    }
    const branches = schema.oneOf.map((b) => compileJsonSchema(b))
    const values = many(schema)
    for (const v of values) expect(branches.filter((b) => b.validate(v).ok).length).toBe(1)
    expect(values.some((v) => typeof v === 'string' && v.length > 3)).toBe(true)
    expect(values.some((v) => typeof v === 'number' && !Number.isInteger(v))).toBe(true)
    expect(values.some((v) => typeof v === 'number' && v < 0)).toBe(true)
  })

  it('applies the keywords beside oneOf/anyOf to the chosen branch', () => {
    const values = many({
      type: 'object',
      required: ['kind'],
      properties: { id: { type: 'string', format: 'uuid' } },
      anyOf: [
        { properties: { kind: { const: 'a' }, a: { type: 'integer' } }, required: ['a'] },
        { properties: { kind: { const: 'b' }, b: { type: 'boolean' } }, required: ['b'] },
      ],
    }) as Record<string, unknown>[]
    expect(new Set(values.map((v) => v.kind))).toEqual(new Set(['a', 'b']))
  })

  it('resolves $defs and definitions references and bounds recursion by maxDepth', () => {
    const tree = {
      $defs: {
        node: {
          type: 'object',
          required: ['value', 'children'],
          additionalProperties: false,
          properties: {
            value: { type: 'integer' },
            children: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
        },
      },
      $ref: '#/$defs/node',
    }
    const depthOf = (n: { children: unknown[] }): number =>
      1 + Math.max(0, ...n.children.map((c) => depthOf(c as { children: unknown[] })))
    for (const maxDepth of [0, 2, 4]) {
      const values = many(tree, { maxDepth }) as { children: unknown[] }[]
      // each tree level is an object plus an array: maxDepth counts both
      expect(Math.max(...values.map(depthOf))).toBeLessThanOrEqual(Math.floor(maxDepth / 2) + 1)
    }
    expect(
      Math.max(...(many(tree, { maxDepth: 6 }) as { children: unknown[] }[]).map(depthOf)),
    ).toBeGreaterThan(2)
    many({
      definitions: { n: { type: 'integer' } },
      type: 'array',
      items: { $ref: '#/definitions/n' },
      minItems: 1,
    })
  })

  it('handles root recursion and a required recursive property that has a terminating branch', () => {
    many({
      type: 'object',
      properties: { name: { type: 'string' }, parent: { $ref: '#' } },
      required: ['name'],
    })
    const list = {
      $defs: {
        cell: {
          type: 'object',
          additionalProperties: false,
          required: ['head', 'tail'],
          properties: {
            head: { type: 'integer' },
            tail: { anyOf: [{ $ref: '#/$defs/cell' }, { type: 'null' }] },
          },
        },
      },
      $ref: '#/$defs/cell',
    }
    many(list, { maxDepth: 3 })
    many(list, { maxDepth: 10 })
  })

  it('supports $ref with sibling keywords and refs into a separate rootSchema', () => {
    many({ $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', minLength: 4 })
    const root = { $defs: { id: { type: 'string', format: 'uuid' } } }
    const sub = { type: 'object', required: ['id'], properties: { id: { $ref: '#/$defs/id' } } }
    const value = generateFromSchema(sub, { seed: 1, rootSchema: root }) as { id: string }
    expect(value.id).toMatch(/^[0-9a-f]{8}-/)
  })

  it('ignores $schema and $id on the root', () => {
    const value = generateFromSchema(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'https://example.com/s',
        type: 'integer',
      },
      { seed: 1 },
    )
    expect(Number.isInteger(value)).toBe(true)
  })
})

describe('generateFromSchema: OpenAI strict structured outputs', () => {
  const strict = {
    type: 'object',
    additionalProperties: false,
    required: ['steps', 'final_answer', 'confidence', 'meta'],
    properties: {
      steps: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['explanation', 'output'],
          properties: { explanation: { type: 'string' }, output: { type: 'string' } },
        },
      },
      final_answer: { type: 'string' },
      confidence: { type: ['number', 'null'], minimum: 0, maximum: 1 },
      meta: {
        anyOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['source', 'kind'],
            properties: {
              source: { type: 'string', format: 'uri' },
              kind: { type: 'string', enum: ['web', 'doc'] },
            },
          },
          { type: 'null' },
        ],
      },
    },
  }

  it('fills every required property and never adds extras', () => {
    const values = many(strict) as Record<string, unknown>[]
    for (const v of values) expect(Object.keys(v)).toEqual(['steps', 'final_answer', 'confidence', 'meta'])
    expect(values.some((v) => v.meta === null)).toBe(true)
    expect(values.some((v) => v.meta !== null)).toBe(true)
  })

  it('terminates for strict recursive schemas with $defs and nullable links', () => {
    const ui = {
      type: 'object',
      additionalProperties: false,
      required: ['root'],
      properties: { root: { $ref: '#/$defs/component' } },
      $defs: {
        component: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'label', 'children', 'attributes'],
          properties: {
            type: { type: 'string', enum: ['div', 'button', 'header'] },
            label: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/component' } },
            attributes: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'value'],
                properties: { name: { type: 'string' }, value: { type: 'string' } },
              },
            },
          },
        },
      },
    }
    many(ui)
  })

  it('varies values across seeds', () => {
    expect(distinct(many(strict))).toBe(SEEDS.length)
  })
})

describe('generateFromSchema: failures', () => {
  it('rejects bad options', () => {
    expect(() => generateFromSchema({}, undefined as unknown as { seed: number })).toThrow(InvalidInputError)
    expect(() => generateFromSchema({}, { seed: Number.NaN })).toThrow(/finite number/)
    expect(() => generateFromSchema({}, { seed: 1, maxDepth: -1 })).toThrow(/maxDepth/)
    expect(() => generateFromSchema({}, { seed: 1, maxDepth: 1.5 })).toThrow(InvalidInputError)
  })

  it('runs assertSupportedSchema first', () => {
    expect(() => generateFromSchema({ type: 'string', not: {} }, { seed: 1 })).toThrow(
      /"not" is not supported/,
    )
  })

  it('explains unbounded required recursion', () => {
    const schema = { type: 'object', required: ['child'], properties: { child: { $ref: '#' } } }
    expect(() => generateFromSchema(schema, { seed: 1 })).toThrow(
      /nesting deeper than .*make recursive properties optional/,
    )
  })

  it('reports constraints it cannot meet together with what to do', () => {
    let caught: unknown
    try {
      generateFromSchema({ allOf: [{ type: 'string', pattern: '^a+$' }, { pattern: '^b+$' }] }, { seed: 1 })
    } catch (error) {
      caught = error
    }
    expect(InvalidInputError.isInstance(caught)).toBe(true)
    expect((caught as InvalidInputError).message).toMatch(
      /Could not generate .* Relax the conflicting constraints/,
    )
    expect((caught as InvalidInputError).details.seed).toBe(1)
  })

  it('reports a oneOf whose branches always overlap', () => {
    expect(() =>
      generateFromSchema(
        { oneOf: [{ type: 'integer' }, { type: 'integer', minimum: 0, maximum: 0 }, { const: 0 }] },
        { seed: 1 },
      ),
    ).not.toThrow()
    expect(() =>
      generateFromSchema({ oneOf: [{ type: 'boolean' }, { enum: [true, false] }] }, { seed: 1 }),
    ).toThrow(/not exactly one/)
  })
})

describe('generateFromSchema size budget', () => {
  it('refuses a value too large to build before generating any of it, instead of exhausting memory', () => {
    const schema = {
      type: 'array',
      minItems: 10_000,
      items: { type: 'array', minItems: 10_000, items: { type: 'string', minLength: 10_000 } },
    }
    let caught: unknown
    try {
      generateFromSchema(schema, { seed: 1 })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(InvalidInputError)
    expect((caught as InvalidInputError).message).toMatch(
      /smallest valid value has about \d+ characters.*too large/,
    )
    expect((caught as InvalidInputError).details).toMatchObject({ keyword: 'schema', path: '#' })
  })

  it('gives up after two over-budget attempts when the size is only known while generating', () => {
    // The up-front estimate reads allOf as its largest member (a lower bound); two members that each
    // require 600 000 characters of different properties only show their sum while generating, where the
    // character budget stops each attempt.
    const part = (prefix: string) => ({
      type: 'object',
      required: Array.from({ length: 100 }, (_, i) => `${prefix}${i}`),
      properties: Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [`${prefix}${i}`, { type: 'string', minLength: 6_000 }]),
      ),
    })
    const schema = { allOf: [part('a'), part('b')] }
    let caught: unknown
    try {
      generateFromSchema(schema, { seed: 1 })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(InvalidInputError)
    expect((caught as InvalidInputError).message).toMatch(/gave up after/)
    expect((caught as InvalidInputError).details).toMatchObject({ attempts: 2 })
  })
})
