/** The model-endpoint half of the transport matrix: chat completions, Responses, embeddings, models, errors. */
import { compileJsonSchema } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import { payloads, readSse } from './sse.js'
import {
  chat,
  type Json,
  KEY,
  post,
  TIME,
  TOOLS,
  type TransportUnderTest,
  WEATHER,
} from './transport-helpers.js'

/**
 * Registers the model-endpoint tests against the transport `current()` returns: one group of cases per
 * topic, each a function of the shared harness.
 */
export function modelSuite(current: () => TransportUnderTest): void {
  describe('chat completions', () => {
    chatAnswerCases(current)
    chatToolCallCases(current)
    chatStructuredOutputCases(current)
    chatTextEdgeCases(current)
  })
  describe('responses API', () => responsesCases(current))
  describe('embeddings and models', () => {
    embeddingCases(current)
    modelListCases(current)
  })
  describe('OpenAI-shaped errors', () => errorCases(current))
}

/** Chat completions answered as JSON and as a stream of chunks that add up to the same answer. */
function chatAnswerCases(current: () => TransportUnderTest): void {
  it('answers JSON deterministically with usage that adds up', async () => {
    const t = current()
    const first = (await (await post(t, '/v1/chat/completions', chat('Tell me about otters'))).json()) as Json
    const again = (await (await post(t, '/v1/chat/completions', chat('Tell me about otters'))).json()) as Json
    const other = (await (
      await post(t, '/v1/chat/completions', chat('Tell me about beavers'))
    ).json()) as Json
    expect(first.object).toBe('chat.completion')
    expect(first.id).toMatch(/^chatcmpl-/)
    expect(first.choices[0].message.role).toBe('assistant')
    expect(first.choices[0].finish_reason).toBe('stop')
    expect(first.choices[0].message.content).toContain('Tell me about otters')
    expect(again.choices[0].message.content).toBe(first.choices[0].message.content)
    expect(other.choices[0].message.content).not.toBe(first.choices[0].message.content)
    expect(first.usage.total_tokens).toBe(first.usage.prompt_tokens + first.usage.completion_tokens)
    expect(t.mock.usage.calls).toBe(3)
  })

  it('streams a role chunk, one delta per token, the finish chunk, the usage chunk and [DONE]', async () => {
    const t = current()
    const json = (await (await post(t, '/v1/chat/completions', chat('Stream me a story'))).json()) as Json
    const response = await post(
      t,
      '/v1/chat/completions',
      chat('Stream me a story', { stream: true, stream_options: { include_usage: true } }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(response.headers.get('content-length')).toBeNull()
    const { events, error } = await readSse(response)
    expect(error).toBeUndefined()
    expect(events.at(-1)?.data).toBe('[DONE]')
    const chunks = payloads(events) as Json[]
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]?.id)).toBe(true)
    expect(chunks[0]?.choices[0].delta.role).toBe('assistant')
    const contentChunks = chunks.filter(
      (c) => typeof c.choices[0]?.delta.content === 'string' && c.choices[0].delta.content !== '',
    )
    expect(contentChunks.map((c) => c.choices[0].delta.content).join('')).toBe(
      json.choices[0].message.content,
    )
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason)
    expect(finish.map((c) => c.choices[0].finish_reason)).toEqual(['stop'])
    const usage = chunks.at(-1) as Json
    expect(usage.choices).toEqual([])
    expect(usage.usage.completion_tokens).toBe(contentChunks.length)
    expect(usage.usage).toEqual(json.usage)
  })
}

