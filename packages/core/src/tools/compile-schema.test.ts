import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOperationContext } from '../context.js'
import { InvalidDefinitionError, InvalidInputError, InvalidOutputError } from '../errors/errors.js'
import { isStandardSchema, type StandardSchemaV1 } from '../index.js'
import { compileSchema, standardIssues } from './compile-schema.js'
import { defineModelTool, invokeModelTool, modelToolSchemas } from './model-tool.js'

const context = () => createOperationContext()

/** The same weather tool, its input schema written with each library. */
const cities = {
  zod: z.object({ city: z.string().min(1) }),
  valibot: toStandardJsonSchema(v.object({ city: v.pipe(v.string(), v.minLength(1)) })),
  arktype: type({ city: 'string > 0' }),
}

describe.each(Object.entries(cities))('a tool whose input schema is %s', (vendor, inputSchema) => {
  const weather = defineModelTool({
    id: 'weather',
    description: 'Current weather in a city',
    inputSchema: inputSchema as StandardSchemaV1<unknown, { city: string }>,
    execute: ({ city }) => `sunny in ${city}`,
  })

  it('gives the model the JSON Schema the library writes (no $schema line)', () => {
    const json = modelToolSchemas(weather).input.jsonSchema as Record<string, unknown>
    expect(json).toMatchObject({
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string', minLength: 1 } },
    })
    expect(json).not.toHaveProperty('$schema')
    expect(modelToolSchemas(weather).input.vendor).toBe(vendor)
  })

  it('validates through the library and runs with the valid input', async () => {
    const { output } = await invokeModelTool(weather, { city: 'Oslo' }, context())
    expect(output).toBe('sunny in Oslo')
  })

  it("refuses bad input with the library's issues as details.issues", async () => {
    const error = await invokeModelTool(weather, { city: '' }, context()).catch((e: unknown) => e)
    expect(InvalidInputError.isInstance(error)).toBe(true)
    const issues = (error as InvalidInputError).details.issues ?? []
    expect(issues.length).toBeGreaterThan(0)
    expect(issues[0]).toMatchObject({ path: '/city', keyword: 'schema' })
    expect((error as Error).message).toContain('/city')
  })
})

