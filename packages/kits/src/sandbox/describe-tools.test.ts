/**
 * describeTools: the declarations read as intended, and they compile with the TypeScript compiler (5.9),
 * both for hand-written tool schemas and for random schemas whose valid values must type-check (property).
 */
import type { JsonSchema } from '@agent-core/core'
import { compileJsonSchema, defineModelTool } from '@agent-core/core/tools'
import { defineToolLifecycle } from '@agent-core/kits/tools'
import fc from 'fast-check'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { defineDescribeTool, describeTools } from './index.js'
import { SchemaRenderer } from './internal/schema-to-ts.js'
import { shop } from './testing/fixtures.js'

/** Type-checks one script file (strict, ES2022 library) and returns its diagnostics as text. */
function compile(source: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
    exactOptionalPropertyTypes: false,
  }
  const host = ts.createCompilerHost(options)
  const read = host.getSourceFile.bind(host)
  host.getSourceFile = (name, language, ...rest) =>
    name === 'tools.ts' ? ts.createSourceFile(name, source, language) : read(name, language, ...rest)
  const program = ts.createProgram(['tools.ts'], options, host)
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.start ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

const orderSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['customer', 'lines'],
  additionalProperties: false,
  $defs: {
    line: {
      type: 'object',
      description: 'One line of the order',
      required: ['sku', 'quantity'],
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
        quantity: { type: 'integer', minimum: 1, default: 1 },
        note: { type: ['string', 'null'] },
      },
    },
    tree: {
      type: 'object',
      properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/tree' } } },
    },
  },
  properties: {
    customer: { type: 'string', format: 'email', description: 'Who pays; ends the comment? */ no' },
    lines: { type: 'array', items: { $ref: '#/$defs/line' }, minItems: 1 },
    priority: { enum: ['low', 'high', 3, null] },
    channel: { const: 'web' },
    'delivery-date': { type: 'string', format: 'date' },
    point: {
      type: 'array',
      prefixItems: [{ type: 'number' }, { type: 'number' }],
      items: false,
      minItems: 2,
    },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    mixed: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] },
    both: {
      allOf: [
        { type: 'object', properties: { a: { type: 'number' } } },
        { type: 'object', properties: { b: { type: 'string' } } },
      ],
    },
    free: {},
    category: { $ref: '#/$defs/tree' },
    legacy: { type: 'string', nullable: true, deprecated: true },
  },
} as const

const placeOrder = defineModelTool({
  id: 'place_order',
  description: 'Places an order.\nReturns its id.',
  inputSchema: orderSchema,
  outputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  execute: () => ({ orderId: 'O-1' }),
})
const dashed = defineModelTool({
  id: 'send-mail',
  description: 'Sends an email',
  inputSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } },
  execute: () => 'sent',
})
const reserved = defineModelTool({
  id: 'delete',
  description: 'A reserved word',
  inputSchema: {},
  execute: () => 1,
})

describe('describeTools', () => {
  it('renders a declaration per tool, with doc comments, named $ref types and a tools object', () => {
    const text = describeTools([placeOrder, dashed, reserved, ...shop().tools])
    expect(text).toContain(
      '/**\n * Places an order.\n * Returns its id.\n */\ndeclare function place_order(input: {',
    )
    expect(text).toContain(
      '  /**\n   * Who pays; ends the comment? *\\/ no\n   * format: email\n   */\n  customer: string;',
    )
    expect(text).toContain('  lines: PlaceOrderLine[];')
    expect(text).toContain('  priority?: "low" | "high" | 3 | null;')
    expect(text).toContain('  channel?: "web";')
    expect(text).toContain('  "delivery-date"?: string;')
    expect(text).toContain('  point?: [number, number];')
    expect(text).toContain('  tags?: Record<string, string>;')
    expect(text).toContain('  mixed?: string | number[];')
    expect(text).toContain('  free?: unknown;')
    expect(text).toContain('  category?: PlaceOrderTree;')
    expect(text).toContain('  /** @deprecated */\n  legacy?: string | null;')
    expect(text).toContain('}): Promise<{\n  orderId: string;\n}>;')
    expect(text).toContain('/** One line of the order */\ntype PlaceOrderLine = {')
    expect(text).toContain('  /** integer; minimum: 1; default: 1 */\n  quantity: number;')
    expect(text).toContain('type PlaceOrderTree = {\n  label?: string;\n  children?: PlaceOrderTree[];\n};')
    expect(text).toContain(
      '  /** Sends an email */\n  readonly "send-mail": (input: {\n  to: string;\n}) => Promise<unknown>;',
    )
    expect(text).toContain('  readonly delete: (input?: unknown) => Promise<unknown>;')
    expect(text).toContain('  readonly place_order: typeof place_order;')
    expect(text).toContain('declare class ToolCallError extends Error {')
    expect(text).not.toContain('declare function delete')
  })

  it('compiles with the TypeScript compiler, and types calls the way the tools accept them', () => {
    const declarations = describeTools([placeOrder, dashed, reserved, ...shop().tools])
    const usage = `
async function main(): Promise<void> {
  const { orderId } = await place_order({
    customer: 'ana@example.com',
    lines: [{ sku: 'ABC-1', quantity: 2, note: null }],
    priority: 3,
    point: [1, 2],
    category: { label: 'root', children: [{ label: 'leaf' }] },
  })
  const id: string = orderId
  await tools['send-mail']({ to: id })
  await tools.delete()
  const order = await lookup_order({ orderId: 'A-17' })
  await refund({ orderId: 'A-17', amount: 3 })
  try { await refund({ orderId: 'A-17', amount: 300 }) } catch (error) {
    if (error instanceof ToolCallError && error.code === 'tool-rejected') return
  }
  void order
}
void main
`
    expect(compile(declarations + usage)).toEqual([])
    const wrong = `void place_order({ customer: 1, lines: [] })\nvoid refund({ orderId: 'A-17' })\nvoid place_order({ customer: 'a', lines: [], channel: 'shop' })\n`
    expect(compile(declarations + wrong)).toHaveLength(3)
  })

  it('caches the text of a frozen list or a registry, and checks its tools', () => {
    const tools = Object.freeze([dashed])
    expect(describeTools(tools)).toBe(describeTools(tools))
    expect(() => describeTools([1] as never)).toThrow(expect.objectContaining({ code: 'invalid-definition' }))
    expect(() => describeTools([dashed, dashed])).toThrow(expect.objectContaining({ code: 'duplicate-id' }))
  })

  it('has a companion tool that answers the declarations of all or some tools', async () => {
    const describeTool = defineDescribeTool({ tools: [placeOrder, defineToolLifecycle(dashed)] })
    expect(describeTool.id).toBe('describe_tools')
    const some = await describeTool.execute({ ids: ['send-mail'] }, { invocationId: 'inv_1' } as never)
    expect(some).toContain('"send-mail"')
    expect(some).not.toContain('place_order(')
    const all = await describeTool.execute({}, { invocationId: 'inv_2' } as never)
    expect(all).toContain('declare function place_order')
  })
})