/** Chat completions that call tools: streamed parallel calls, and arguments valid for each tool schema. */
function chatToolCallCases(current: () => TransportUnderTest): void {
  it('streams parallel tool calls interleaved by index with id and name on the first fragment', async () => {
    const t = current()
    t.mock.script({
      reply: {
        type: 'tool-calls',
        calls: [
          { name: 'get_weather', arguments: { city: 'Lisbon', unit: 'c', days: 3 } },
          { name: 'get_time', arguments: { zone: 'Europe/Lisbon' } },
        ],
      },
    })
    const response = await post(
      t,
      '/v1/chat/completions',
      chat('weather and time in Lisbon', { tools: TOOLS, stream: true }),
    )
    const chunks = payloads((await readSse(response)).events) as Json[]
    const fragments = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls ?? []) as Json[])
    const order = fragments.map((f) => f.index as number)
    expect(new Set(order)).toEqual(new Set([0, 1]))
    const firstOfOne = order.indexOf(1)
    expect(order.slice(firstOfOne + 1)).toContain(0)
    const calls = [0, 1].map((index) => {
      const mine = fragments.filter((f) => f.index === index)
      expect(mine[0]?.id).toMatch(/^call_/)
      expect(mine[0]?.type).toBe('function')
      expect(mine.slice(1).every((f) => f.id === undefined && f.function.name === undefined)).toBe(true)
      expect(mine.length).toBeGreaterThan(2)
      return {
        name: mine[0]?.function.name,
        args: JSON.parse(mine.map((f) => f.function.arguments).join('')),
      }
    })
    expect(calls).toEqual([
      { name: 'get_weather', args: { city: 'Lisbon', unit: 'c', days: 3 } },
      { name: 'get_time', args: { zone: 'Europe/Lisbon' } },
    ])
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls')
  })

  it('generates tool arguments that satisfy each tool schema when tools are required or named', async () => {
    const t = current()
    for (const tool_choice of ['required', { type: 'function', function: { name: 'get_time' } }] as const) {
      const body = (await (
        await post(t, '/v1/chat/completions', chat('please help', { tools: TOOLS, tool_choice }))
      ).json()) as Json
      const calls = body.choices[0].message.tool_calls as Json[]
      expect(body.choices[0].finish_reason).toBe('tool_calls')
      expect(body.choices[0].message.content).toBeNull()
      expect(calls.length).toBe(1)
      for (const call of calls) {
        const schema = call.function.name === 'get_weather' ? WEATHER : TIME
        expect(compileJsonSchema(schema).validate(JSON.parse(call.function.arguments))).toEqual({
          ok: true,
        })
      }
      if (typeof tool_choice === 'object') expect(calls[0]?.function.name).toBe('get_time')
    }
    const mentioned = (await (
      await post(t, '/v1/chat/completions', chat('use get_weather and get_time', { tools: TOOLS }))
    ).json()) as Json
    expect(mentioned.choices[0].message.tool_calls.map((c: Json) => c.function.name)).toEqual([
      'get_weather',
      'get_time',
    ])
    const none = (await (
      await post(t, '/v1/chat/completions', chat('use get_weather', { tools: TOOLS, tool_choice: 'none' }))
    ).json()) as Json
    expect(none.choices[0].message.tool_calls).toBeUndefined()
  })
}

/** Chat completions with `response_format`: generated values that validate, and schemas refused with a 400. */
function chatStructuredOutputCases(current: () => TransportUnderTest): void {
  it('answers json_schema with a generated value that validates, and json_object with an object', async () => {
    const t = current()
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['title', 'tags', 'rating', 'contact'],
      properties: {
        title: { type: 'string', minLength: 3, maxLength: 40 },
        tags: {
          type: 'array',
          items: { type: 'string', enum: ['a', 'b', 'c'] },
          minItems: 1,
          maxItems: 3,
          uniqueItems: true,
        },
        rating: { type: 'number', minimum: 0, maximum: 5 },
        contact: { type: 'string', format: 'email' },
        nested: {
          type: 'object',
          required: ['when'],
          properties: { when: { type: 'string', format: 'date-time' } },
        },
      },
    }
    const format = { type: 'json_schema', json_schema: { name: 'review', strict: true, schema } }
    for (const stream of [false, true]) {
      const response = await post(
        t,
        '/v1/chat/completions',
        chat('review it', { response_format: format, stream }),
      )
      expect(response.status).toBe(200)
      const content = stream
        ? (payloads((await readSse(response)).events) as Json[])
            .map((c) => c.choices[0]?.delta.content ?? '')
            .join('')
        : ((await response.json()) as Json).choices[0].message.content
      expect(compileJsonSchema(schema).validate(JSON.parse(content))).toEqual({ ok: true })
    }
    const object = (await (
      await post(t, '/v1/chat/completions', chat('json please', { response_format: { type: 'json_object' } }))
    ).json()) as Json
    expect(typeof JSON.parse(object.choices[0].message.content)).toBe('object')
  })

  it('rejects unsupported and invalid schemas with a 400 that says why', async () => {
    const t = current()
    const unsupported = await post(
      t,
      '/v1/chat/completions',
      chat('x', {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'n', schema: { type: 'object', not: { required: ['a'] } } },
        },
      }),
    )
    expect(unsupported.status).toBe(400)
    const u = (await unsupported.json()) as Json
    expect(u.error.message).toMatch(/not/)
    expect(u.error.param).toBe('response_format.json_schema.schema')
    const invalid = await post(
      t,
      '/v1/chat/completions',
      chat('x', {
        response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'strng' } } },
      }),
    )
    expect(invalid.status).toBe(400)
    expect(((await invalid.json()) as Json).error.code).toBe('invalid_schema')
    const scripted = await post(
      t,
      '/v1/chat/completions',
      chat('x', {
        tools: [
          {
            type: 'function',
            function: { name: 'f', parameters: { type: 'object', patternProperties: { '^a': {} } } },
          },
        ],
        tool_choice: 'required',
      }),
    )
    expect(scripted.status).toBe(400)
    expect(((await scripted.json()) as Json).error.message).toMatch(/patternProperties/)
  })
}

