import { compileJsonSchema } from '@agent-core/core/tools'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockGPTServer, startMockGPTServer } from './start-mock-gpt-server.js'

const KEY = 'sk-openai-sdk-test'
const LOOKUP = {
  type: 'object',
  additionalProperties: false,
  required: ['query', 'limit'],
  properties: {
    query: { type: 'string', minLength: 2 },
    limit: { type: 'integer', minimum: 1, maximum: 20 },
  },
} as const

describe('the official openai SDK, unchanged, against the real server', () => {
  let server: MockGPTServer
  let client: OpenAI
  beforeAll(async () => {
    server = await startMockGPTServer({ port: 0, host: '127.0.0.1', seed: 3, apiKey: KEY })
    client = new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 })
  })
  afterAll(async () => {
    await server.close()
  })
  beforeEach(() => {
    server.mock.reset()
  })

  it('creates a chat completion', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Hello from MockGPT.' } })
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('Hello from MockGPT.')
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    )
    expect(completion._request_id).toMatch(/^req_/)
  })

  it('streams a chat completion with usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toContain('Stream please')
    expect(usage?.completion_tokens).toBeGreaterThan(0)
  })

  it('accumulates parallel tool calls streamed in interleaved fragments', async () => {
    server.mock.script({
      reply: {
        type: 'tool-calls',
        calls: [
          { name: 'lookup' },
          { name: 'lookup' },
          { name: 'lookup', arguments: { query: 'exact', limit: 5 } },
        ],
      },
    })
    const runner = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'look up three things' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: LOOKUP } }],
    })
    const final = await runner.finalChatCompletion()
    const calls = final.choices[0]?.message.tool_calls ?? []
    expect(calls.length).toBe(3)
    expect(new Set(calls.map((c) => c.id)).size).toBe(3)
    for (const call of calls) {
      if (call.type !== 'function') throw new Error('expected function calls')
      expect(compileJsonSchema(LOOKUP).validate(JSON.parse(call.function.arguments))).toEqual({ ok: true })
    }
    expect(calls[2]?.type === 'function' && JSON.parse(calls[2].function.arguments)).toEqual({
      query: 'exact',
      limit: 5,
    })
    expect(final.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('parses json_schema output that validates', async () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'age', 'emails'],
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 0, maximum: 130 },
        emails: { type: 'array', items: { type: 'string', format: 'email' }, maxItems: 3 },
      },
    }
    const completion = await client.chat.completions.parse({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Make a person' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } },
    })
    const parsed = completion.choices[0]?.message.parsed
    expect(parsed).toBeTypeOf('object')
    expect(compileJsonSchema(schema).validate(parsed)).toEqual({ ok: true })
  })

  it('honours a 429 with retry-after-ms and retries', async () => {
    const retrying = new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 2 })
    server.mock.script(
      { reply: { type: 'error', status: 429, retryAfterMs: 20 } },
      { reply: { type: 'text', text: 'after the retry' } },
    )
    const completion = await retrying.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('after the retry')
    expect(server.mock.requests.map((r) => r.status)).toEqual([429, 200])
    expect(server.mock.requests[1]?.headers['x-stainless-retry-count']).toBe('1')
  })

  it('does not retry an exhausted budget (x-should-retry: false) and reports it as a RateLimitError', async () => {
    const limited = await startMockGPTServer({ port: 0, apiKey: KEY, budget: { maxCalls: 1 } })
    try {
      const retrying = new OpenAI({ baseURL: limited.baseURL, apiKey: KEY, maxRetries: 3 })
      await retrying.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'one' }],
      })
      const error = await retrying.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'two' }] })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.RateLimitError)
      expect((error as InstanceType<typeof OpenAI.RateLimitError>).message).toMatch(/budget exhausted/)
      expect(limited.mock.requests.length).toBe(2)
    } finally {
      await limited.close()
    }
  })

  it('surfaces a dropped stream as an error', async () => {
    server.mock.script({ faults: [{ type: 'disconnect', afterChunks: 4 }] })
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'drop' }],
      stream: true,
    })
    let chunks = 0
    const consume = async () => {
      for await (const _ of stream) chunks++
    }
    await expect(consume()).rejects.toThrow()
    expect(chunks).toBe(4)
  })

  it('surfaces a malformed chunk as an error', async () => {
    // logLevel 'off': the SDK logs the unparsable line through its logger before throwing.
    const quiet = new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0, logLevel: 'off' })
    server.mock.script({ faults: [{ type: 'malformed-chunk', afterChunks: 1 }] })
    const stream = await quiet.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'garble' }],
      stream: true,
    })
    await expect(
      (async () => {
        for await (const _ of stream) {
          // read until the SDK fails
        }
      })(),
    ).rejects.toThrow(SyntaxError)
  })

  it('turns a hang into the SDK timeout error', async () => {
    const impatient = new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0, timeout: 150 })
    server.mock.script({ faults: [{ type: 'hang' }] })
    await expect(
      impatient.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'wait' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
  })

  it('rejects a wrong key with an AuthenticationError', async () => {
    const wrong = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-wrong', maxRetries: 0 })
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError)
  })

  it('speaks the Responses API, plain and streamed, text and function calls', async () => {
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hello Responses' })
    expect(response.output_text).toContain('Hello Responses')
    const stream = client.responses.stream({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'please call lookup' }],
      tools: [{ type: 'function', name: 'lookup', parameters: LOOKUP, strict: true }],
    })
    const deltas: string[] = []
    stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta))
    const final = await stream.finalResponse()
    const call = final.output.find((o) => o.type === 'function_call')
    expect(call?.type === 'function_call' && call.arguments).toBe(deltas.join(''))
    expect(
      call?.type === 'function_call' && compileJsonSchema(LOOKUP).validate(JSON.parse(call.arguments)),
    ).toEqual({ ok: true })
  })

  it('creates embeddings (the SDK asks for base64 and decodes it)', async () => {
    const viaSdk = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta'],
      dimensions: 16,
    })
    const raw = (await (
      await fetch(`${server.baseURL}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({
          model: 'text-embedding-3-small',
          input: ['alpha', 'beta'],
          dimensions: 16,
          encoding_format: 'float',
        }),
      })
    ).json()) as { data: { embedding: number[] }[] }
    expect(viaSdk.data.map((d) => d.embedding)).toEqual(raw.data.map((d) => d.embedding))
    expect(server.mock.requests[0]?.body).toMatchObject({ encoding_format: 'base64' })
  })

  it('lists models', async () => {
    const ids: string[] = []
    for await (const model of client.models.list()) ids.push(model.id)
    expect(ids).toContain('gpt-4o-mini')
  })
})