/** A JSON Schema together with an arbitrary of values it accepts. */
type Generated = { schema: Record<string, unknown>; values: fc.Arbitrary<unknown> }

const key = fc
  .oneof(
    fc.constantFrom(
      'a',
      'id',
      'total',
      'with space',
      'dash-ed',
      '0start',
      'quote"d',
      'ünï',
      '$ref',
      'constructor',
    ),
    fc.string({ maxLength: 6 }),
  )
  .filter((k) => k !== '__proto__')
/**
 * Keys of an index-signature object. TypeScript types the value of a literal key named like a member of
 * `Object.prototype` (`constructor`, `toString`, ...) by that member, not by the index signature, so
 * `{ constructor: [1, 2] }` does not meet `{ [key: string]: [number, number] }` however the schema is
 * rendered; such keys are kept for declared properties only, where the rendered type names them.
 */
const dictionaryKey = key.filter((k) => !(k in Object.prototype))
const primitive = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))

const leaf: fc.Arbitrary<Generated> = fc.oneof(
  fc.constant({ schema: { type: 'string' }, values: fc.string({ maxLength: 10 }) }),
  fc.constant({ schema: { type: 'number' }, values: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.constant({ schema: { type: 'integer', minimum: 0 }, values: fc.nat() }),
  fc.constant({ schema: { type: 'boolean' }, values: fc.boolean() }),
  fc.constant({ schema: { type: 'null' }, values: fc.constant(null) }),
  fc.constant({ schema: {}, values: fc.jsonValue({ maxDepth: 2 }) }),
  fc.constant({
    schema: { type: ['string', 'null'] },
    values: fc.option(fc.string({ maxLength: 4 }), { nil: null }),
  }),
  primitive.map((value) => ({ schema: { const: value }, values: fc.constant(value) })),
  fc
    .uniqueArray(primitive, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) })
    .map((options) => ({ schema: { enum: options }, values: fc.constantFrom(...options) })),
)

const generated: fc.Arbitrary<Generated> = fc.letrec<{ node: Generated }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((item) => ({
      schema: { type: 'array', items: item.schema },
      values: fc.array(item.values, { maxLength: 3 }),
    })),
    fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({
      schema: { type: 'array', prefixItems: [a.schema, b.schema], items: false, minItems: 2 },
      values: fc.tuple(a.values, b.values),
    })),
    fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({
      schema: { anyOf: [a.schema, b.schema] },
      values: fc.oneof(a.values, b.values),
    })),
    tie('node').map((item) => ({
      schema: { type: 'object', additionalProperties: item.schema },
      values: fc.dictionary(dictionaryKey, item.values, { maxKeys: 3 }),
    })),
    fc
      .uniqueArray(fc.tuple(key, tie('node'), fc.boolean()), { maxLength: 4, selector: ([k]) => k })
      // A declared property named like an Object.prototype member is required: the reference model (ajv,
      // without `ownProperties`) reads an absent `constructor` from the prototype and rejects the value.
      .map((fields) =>
        fields.map(([k, item, required]) => [k, item, required || k in Object.prototype] as const),
      )
      .map((fields) => ({
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(
            fields.map(([k, item]) => [k, { ...item.schema, description: `the ${k}` }]),
          ),
          required: fields.filter(([, , required]) => required).map(([k]) => k),
        },
        values: fc.record(Object.fromEntries(fields.map(([k, item]) => [k, item.values])), {
          requiredKeys: fields.filter(([, , required]) => required).map(([k]) => k),
        }),
      })),
  ),
})).node

describe('JSON Schema to TypeScript (property)', () => {
  it('a value the schema accepts type-checks against the rendered type', () => {
    const pair = generated.chain((item) => item.values.map((value) => ({ schema: item.schema, value })))
    fc.assert(
      fc.property(fc.array(pair, { minLength: 10, maxLength: 25 }), (pairs) => {
        const lines = pairs.map(({ schema, value }, index) => {
          // The reference model: ajv accepts the value.
          expect(compileJsonSchema(schema as JsonSchema).validate(value)).toEqual({ ok: true })
          const type = new SchemaRenderer(schema as JsonSchema, `T${index}`, new Set()).render(schema)
          return `const v${index}: ${type} = ${JSON.stringify(value)}\nvoid v${index}\n`
        })
        expect(compile(lines.join(''))).toEqual([])
      }),
      { numRuns: 6 },
    )
  })
})
