import {
  AbortedError,
  AttemptBudget,
  type ChatModel,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  type ModelRequest,
  TimeoutError,
} from '@agent-core/core'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type ChatCall,
  defineModelBinding,
  defineStructuredOutput,
  generateStructured,
  ModelCalls,
  ModelProviderError,
  StructuredOutputError,
} from './index.js'

const personSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'age'],
  properties: { name: { type: 'string' }, age: { type: 'number' } },
} as const

interface Person {
  name: string
  age: number
}

/** A chat call that answers the given replies in turn and records every request it saw. */
function scripted(replies: string[]): ChatCall & { readonly requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  const call = async (request: ModelRequest) => {
    requests.push(request)
    const reply = replies.shift()
    if (reply === undefined) throw new Error('the script ran out of replies')
    return reply
  }
  return Object.assign(call, { requests })
}

describe('StructuredOutput.parse', () => {
  const person = defineStructuredOutput<Person>({ name: 'Person', schema: personSchema })

  it('reads bare JSON, fenced JSON, JSON inside prose and after a reasoning block', async () => {
    const value = { name: 'Ada', age: 36 }
    for (const reply of [
      '{"name":"Ada","age":36}',
      '```json\n{"name":"Ada","age":36}\n```',
      '```\n{"name":"Ada","age":36}\n```',
      'Here you go:\n```JSON\n{"name": "Ada", "age": 36}\n```\nAnything else?',
      'Sure! {"name": "Ada", "age": 36} Hope that helps.',
      '<think>The user wants {a person}.</think>\n{"name":"Ada","age":36}',
      '  \n{"name":"Ada","age":36}\n  ',
    ]) {
      expect(await person.parse(reply)).toEqual({ ok: true, value })
    }
  })

  it('reports unreadable and invalid replies as issues, never by throwing', async () => {
    expect(await person.parse('')).toMatchObject({
      ok: false,
      issues: [{ keyword: 'json', message: /empty/ }],
    })
    expect(await person.parse('no json here')).toMatchObject({ ok: false, issues: [{ keyword: 'json' }] })
    expect(await person.parse('{"name": "Ada", "age": "36"}')).toEqual({
      ok: false,
      issues: [{ path: '/age', keyword: 'type', message: 'must be number' }],
    })
    expect(await person.parse(42 as never)).toMatchObject({ ok: false, issues: [{ keyword: 'reply' }] })
  })

  it('validates with zod (transforms and defaults applied, issue paths as JSON Pointers)', async () => {
    const schema = z.object({
      name: z.string().transform((name) => name.toUpperCase()),
      tags: z.array(z.string()).default([]),
      address: z.object({ city: z.string() }),
    })
    const output = defineStructuredOutput({ name: 'Record', schema })
    expect(output.jsonSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['name']) })
    expect(output.instructions).toContain('"address"')
    const ok = await output.parse('{"name": "ada", "address": {"city": "London"}}')
    expect(ok).toEqual({ ok: true, value: { name: 'ADA', tags: [], address: { city: 'London' } } })
    const bad = await output.parse('{"name": "ada", "address": {"city": 3}}')
    expect(bad).toMatchObject({ ok: false, issues: [{ path: '/address/city', keyword: 'schema' }] })
  })

  it('validates with valibot (no JSON Schema of its own unless given) and arktype', async () => {
    const valibot = defineStructuredOutput({ schema: v.object({ n: v.pipe(v.number(), v.minValue(1)) }) })
    expect(valibot.jsonSchema).toBeUndefined()
    expect(await valibot.parse('{"n": 2}')).toEqual({ ok: true, value: { n: 2 } })
    expect(await valibot.parse('{"n": 0}')).toMatchObject({ ok: false, issues: [{ path: '/n' }] })
    const shown = defineStructuredOutput({
      schema: v.object({ n: v.number() }),
      jsonSchema: { type: 'object', properties: { n: { type: 'number' } } },
    })
    expect(shown.instructions).toContain('"n":{"type":"number"}')

    const ark = defineStructuredOutput({ schema: type({ name: 'string', age: 'number' }) })
    expect(ark.jsonSchema).toMatchObject({ type: 'object' })
    expect(await ark.parse('{"name": "Ada", "age": 36}')).toEqual({
      ok: true,
      value: { name: 'Ada', age: 36 },
    })
    const wrong = await ark.parse('{"name": "Ada"}')
    expect(wrong).toMatchObject({ ok: false, issues: [{ path: '/age' }] })
  })

  it('refuses malformed definitions with typed errors', () => {
    expect(() => defineStructuredOutput(null as never)).toThrow(InvalidDefinitionError)
    expect(() => defineStructuredOutput({ schema: 'string' as never })).toThrow(InvalidDefinitionError)
    expect(() => defineStructuredOutput({ schema: { type: 'nonsense' } })).toThrow(InvalidDefinitionError)
    expect(() => defineStructuredOutput({ schema: {}, name: 'has space' })).toThrow(/name/)
    expect(() => defineStructuredOutput({ schema: {}, maxCorrections: -1 })).toThrow(/maxCorrections/)
    expect(() => defineStructuredOutput({ schema: {}, maxCorrections: 1.5 })).toThrow(InvalidDefinitionError)
    expect(() =>
      defineStructuredOutput({
        schema: { '~standard': { version: 2, vendor: 'x', validate: () => ({}) } } as never,
      }),
    ).toThrow(/version/)
  })
})

