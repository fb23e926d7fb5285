import { formatSchemaIssues } from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { generateFromSchema } from './generate-from-schema.js'

type Schema = Record<string, unknown>

const FORMATS = ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname'] as const
const PATTERNS = [
  '^[A-Z]{3}-\\d{4}$',
  '^[a-z]+$',
  '^(foo|bar)(-\\d{1,3})?$',
  '^#[0-9a-f]{6}$',
  'id',
  '^\\w{2,8}$',
]
const KEYS = ['id', 'name', 'count', 'tags', 'meta', 'kind', 'value', 'items', 'when', 'ok']

const stringSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc
    .record({ minLength: fc.nat(6), span: fc.nat(12), bounded: fc.boolean() })
    .map(({ minLength, span, bounded }) =>
      bounded ? { type: 'string', minLength, maxLength: minLength + span } : { type: 'string', minLength },
    ),
  fc
    .uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 })
    .map((values) => ({ type: 'string', enum: values })),
  fc.constantFrom(...FORMATS).map((format) => ({ type: 'string', format })),
  fc
    .record({ pattern: fc.constantFrom(...PATTERNS), minLength: fc.nat(2) })
    .map((s) => ({ type: 'string', ...s })),
  fc.string({ maxLength: 5 }).map((value) => ({ const: value })),
)

const numberSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc
    .record({
      min: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      span: fc.double({ min: 0.001, max: 1e4, noNaN: true }),
      exclusiveLow: fc.boolean(),
      exclusiveHigh: fc.boolean(),
    })
    .map(({ min, span, exclusiveLow, exclusiveHigh }) => ({
      type: 'number',
      [exclusiveLow ? 'exclusiveMinimum' : 'minimum']: min,
      [exclusiveHigh ? 'exclusiveMaximum' : 'maximum']: min + span,
    })),
  fc.double({ min: -1e9, max: 1e9, noNaN: true }).map((minimum) => ({ type: 'number', minimum })),
  fc.constant({ type: 'number' }),
)

const integerSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc
    .record({
      min: fc.integer({ min: -1000, max: 1000 }),
      span: fc.nat(200),
      multipleOf: fc.option(fc.integer({ min: 1, max: 5 })),
    })
    .map(({ min, span, multipleOf }) => ({
      type: 'integer',
      minimum: min,
      maximum: min + span + 5,
      ...(multipleOf === null ? {} : { multipleOf }),
    })),
  fc.integer({ min: -50, max: 50 }).map((exclusiveMinimum) => ({ type: 'integer', exclusiveMinimum })),
  fc.constant({ type: 'integer' }),
)

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  integerSchema,
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  stringSchema.map((s) => (s.type === 'string' && !s.enum ? { ...s, type: ['string', 'null'] } : s)),
  fc.constant({ $ref: '#/$defs/shared' }),
)

/** One schema per type family, so that oneOf branches of distinct families exclude each other. */
function familyOf(tree: fc.Arbitrary<Schema>): fc.Arbitrary<Schema[]> {
  const families: fc.Arbitrary<Schema>[] = [
    stringSchema.filter((s) => s.const === undefined),
    integerSchema,
    fc.constant({ type: 'boolean' }),
    fc.constant({ type: 'null' }),
    tree.map((items) => ({ type: 'array', items })),
    fc.constant({ type: 'object', properties: { x: { type: 'string' } } }),
  ]
  return fc
    .uniqueArray(fc.nat(families.length - 1), { minLength: 2, maxLength: 3 })
    .chain((picked) => fc.tuple(...picked.map((i) => families[i]!)))
}

const { schema: schemaArb } = fc.letrec<{ schema: Schema; object: Schema; array: Schema; combo: Schema }>(
  (tie) => ({
    schema: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'schema' },
      leaf,
      tie('object'),
      tie('array'),
      tie('combo'),
    ),
    object: fc
      .record({
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 4 }),
        requiredMask: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        additional: fc.constantFrom<unknown>(undefined, false, true, { type: 'integer' }),
        minProperties: fc.option(fc.nat(2)),
      })
      .map(({ properties, requiredMask, additional, minProperties }) => {
        const keys = Object.keys(properties)
        const required = keys.filter((_, i) => requiredMask[i])
        const schema: Schema = { type: 'object', properties, required }
        if (additional !== undefined) schema.additionalProperties = additional
        if (minProperties !== null && (additional !== false || keys.length >= minProperties)) {
          schema.minProperties = minProperties
        }
        return schema
      }),
    array: fc.oneof(
      fc
        .record({ items: tie('schema'), minItems: fc.nat(3), span: fc.nat(3) })
        .map(({ items, minItems, span }) => ({ type: 'array', items, minItems, maxItems: minItems + span })),
      fc
        .record({
          items: fc.constantFrom<Schema>(
            { type: 'integer' },
            { type: 'string', minLength: 2 },
            { type: 'string', format: 'uuid' },
          ),
          minItems: fc.nat(4),
        })
        .map(({ items, minItems }) => ({ type: 'array', items, minItems, uniqueItems: true })),
      fc
        .tuple(tie('schema'), tie('schema'))
        .map((prefix) => ({ type: 'array', items: prefix, additionalItems: false, minItems: 2 })),
    ),
    combo: fc.oneof(
      familyOf(tie('schema')).map((branches) => ({ oneOf: branches })),
      fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((branches) => ({ anyOf: branches })),
      fc
        .tuple(fc.integer({ min: -100, max: 100 }), fc.nat(100))
        .map(([min, span]) => ({ allOf: [{ type: 'integer', minimum: min }, { maximum: min + span }] })),
    ),
  }),
)

const documentArb = fc
  .record({ body: schemaArb, shared: stringSchema })
  .map(({ body, shared }) => ({ ...body, $defs: { shared } }) as Schema)

describe('generateFromSchema (property)', () => {
  it('generates values that ajv accepts, deterministically per seed', () => {
    fc.assert(
      fc.property(documentArb, fc.integer(), fc.integer({ min: 0, max: 8 }), (schema, seed, maxDepth) => {
        const value = generateFromSchema(schema, { seed, maxDepth })
        const result = compileJsonSchema(schema).validate(value)
        if (!result.ok) throw new Error(`${JSON.stringify(value)}: ${formatSchemaIssues(result.issues)}`)
        expect(generateFromSchema(schema, { seed, maxDepth })).toEqual(value)
      }),
      { numRuns: 400 },
    )
  })

  it('gives varied values across seeds for schemas with many valid values', () => {
    const wide = fc.oneof(
      stringSchema.filter((s) => s.const === undefined && s.enum === undefined && s.maxLength !== 0),
      numberSchema,
      integerSchema.filter((s) => s.multipleOf === undefined),
    )
    const wrapped = fc.oneof(
      wide,
      wide.map((value) => ({
        type: 'object',
        properties: { value },
        required: ['value'],
        additionalProperties: false,
      })),
      wide.map((items) => ({ type: 'array', items, minItems: 1, maxItems: 1 })),
    )
    fc.assert(
      fc.property(wrapped, (schema) => {
        const values = new Set(
          Array.from({ length: 12 }, (_, seed) => JSON.stringify(generateFromSchema(schema, { seed }))),
        )
        expect(values.size).toBeGreaterThan(1)
      }),
      { numRuns: 150 },
    )
  })
})
