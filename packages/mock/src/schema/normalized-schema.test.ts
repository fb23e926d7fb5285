import { describe, expect, it } from 'vitest'
import { normalize, schemasForIndex, schemasForKey } from './normalized-schema.js'
import { SchemaDocument } from './schema-document.js'

describe('normalize', () => {
  const doc = SchemaDocument.of({})

  it('keeps additionalProperties per allOf member (a member without the key forbids it)', () => {
    const norm = normalize(doc, [
      {
        allOf: [
          { properties: { a: { type: 'string' } }, additionalProperties: false },
          { properties: { b: { type: 'integer' } } },
        ],
      },
    ])
    expect(schemasForKey(norm, 'a')).toEqual([{ type: 'string' }])
    expect(schemasForKey(norm, 'b')).toEqual([false, { type: 'integer' }])
  })

  it('applies items to prefix positions too when prefixItems is used (draft-07 reading)', () => {
    const norm = normalize(doc, [{ prefixItems: [{ type: 'integer' }], items: { minimum: 0 } }])
    expect(schemasForIndex(norm, 0)).toEqual([{ type: 'integer' }, { minimum: 0 }])
    expect(schemasForIndex(norm, 5)).toEqual([{ minimum: 0 }])
  })

  it('intersects types, enums and bounds', () => {
    const norm = normalize(doc, [
      {
        allOf: [
          { type: ['number', 'string'], minimum: 1, enum: [1, 2, 'x'] },
          { type: 'integer', exclusiveMinimum: 1 },
          { enum: [2, 1] },
        ],
      },
    ])
    expect([...norm.types!]).toEqual(['integer'])
    expect(norm.enumValues).toEqual([1, 2])
    expect(norm.lower).toEqual({ value: 1, exclusive: true })
  })
})