/** Chat completion text at its edges: non-ASCII streamed byte-exact, and `max_completion_tokens`. */
function chatTextEdgeCases(current: () => TransportUnderTest): void {
  it('streams non-ASCII text byte-exact, split on token boundaries', async () => {
    const t = current()
    const text = 'Grüße, 世界! 😀 naïve café — ok'
    t.mock.script({ reply: { type: 'text', text }, times: 2 })
    const stream = await readSse(await post(t, '/v1/chat/completions', chat('unicode', { stream: true })))
    const deltas = (payloads(stream.events) as Json[]).map((c) => c.choices[0]?.delta.content ?? '')
    expect(deltas.join('')).toBe(text)
    const responses = await readSse(
      await post(t, '/v1/responses', { model: 'gpt-4o-mini', input: 'unicode', stream: true }),
    )
    const done = (payloads(responses.events) as Json[]).find((d) => d.type === 'response.output_text.done')
    expect(done?.text).toBe(text)
  })

  it('honours max_completion_tokens with finish_reason length', async () => {
    const t = current()
    const body = (await (
      await post(t, '/v1/chat/completions', chat('a long answer please', { max_completion_tokens: 3 }))
    ).json()) as Json
    expect(body.choices[0].finish_reason).toBe('length')
    expect(body.usage.completion_tokens).toBe(3)
  })
}

/** The Responses API: text and function calls, as JSON and as semantic stream events, and `previous_response_id`. */
function responsesCases(current: () => TransportUnderTest): void {
  it('answers text as JSON and as semantic stream events that add up to the same response', async () => {
    const t = current()
    const json = (await (
      await post(t, '/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'Hello responses',
        instructions: 'Be brief',
      })
    ).json()) as Json
    expect(json.object).toBe('response')
    expect(json.status).toBe('completed')
    const text = json.output[0].content[0].text as string
    expect(text).toContain('Hello responses')
    const { events, error } = await readSse(
      await post(t, '/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'Hello responses',
        instructions: 'Be brief',
        stream: true,
      }),
    )
    expect(error).toBeUndefined()
    const types = events.map((e) => e.event)
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ])
    expect(types.at(-1)).toBe('response.completed')
    const data = payloads(events) as Json[]
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i))
    expect(data.every((d, i) => d.type === types[i])).toBe(true)
    const deltas = data
      .filter((d) => d.type === 'response.output_text.delta')
      .map((d) => d.delta)
      .join('')
    expect(deltas).toBe(text)
    expect((data.at(-1) as Json).response.usage).toEqual(json.usage)
  })

  it('streams function calls with argument deltas and continues a conversation by previous_response_id', async () => {
    const t = current()
    const tools = [{ type: 'function', name: 'get_weather', parameters: WEATHER }]
    const { events } = await readSse(
      await post(t, '/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'call get_weather',
        tools,
        stream: true,
      }),
    )
    const data = payloads(events) as Json[]
    const args = data
      .filter((d) => d.type === 'response.function_call_arguments.delta')
      .map((d) => d.delta)
      .join('')
    const done = data.find((d) => d.type === 'response.function_call_arguments.done') as Json
    expect(done.arguments).toBe(args)
    expect(compileJsonSchema(WEATHER).validate(JSON.parse(args))).toEqual({ ok: true })
    const completed = (data.at(-1) as Json).response
    const call = completed.output.find((o: Json) => o.type === 'function_call')
    expect(call.call_id).toMatch(/^call_/)
    const followUp = (await (
      await post(t, '/v1/responses', {
        model: 'gpt-4o-mini',
        previous_response_id: completed.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
        tools,
      })
    ).json()) as Json
    expect(followUp.output[0].type).toBe('message')
    expect(followUp.output[0].content[0].text).toContain('temp')
    const missing = await post(t, '/v1/responses', {
      model: 'gpt-4o-mini',
      previous_response_id: 'resp_nope',
      input: 'x',
    })
    expect(missing.status).toBe(400)
  })
}