describe('Standard Schema in model tools', () => {
  it("applies zod's transforms and refinements: execute receives the output", async () => {
    const seen: unknown[] = []
    const tool = defineModelTool({
      id: 'shout',
      description: 'Shouts',
      inputSchema: z.object({
        text: z
          .string()
          .trim()
          .refine((text) => text !== 'no', 'must not be "no"'),
      }),
      outputSchema: z
        .object({ length: z.number().int() })
        .transform(({ length }) => ({ length, even: length % 2 === 0 })),
      execute: ({ text }) => {
        seen.push(text)
        return { length: text.length }
      },
    })
    const { output } = await invokeModelTool(tool, { text: '  hey ' }, context())
    expect(seen).toEqual(['hey'])
    expect(output).toEqual({ length: 3, even: false })
    const refused = await invokeModelTool(tool, { text: 'no' }, context()).catch((e: unknown) => e)
    expect(InvalidInputError.isInstance(refused)).toBe(true)
    expect((refused as InvalidInputError).details.issues?.[0]).toMatchObject({
      path: '/text',
      message: 'must not be "no"',
    })
  })

  it('awaits an asynchronous validator (zod async refinements)', async () => {
    const tool = defineModelTool({
      id: 'lookup',
      description: 'Looks up',
      inputSchema: z.object({ id: z.string().refine(async (id) => id.startsWith('u_'), 'unknown id') }),
      execute: ({ id }) => id,
    })
    expect((await invokeModelTool(tool, { id: 'u_1' }, context())).output).toBe('u_1')
    await expect(invokeModelTool(tool, { id: 'x' }, context())).rejects.toSatisfy((e) =>
      InvalidInputError.isInstance(e),
    )
  })

  it('refuses output the output schema refuses', async () => {
    const tool = defineModelTool({
      id: 'count',
      description: 'Counts',
      inputSchema: type({}),
      outputSchema: type('number.integer'),
      execute: () => 1.5,
    })
    await expect(invokeModelTool(tool, {}, context())).rejects.toSatisfy((e) =>
      InvalidOutputError.isInstance(e),
    )
    expect(modelToolSchemas(tool).output?.jsonSchema).toEqual({ type: 'integer' })
  })

  it('a valibot schema without a converter is a definition error that says what to pass', () => {
    const definition = {
      id: 'weather',
      description: 'Weather',
      inputSchema: v.object({ city: v.string() }),
      execute: () => 'sunny',
    }
    const error = (() => {
      try {
        defineModelTool(definition)
      } catch (e) {
        return e
      }
    })()
    expect(InvalidDefinitionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/valibot Standard Schema that cannot write JSON Schema/)
    expect((error as Error).message).toMatch(/toStandardJsonSchema\(schema\) from @valibot\/to-json-schema/)
    expect((error as InvalidDefinitionError).details).toMatchObject({ field: 'inputSchema' })
  })

  it('a toJSONSchema given with the tool writes the JSON Schema', async () => {
    const tool = defineModelTool({
      id: 'weather',
      description: 'Weather',
      inputSchema: v.object({ city: v.string() }),
      toJSONSchema: (schema) => toJsonSchema(schema as v.GenericSchema),
      execute: ({ city }) => city,
    })
    expect(modelToolSchemas(tool).input.jsonSchema).toMatchObject({
      properties: { city: { type: 'string' } },
    })
    expect((await invokeModelTool(tool, { city: 'Rome' }, context())).output).toBe('Rome')
    expect(() => defineModelTool({ ...tool, id: 'bad', toJSONSchema: 'yes' as never })).toThrow(
      /toJSONSchema .* must be a function/,
    )
  })

  it('a converter that throws is a definition error with the cause', () => {
    const error = (() => {
      try {
        compileSchema(z.object({ when: z.date() }), { what: 'Tool "t" inputSchema' })
      } catch (e) {
        return e
      }
    })()
    expect(InvalidDefinitionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/could not be converted to JSON Schema/)
    expect((error as Error).cause).toBeInstanceOf(Error)
    expect(
      compileSchema(z.object({ when: z.date() }), { requireJsonSchema: false }).jsonSchema,
    ).toBeUndefined()
  })

  it('refuses another Standard Schema version, and values of neither form', () => {
    const v2 = { '~standard': { version: 2, vendor: 'future', validate: () => ({ value: 1 }) } }
    expect(() => compileSchema(v2 as never)).toThrow(/only version 1 is supported/)
    for (const bad of [[], 'object', 3, null]) {
      expect(() => compileSchema(bad as never)).toThrow(InvalidDefinitionError)
    }
  })

  it('reports a validator that throws or returns nonsense as issues, not as a crash', async () => {
    const throwing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'hand',
        validate: () => {
          throw new Error('boom')
        },
        jsonSchema: { input: () => ({}), output: () => ({}) },
      },
    }
    expect(compileSchema(throwing).validate(1)).toEqual({
      ok: false,
      issues: [{ path: '/', keyword: 'schema', message: 'could not be validated: boom' }],
    })
    const nonsense = {
      '~standard': { ...throwing['~standard'], validate: () => 7 },
    } as unknown as StandardSchemaV1
    expect(compileSchema(nonsense).validate(1)).toMatchObject({ ok: false })
    const rejecting = {
      '~standard': { ...throwing['~standard'], validate: () => Promise.reject(new Error('gone')) },
    } as unknown as StandardSchemaV1
    await expect(compileSchema(rejecting).validate(1)).resolves.toMatchObject({
      ok: false,
      issues: [{ message: 'could not be validated: gone' }],
    })
  })

  it('JSON Schema keeps validating with ajv, synchronously, the value unchanged', () => {
    const compiled = compileSchema({ type: 'object', required: ['a'], properties: { a: { type: 'number' } } })
    const value = { a: 1 }
    const result = compiled.validate(value)
    expect(result).toEqual({ ok: true, value })
    expect(compiled.vendor).toBeUndefined()
    expect(compiled.validate({ a: 'x' })).toMatchObject({
      ok: false,
      issues: [{ path: '/a', keyword: 'type' }],
    })
  })

  it('isStandardSchema reads the marker of each library, and not JSON Schema', () => {
    expect(isStandardSchema(z.string())).toBe(true)
    expect(isStandardSchema(v.string())).toBe(true)
    expect(isStandardSchema(type('string'))).toBe(true)
    expect(isStandardSchema({ type: 'string' })).toBe(false)
    expect(isStandardSchema({ '~standard': {} })).toBe(false)
    expect(isStandardSchema(null)).toBe(false)
  })
})

describe('standardIssues', () => {
  /** Reference: decode a JSON Pointer back into its segments (RFC 6901). */
  const decode = (pointer: string): string[] =>
    pointer === '/'
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))

  it('writes each path as a JSON Pointer that decodes back to the path (property)', () => {
    fc.assert(
      fc.property(
        // Root is written '/' (as ajv's issues are), so a lone empty key is left out of the domain.
        fc.array(
          fc.oneof(fc.string({ minLength: 1 }), fc.nat(), fc.record({ key: fc.string({ minLength: 1 }) })),
          {
            maxLength: 6,
          },
        ),
        (path) => {
          const [issue] = standardIssues([{ message: 'bad', path }])
          const keys = path.map((segment) => String(typeof segment === 'object' ? segment.key : segment))
          expect(decode(issue?.path ?? '')).toEqual(keys)
        },
      ),
    )
  })

  it('an empty or missing issue list still yields one issue', () => {
    expect(standardIssues([])).toHaveLength(1)
    expect(standardIssues(undefined)).toHaveLength(1)
    expect(standardIssues([{ message: '' }])).toEqual([
      { path: '/', keyword: 'schema', message: 'is invalid' },
    ])
  })
})
