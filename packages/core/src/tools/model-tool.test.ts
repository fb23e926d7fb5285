import { describe, expect, it } from 'vitest'
import { createOperationContext } from '../context.js'
import { MemoryDiagnosticSink } from '../diagnostics.js'
import {
  AbortedError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
} from '../errors/errors.js'
import { compileJsonSchema } from './compile-json-schema.js'
import { createInvocationId, defineModelTool, invokeModelTool } from './model-tool.js'

const add = defineModelTool<{ a: number; b: number }, number>({
  id: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    required: ['a', 'b'],
    additionalProperties: false,
    properties: { a: { type: 'number' }, b: { type: 'number' } },
  },
  outputSchema: { type: 'number' },
  execute: ({ a, b }) => a + b,
})

describe('ModelTool', () => {
  it('validates input, allocates an invocation id, passes the context and journals', async () => {
    const memory = new MemoryDiagnosticSink()
    const seen: string[] = []
    const echo = defineModelTool<{ q: string }, string, { user: string }>({
      id: 'echo',
      description: 'echo',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async (input, context) => {
        seen.push(context.invocationId, context.app.user)
        return input.q
      },
    })
    const context = createOperationContext({ app: { user: 'u1' }, diagnostics: memory.sink })
    const result = await invokeModelTool(echo, { q: 'hi' }, context)
    expect(result.output).toBe('hi')
    expect(result.invocationId).toMatch(/^inv_/)
    expect(seen).toEqual([result.invocationId, 'u1'])
    expect(memory.kinds()).toEqual(['tool-invocation-start', 'tool-invocation-finish'])
    expect(memory.events[0]?.data).toMatchObject({ toolId: 'echo', invocationId: result.invocationId })
  })

  it('reuses an invocation id given by the caller', async () => {
    const result = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext(), {
      invocationId: 'inv_given',
    })
    expect(result).toMatchObject({ invocationId: 'inv_given', output: 3, toolId: 'add' })
  })

  it('rejects bad input before execute, listing every issue', async () => {
    let executed = false
    const tool = defineModelTool({
      ...add,
      id: 'add2',
      execute: () => {
        executed = true
        return 0
      },
    })
    const error = await invokeModelTool(tool, { a: 'x', c: 1 }, createOperationContext()).catch((e) => e)
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect(error.message).toContain('/a must be number')
    expect(error.message).toContain('required property')
    expect(error.message).toContain('unexpected property "c"')
    expect(executed).toBe(false)
  })

  it('rejects output that does not match outputSchema', async () => {
    const bad = defineModelTool({ ...add, id: 'bad', execute: () => 'three' as unknown as number })
    await expect(invokeModelTool(bad, { a: 1, b: 2 }, createOperationContext())).rejects.toSatisfy((e) =>
      InvalidOutputError.isInstance(e),
    )
  })

  it('does not execute when the signal is already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(
      invokeModelTool(add, { a: 1, b: 2 }, createOperationContext({ signal: controller.signal })),
    ).rejects.toSatisfy((e) => AbortedError.isInstance(e))
  })

  it('surfaces a throwing tool as is and journals the failure', async () => {
    const memory = new MemoryDiagnosticSink()
    const failing = defineModelTool({
      ...add,
      id: 'failing',
      execute: () => {
        throw new Error('disk full')
      },
    })
    await expect(
      invokeModelTool(failing, { a: 1, b: 2 }, createOperationContext({ diagnostics: memory.sink })),
    ).rejects.toThrow('disk full')
    expect(memory.kinds()).toEqual(['tool-invocation-start', 'tool-invocation-fail'])
  })

  it.each([
    [{ ...add, id: 'has space' }, /id must match/],
    [{ ...add, id: 'x'.repeat(65) }, /id must match/],
    [{ ...add, id: 7 }, /id must match/],
    [{ ...add, description: undefined }, /description/],
    [{ ...add, execute: 'no' }, /execute/],
    [{ ...add, inputSchema: { type: 'nonsense' } }, /not a valid JSON Schema/],
    [{ ...add, inputSchema: [] }, /JSON Schema object/],
    [null, /must be an object/],
  ])('rejects a malformed definition (%#)', (definition, message) => {
    expect(() => defineModelTool(definition as never)).toThrow(InvalidDefinitionError)
    expect(() => defineModelTool(definition as never)).toThrow(message)
  })

  it('allocates unique invocation ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, createInvocationId))
    expect(ids.size).toBe(1000)
  })

  it('compileJsonSchema caches per schema object and validates formats', () => {
    const schema = { type: 'string', format: 'email' }
    expect(compileJsonSchema(schema)).toBe(compileJsonSchema(schema))
    expect(compileJsonSchema(schema).validate('a@b.co')).toEqual({ ok: true })
    expect(compileJsonSchema(schema).validate('nope').ok).toBe(false)
    expect(compileJsonSchema(true).validate(1)).toEqual({ ok: true })
  })
})

describe('compileJsonSchema drafts and hygiene', () => {
  it('a property named like an Object.prototype member is present only as an own property', () => {
    for (const draft of [undefined, 'http://json-schema.org/draft-07/schema#']) {
      const schema = {
        ...(draft ? { $schema: draft } : {}),
        type: 'object',
        properties: { constructor: { type: 'integer' }, toString: { type: 'string' } },
        required: ['toString'],
      }
      const validator = compileJsonSchema(schema)
      expect(validator.validate({ toString: 'x' })).toEqual({ ok: true })
      expect(validator.validate({ toString: 'x', constructor: 3 })).toEqual({ ok: true })
      expect(validator.validate({ toString: 'x', constructor: 'no' }).ok).toBe(false)
      // an inherited toString does not satisfy `required`
      expect(validator.validate({}).ok).toBe(false)
    }
  })

  it('compiles 2020-12 by default (prefixItems) and draft-07 when declared or needed (tuple items)', () => {
    const tuple2020 = compileJsonSchema({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
    })
    expect(tuple2020.validate(['a', 1]).ok).toBe(true)
    expect(tuple2020.validate(['a', 1, 2]).ok).toBe(false)
    const tuple07 = compileJsonSchema({ type: 'array', items: [{ type: 'string' }], additionalItems: false })
    expect(tuple07.validate(['a']).ok).toBe(true)
    expect(tuple07.validate(['a', 'b']).ok).toBe(false)
    const declared = compileJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema', type: 'string' })
    expect(declared.validate('x').ok).toBe(true)
    const meta2020 = compileJsonSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'integer',
    })
    expect(meta2020.validate(1.5).ok).toBe(false)
  })

  it('accepts the same $id in many fresh schema objects (per-request schemas)', () => {
    for (let i = 0; i < 3; i++) {
      const v = compileJsonSchema({ $id: 'https://example.com/answer', type: 'object', required: ['a'] })
      expect(v.validate({ a: 1 }).ok).toBe(true)
    }
  })

  it('reports, rather than throws, when a value cannot be compared', () => {
    const v = compileJsonSchema({ enum: [{ a: 1 }] })
    const odd = { a: 1, valueOf: 5 }
    expect(v.validate(odd).ok).toBe(false)
  })
})
