import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import type { InferSchema, InferSchemaInput, JsonSchemaType, Schema, SchemaResult } from '../index.js'
import { compileSchema, defineModelTool, type ModelTool } from './index.js'

describe('tool input types inferred from one schema', () => {
  it('zod 4: no generic, the input typed, a wrong field a compile error', () => {
    const weather = defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
      execute: ({ city, days }) => {
        expectTypeOf(city).toEqualTypeOf<string>()
        expectTypeOf(days).toEqualTypeOf<number | undefined>()
        return `sunny in ${city}`
      },
    })
    expectTypeOf(weather).toEqualTypeOf<
      ModelTool<{ city: string; days?: number | undefined }, string, unknown>
    >()
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      // @ts-expect-error the schema has no field `town`
      execute: ({ town }) => `sunny in ${town}`,
    })
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      // @ts-expect-error `city` is a string, not a number
      execute: ({ city }) => city.toFixed(1),
    })
  })

  it('zod 4: execute receives the output of transforms', () => {
    defineModelTool({
      id: 'count',
      description: 'Counts letters',
      inputSchema: z.object({ text: z.string().transform((text) => text.length) }),
      execute: ({ text }) => {
        expectTypeOf(text).toEqualTypeOf<number>()
        return text
      },
    })
  })

  it('valibot 1', () => {
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: v.object({ city: v.string() }),
      execute: ({ city }) => {
        expectTypeOf(city).toEqualTypeOf<string>()
        return city
      },
    })
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: v.object({ city: v.string() }),
      // @ts-expect-error the schema has no field `town`
      execute: ({ town }) => town,
    })
  })

  it('arktype 2', () => {
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: type({ city: 'string', 'days?': 'number' }),
      execute: ({ city, days }) => {
        expectTypeOf(city).toEqualTypeOf<string>()
        expectTypeOf(days).toEqualTypeOf<number | undefined>()
        return city
      },
    })
    defineModelTool({
      id: 'weather',
      description: 'Current weather in a city',
      inputSchema: type({ city: 'string' }),
      // @ts-expect-error the schema has no field `town`
      execute: ({ town }) => town,
    })
  })

  it('an output schema types what execute returns', () => {
    const tool = defineModelTool({
      id: 'temperature',
      description: 'Temperature in a city',
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ celsius: z.number() }),
      execute: () => ({ celsius: 21 }),
    })
    expectTypeOf(tool).toEqualTypeOf<ModelTool<{ city: string }, { celsius: number }, unknown>>()
    // @ts-expect-error the output schema wants a number, execute returns a string
    defineModelTool({
      id: 'temperature',
      description: 'Temperature in a city',
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ celsius: z.number() }),
      execute: () => ({ celsius: 'warm' }),
    })
  })

  it('a JSON Schema written as const is typed too', () => {
    const tool = defineModelTool({
      id: 'search',
      description: 'Searches',
      inputSchema: {
        type: 'object',
        required: ['q'],
        properties: {
          q: { type: 'string' },
          limit: { type: 'integer' },
          sort: { enum: ['asc', 'desc'] },
          tags: { type: 'array', items: { type: 'string' } },
          near: { type: ['string', 'null'] },
        },
      } as const,
      execute: ({ q, limit, sort, tags, near }) => {
        expectTypeOf(q).toEqualTypeOf<string>()
        expectTypeOf(limit).toEqualTypeOf<number | undefined>()
        expectTypeOf(sort).toEqualTypeOf<'asc' | 'desc' | undefined>()
        expectTypeOf(tags).toEqualTypeOf<string[] | undefined>()
        expectTypeOf(near).toEqualTypeOf<string | null | undefined>()
        return q
      },
    })
    expectTypeOf(tool.execute).parameter(0).toHaveProperty('q')
    defineModelTool({
      id: 'search',
      description: 'Searches',
      inputSchema: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } } as const,
      // @ts-expect-error the schema has no property `query`
      execute: ({ query }) => query,
    })
  })

  it('a JSON Schema literal without as const keeps today’s types (explicit generics or unknown)', () => {
    const add = defineModelTool<{ a: number; b: number }, number>({
      id: 'add',
      description: 'Adds',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: ({ a, b }) => a + b,
    })
    expectTypeOf(add).toEqualTypeOf<ModelTool<{ a: number; b: number }, number, unknown>>()
    defineModelTool({
      id: 'raw',
      description: 'Raw',
      inputSchema: { type: 'object' },
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<unknown>()
        return 1
      },
    })
    const withApp = defineModelTool<{ q: string }, string, { user: string }>({
      id: 'echo',
      description: 'Echo',
      inputSchema: { type: 'object' },
      execute: ({ q }, context) => `${context.app.user}: ${q}`,
    })
    expectTypeOf(withApp).toEqualTypeOf<ModelTool<{ q: string }, string, { user: string }>>()
    const loose = defineModelTool<Record<string, unknown>, string>({
      id: 'loose',
      description: 'Loose',
      inputSchema: { type: 'object' },
      execute: (input) => String(input.anything),
    })
    expectTypeOf(loose).toEqualTypeOf<ModelTool<Record<string, unknown>, string, unknown>>()
  })
})