/** Embeddings: deterministic unit vectors, as floats or base64. */
function embeddingCases(current: () => TransportUnderTest): void {
  it('returns deterministic unit vectors of the requested dimensions, as floats or base64', async () => {
    const t = current()
    const floats = (await (
      await post(t, '/v1/embeddings', {
        model: 'text-embedding-3-small',
        input: ['cat', 'dog'],
        dimensions: 8,
      })
    ).json()) as Json
    const base64 = (await (
      await post(t, '/v1/embeddings', {
        model: 'text-embedding-3-small',
        input: ['cat', 'dog'],
        dimensions: 8,
        encoding_format: 'base64',
      })
    ).json()) as Json
    expect(floats.data.map((d: Json) => d.embedding.length)).toEqual([8, 8])
    const [cat, dog] = floats.data.map((d: Json) => d.embedding as number[])
    expect(cat).not.toEqual(dog)
    expect(Math.abs(Math.hypot(...(cat as number[])) - 1)).toBeLessThan(1e-5)
    const bytes = Uint8Array.from(atob(base64.data[0].embedding), (c) => c.charCodeAt(0))
    expect([...new Float32Array(bytes.buffer)]).toEqual(cat)
    expect(floats.usage.prompt_tokens).toBe(2)
    const tooWide = await post(t, '/v1/embeddings', {
      model: 'text-embedding-3-small',
      input: 'x',
      dimensions: 99999,
    })
    expect(tooWide.status).toBe(400)
  })
}

/** The model list and one model by id. */
function modelListCases(current: () => TransportUnderTest): void {
  it('lists models and answers one by id or 404', async () => {
    const t = current()
    const list = (await (
      await t.request('/v1/models', { headers: { authorization: `Bearer ${KEY}` } })
    ).json()) as Json
    expect(list.object).toBe('list')
    expect(list.data.map((m: Json) => m.id)).toContain('gpt-4o-mini')
    const one = await t.request('/v1/models/gpt-4o-mini', { headers: { authorization: `Bearer ${KEY}` } })
    expect(((await one.json()) as Json).id).toBe('gpt-4o-mini')
    const missing = await t.request('/v1/models/gpt-9', { headers: { authorization: `Bearer ${KEY}` } })
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as Json).error.code).toBe('model_not_found')
  })
}

/** Errors in the OpenAI shape, with a body that says why. */
function errorCases(current: () => TransportUnderTest): void {
  it('answers 401, 404, 405 and 400 with an error body that says why', async () => {
    const t = current()
    const noKey = await t.request('/v1/models')
    expect(noKey.status).toBe(401)
    expect(((await noKey.json()) as Json).error.message).toMatch(/API key/)
    const wrongKey = await t.request('/v1/models', {
      headers: { authorization: 'Bearer sk-wrong-key-123' },
    })
    expect(((await wrongKey.json()) as Json).error.code).toBe('invalid_api_key')
    const unknown = await post(t, '/v1/fine_tuning/jobs', {})
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as Json).error.message).toContain('/v1/fine_tuning/jobs')
    const wrongMethod = await t.request('/v1/chat/completions', {
      headers: { authorization: `Bearer ${KEY}` },
    })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    const badJson = await post(t, '/v1/chat/completions', '{"model": ')
    expect(badJson.status).toBe(400)
    expect(((await badJson.json()) as Json).error.message).toMatch(/could not parse the JSON body/)
    const noMessages = await post(t, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [] })
    expect(((await noMessages.json()) as Json).error.param).toBe('messages')
    expect(t.mock.requests.map((r) => r.status)).toEqual([401, 401, 404, 405, 400, 400])
  })
}
