import { compileJsonSchema } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonEqual } from './json-equal.js'
import { SchemaDocument } from './schema-document.js'

describe('SchemaDocument', () => {
  const root = {
    $defs: {
      'a/b': { type: 'string' },
      'c~d': { type: 'integer' },
      list: [{ type: 'null' }],
      'sp ace': { type: 'boolean' },
    },
    properties: { self: { $ref: '#' }, s: { $ref: '#/$defs/a~1b' } },
  }
  const doc = SchemaDocument.of(root)

  it('is one document per root object', () => {
    expect(SchemaDocument.of(root)).toBe(doc)
  })

  it('resolves JSON Pointers with ~0/~1 escapes, percent-encoding and array indices', () => {
    expect(doc.resolveRef('#')).toBe(root)
    expect(doc.resolveRef('#/$defs/a~1b')).toEqual({ type: 'string' })
    expect(doc.resolveRef('#/$defs/c~0d')).toEqual({ type: 'integer' })
    expect(doc.resolveRef('#/$defs/sp%20ace')).toEqual({ type: 'boolean' })
    expect(doc.resolveRef('#/$defs/list/0')).toEqual({ type: 'null' })
    expect(doc.resolveRef('#/$defs/missing')).toBeUndefined()
    expect(doc.resolveRef('#/$defs/list/x')).toBeUndefined()
    expect(doc.resolveRef('#/$defs/%E0%A4%A')).toBeUndefined()
    expect(doc.resolveRef('#anchor')).toBeUndefined()
    expect(doc.resolveRef('other.json#/a')).toBeUndefined()
  })

  it('interns allOf wrappers by member identity', () => {
    const a = { type: 'string' }
    const b = { minLength: 1 }
    expect(doc.intern([a, b])).toBe(doc.intern([a, b]))
    expect(doc.intern([a, b])).not.toBe(doc.intern([b, a]))
    expect(doc.intern([a, true])).toBe(a)
    expect(doc.intern([a, false])).toBe(false)
    expect(doc.intern([])).toBe(true)
  })

  it('validates sub-schemas whose $refs point elsewhere in the document', () => {
    const s = root.properties.s
    expect(doc.accepts(s, 'x')).toBe(true)
    expect(doc.accepts(s, 1)).toBe(false)
    expect(doc.validator(s)).toBe(doc.validator(s))
    const self = root.properties.self
    expect(doc.accepts(self, { s: 'x', self: { s: 'y' } })).toBe(true)
    expect(doc.accepts(self, { self: { s: 2 } })).toBe(false)
    expect(doc.accepts(true, 1)).toBe(true)
    expect(doc.accepts(false, 1)).toBe(false)
  })

  it('checks type/enum/const nodes without ajv exactly as ajv does', () => {
    // fast-deep-equal (ajv's enum/const) calls `valueOf`/`toString` own properties: keep those keys out.
    const json = fc
      .jsonValue({ maxDepth: 1 })
      .filter((v) => !/"(valueOf|toString|constructor|__proto__)"/.test(JSON.stringify(v)))
    const typeName = fc.constantFrom('null', 'boolean', 'string', 'number', 'integer', 'array', 'object')
    const node = fc.record(
      {
        type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })),
        enum: fc.uniqueArray(json, {
          minLength: 1,
          maxLength: 3,
          comparator: jsonEqual,
        }),
        const: json,
        title: fc.string(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(node, json, fc.boolean(), (schema, value, pickEnum) => {
        const candidate = pickEnum && schema.enum ? schema.enum[0] : value
        const local = SchemaDocument.of(schema)
        expect(local.accepts(schema, candidate)).toBe(compileJsonSchema(schema).validate(candidate).ok)
      }),
      { numRuns: 300 },
    )
  })
})