describe('schema types', () => {
  it('InferSchema and InferSchemaInput read every form', () => {
    const length = z.string().transform((text) => text.length)
    expectTypeOf<InferSchema<typeof length>>().toEqualTypeOf<number>()
    expectTypeOf<InferSchemaInput<typeof length>>().toEqualTypeOf<string>()
    const text = v.string()
    expectTypeOf<InferSchema<typeof text>>().toEqualTypeOf<string>()
    expectTypeOf<InferSchema<{ readonly type: 'boolean' }>>().toEqualTypeOf<boolean>()
    expectTypeOf<InferSchema<{ type: string }>>().toEqualTypeOf<unknown>()
    expectTypeOf<JsonSchemaType<true>>().toEqualTypeOf<unknown>()
    expectTypeOf<JsonSchemaType<{ readonly const: 3 }>>().toEqualTypeOf<3>()
    expectTypeOf<
      JsonSchemaType<{ readonly anyOf: readonly [{ readonly type: 'string' }, { readonly type: 'null' }] }>
    >().toEqualTypeOf<string | null>()
    const query = {
      type: 'object',
      required: ['q'],
      properties: {
        q: { type: 'string' },
        limit: { type: 'integer' },
        tags: { type: 'array', items: { type: ['string', 'null'] } },
        sort: { enum: ['asc', 'desc'] },
      },
    } as const
    expectTypeOf<JsonSchemaType<typeof query>>().toEqualTypeOf<{
      q: string
      limit?: number
      tags?: (string | null)[]
      sort?: 'asc' | 'desc'
    }>()
    expectTypeOf<
      JsonSchemaType<{ readonly type: 'object'; readonly additionalProperties: { readonly type: 'number' } }>
    >().toEqualTypeOf<Record<string, number>>()
    expectTypeOf<JsonSchemaType<{ readonly type: 'array' }>>().toEqualTypeOf<unknown[]>()
    expectTypeOf<JsonSchemaType<{ readonly type: 'object' }>>().toEqualTypeOf<Record<string, unknown>>()
    expectTypeOf<JsonSchemaType<false>>().toEqualTypeOf<never>()
  })

  it('compileSchema keeps the value type', () => {
    const compiled = compileSchema(z.object({ n: z.number() }))
    expectTypeOf<Awaited<ReturnType<typeof compiled.validate>>>().toEqualTypeOf<SchemaResult<{ n: number }>>()
    const schema: Schema<{ n: number }> = z.object({ n: z.number() })
    expectTypeOf(schema).toMatchTypeOf<Schema>()
  })
})