describe('generateStructured', () => {
  it('feeds validation issues back once by default, then succeeds; the sequence of requests is recorded', async () => {
    const model = scripted(['{"name": "Ada", "age": "thirty-six"}', '{"name": "Ada", "age": 36}'])
    const result = await generateStructured<Person>({
      model,
      schema: personSchema,
      name: 'Person',
      system: 'You extract people.',
      prompt: 'Ada Lovelace, 36.',
    })
    expect(result.value).toEqual({ name: 'Ada', age: 36 })
    expect(result.attempts).toBe(2)
    expect(result.refused).toEqual([
      {
        text: '{"name": "Ada", "age": "thirty-six"}',
        issues: [{ path: '/age', keyword: 'type', message: 'must be number' }],
      },
    ])
    const [first, second] = model.requests
    expect(first?.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(first?.messages[0]?.content).toMatch(/^You extract people\.\n\nReply with exactly one JSON value/)
    expect(first?.messages[0]?.content).toContain(JSON.stringify(personSchema))
    expect(first?.responseFormat).toBeUndefined()
    expect(second?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(second?.messages[2]?.content).toBe('{"name": "Ada", "age": "thirty-six"}')
    expect(second?.messages[3]?.content).toBe(
      'Your previous reply could not be used as "Person":\n- /age: must be number\nReply again with only the corrected JSON value.',
    )
  })

  it('fails with StructuredOutputError carrying every refused reply and the last issues', async () => {
    const model = scripted(['nope', '{"name": 1, "age": 2}'])
    const error = await generateStructured({
      model,
      schema: personSchema,
      name: 'Person',
      prompt: 'x',
    }).catch((e: unknown) => e)
    expect(StructuredOutputError.isInstance(error)).toBe(true)
    const failure = error as StructuredOutputError
    expect(failure.code).toBe('structured-output-invalid')
    expect(failure.details).toMatchObject({
      schemaName: 'Person',
      attempts: 2,
      issues: [{ path: '/name', message: 'must be string' }],
    })
    expect(failure.attempts.map((attempt) => attempt.text)).toEqual(['nope', '{"name": 1, "age": 2}'])
    expect(failure.message).toMatch(/after 2 attempts \(1 correction\)/)
    expect(model.requests).toHaveLength(2)
  })

  it('honours maxCorrections: 0 asks once, 3 asks up to four times', async () => {
    const once = scripted(['bad', '{"name":"A","age":1}'])
    await expect(
      generateStructured({ model: once, schema: personSchema, prompt: 'x', maxCorrections: 0 }),
    ).rejects.toSatisfy((error) => StructuredOutputError.isInstance(error))
    expect(once.requests).toHaveLength(1)
    const four = scripted(['a', 'b', 'c', '{"name":"A","age":1}'])
    const result = await generateStructured({
      model: four,
      schema: personSchema,
      prompt: 'x',
      maxCorrections: 3,
    })
    expect(result.attempts).toBe(4)
    expect(four.requests[3]?.messages).toHaveLength(2 + 3 * 2)
  })

  it('uses a prebuilt output and asks in a provider JSON mode when told', async () => {
    const output = defineStructuredOutput<Person>({ name: 'Person', schema: personSchema, maxCorrections: 0 })
    const model = scripted(['{"name":"A","age":1}', '{"name":"B","age":2}'])
    await generateStructured({
      model,
      output,
      prompt: 'x',
      mode: 'json-schema',
      request: { temperature: 0, seed: 3 },
    })
    expect(model.requests[0]).toMatchObject({
      temperature: 0,
      seed: 3,
      responseFormat: { type: 'json_schema', name: 'Person', schema: personSchema },
    })
    await generateStructured({ model, output, prompt: 'x', mode: 'json-object' })
    expect(model.requests[1]?.responseFormat).toEqual({ type: 'json_object' })
    await expect(
      generateStructured({ model, schema: v.object({}), prompt: 'x', mode: 'json-schema' }),
    ).rejects.toThrow(/no JSON Schema to send/)
    await expect(generateStructured({ model, output, schema: personSchema, prompt: 'x' })).rejects.toThrow(
      /either output or schema/,
    )
  })

  it('works over a ChatModel: each reply takes an attempt and gets a model-call span inside the structured-output span', async () => {
    const replies = ['{"name": "Ada"}', '{"name": "Ada", "age": 36}']
    const model: ChatModel = {
      identity: 'chat-x',
      async generate(request) {
        expect(request.messages.length).toBeGreaterThan(1)
        return {
          message: { role: 'assistant', content: replies.shift() ?? '' },
          finishReason: 'stop',
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        }
      },
    }
    const budget = new AttemptBudget(5)
    const sink = new MemoryDiagnosticSink()
    const result = await generateStructured<Person>(
      { model, schema: personSchema, prompt: 'x' },
      { attemptBudget: budget, diagnostics: sink.sink },
    )
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 })
    expect(budget.used).toBe(2)
    expect(sink.kinds()).toEqual([
      'structured-output-start',
      'model-call-start',
      'model-call-end',
      'model-call-start',
      'model-call-end',
      'structured-output-end',
    ])
    const outer = sink.events[0]?.spanId
    expect(sink.events[1]?.parentSpanId).toBe(outer)
    expect(sink.events[5]?.data).toMatchObject({ outcome: 'ok', attempts: 2 })
  })

  it('works over a ModelCalls binding (ModelCalls meters and spans each call)', async () => {
    const replies = ['```json\n{"name": "Ada", "age": 36}\n```']
    const chat = defineModelBinding({
      id: 'chat',
      identity: 'toy-chat',
      invoke: (request: ModelRequest) => {
        expect(request.messages[0]?.role).toBe('system')
        return replies.shift() ?? ''
      },
    })
    const models = new ModelCalls([chat])
    const budget = new AttemptBudget(1)
    const { value } = await generateStructured<Person>(
      { model: { models, modelId: 'chat', timeoutMs: 1000 }, schema: personSchema, prompt: 'x' },
      { attemptBudget: budget },
    )
    expect(value).toEqual({ name: 'Ada', age: 36 })
    expect(budget.used).toBe(1)
    await expect(
      generateStructured({
        model: { models, modelId: 'other', timeoutMs: 1000 },
        schema: personSchema,
        prompt: 'x',
      }),
    ).rejects.toThrow(/model.modelId/)
    await expect(
      generateStructured({
        model: { models, modelId: 'chat', timeoutMs: 0 },
        schema: personSchema,
        prompt: 'x',
      }),
    ).rejects.toThrow(/timeoutMs/)
  })

  it('passes provider failures, cancellation and timeouts through; they are never corrected', async () => {
    const failure = new ModelProviderError('down', { status: 503 })
    let calls = 0
    const failing: ChatCall = () => {
      calls += 1
      throw failure
    }
    await expect(generateStructured({ model: failing, schema: personSchema, prompt: 'x' })).rejects.toBe(
      failure,
    )
    expect(calls).toBe(1)

    const controller = new AbortController()
    controller.abort()
    await expect(
      generateStructured(
        { model: scripted(['{}']), schema: personSchema, prompt: 'x' },
        { signal: controller.signal },
      ),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))

    const hanging: ChatCall = () => new Promise(() => {})
    await expect(
      generateStructured({ model: hanging, schema: personSchema, prompt: 'x', timeoutMs: 10 }),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error))
  })

  it('treats an empty reply (a tool-calls-only answer) as a reply to correct, and a non-reply as an error', async () => {
    const replies = [
      { message: { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 't', arguments: '{}' }] } },
      { message: { role: 'assistant', content: '{"name":"A","age":1}' } },
    ]
    const result = await generateStructured({
      model: async () => replies.shift() as never,
      schema: personSchema,
      prompt: 'x',
    })
    expect(result.refused[0]?.issues[0]?.message).toMatch(/empty/)
    await expect(
      generateStructured({ model: async () => 42 as never, schema: personSchema, prompt: 'x' }),
    ).rejects.toSatisfy((error) => InvalidOutputError.isInstance(error))
  })

  it('refuses malformed requests before calling the model', async () => {
    const model = scripted([])
    for (const request of [
      null,
      { model, schema: personSchema },
      { model, schema: personSchema, prompt: 3 },
      { model, schema: personSchema, messages: 'hi' },
      { model, schema: personSchema, messages: [{ role: 'robot', content: 'x' }] },
      { model: 'gpt', schema: personSchema, prompt: 'x' },
      { model, prompt: 'x' },
      { model, schema: personSchema, prompt: 'x', timeoutMs: -1 },
      { model, schema: personSchema, prompt: 'x', system: 1 },
      { model, schema: personSchema, prompt: 'x', mode: 'xml' },
      { model, schema: personSchema, prompt: 'x', output: {} },
    ]) {
      await expect(generateStructured(request as never)).rejects.toSatisfy(
        (error) => InvalidInputError.isInstance(error) || InvalidDefinitionError.isInstance(error),
      )
    }
    expect(model.requests).toEqual([])
  })
})
