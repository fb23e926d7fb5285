import { InvalidDefinitionError, InvalidInputError } from '@agent-core/core'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineInteractionProtocol, defineProtocolField } from './index.js'

const shop = defineInteractionProtocol({
  commandField: 'action',
  commands: {
    search: {
      description: 'Searches the catalog',
      fields: {
        query: defineProtocolField({ schema: z.string().trim().min(1).describe('What to look for') }),
        limit: defineProtocolField({ schema: type('1 <= number.integer <= 10'), default: 3 }),
        sort: defineProtocolField({
          schema: toStandardJsonSchema(v.picklist(['price', 'name'])),
          optional: true,
          parse: (sort) => sort.toUpperCase(),
        }),
      },
    },
  },
})

describe('interaction fields as Standard Schemas', () => {
  it("composes each field's JSON Schema into the command's", () => {
    const search = shop.command('search')
    expect(search.fieldSchemas.query).toMatchObject({
      type: 'string',
      minLength: 1,
      description: 'What to look for',
    })
    expect(search.fieldSchemas.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 10, default: 3 })
    expect(search.fieldSchemas.sort).toMatchObject({ enum: ['price', 'name'] })
    expect(search.modelJsonSchema.required).toEqual(['action', 'query'])
  })

  it('runs each field through its library (transforms apply) before parse', () => {
    const selected = shop.select({ action: 'search', query: '  green tea ', sort: 'price' }, undefined)
    expect(selected.input).toEqual({ query: 'green tea', limit: 3, sort: 'PRICE' })
  })

  it("refuses what the library refuses, with its issue under the field's path", () => {
    const error = (() => {
      try {
        shop.select({ action: 'search', query: '   ' }, undefined)
      } catch (e) {
        return e
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).details.issues?.[0]).toMatchObject({
      path: '/query',
      keyword: 'schema',
    })
  })

  it('refuses a field with both forms, with neither, or with a schema that is no Standard Schema', () => {
    const protocol = (field: unknown) =>
      defineInteractionProtocol({
        commandField: 'action',
        commands: { c: { description: 'c', fields: { f: field as never } } },
      })
    expect(() => protocol({ schema: z.string(), jsonSchema: { type: 'string' } })).toThrow(
      /both schema and jsonSchema/,
    )
    expect(() => protocol({})).toThrow(/needs a jsonSchema/)
    expect(() => protocol({ schema: { type: 'string' } })).toThrow(InvalidDefinitionError)
    expect(() => protocol({ schema: v.string() })).toThrow(/toStandardJsonSchema/)
  })
})
