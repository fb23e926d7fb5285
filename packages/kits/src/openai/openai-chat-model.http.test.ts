/**
 * The OpenAI chat model against MockGPT over real HTTP (loopback), through the official `openai` client:
 * streaming text, reasoning deltas, parallel tool calls with interleaved fragments, response formats, tool
 * choice, the request mapping as the server received it, and the diagnostics spans.
 */
import {
  AttemptBudget,
  type ChatMessage,
  collectModelStream,
  MemoryDiagnosticSink,
  type ModelRequest,
  type ModelStreamEvent,
  type ToolSpec,
} from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import { generateStructured, ModelCalls } from '@agent-core/kits/models'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOpenAIChatModel, type OpenAIChatModel, openAIChatBinding } from './index.js'

let server: MockGPTServer
let model: OpenAIChatModel

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 5, apiKey: 'sk-test' })
  model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL })
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

async function events(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const seen: ModelStreamEvent[] = []
  for await (const event of stream) seen.push(event)
  return seen
}

function lastBody(): Record<string, unknown> {
  return server.mock.requests.at(-1)?.body as Record<string, unknown>
}

const hello: ModelRequest = { messages: [{ role: 'user', content: 'Hello there' }] }

const weatherTools: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['city'],
      properties: { city: { type: 'string' } },
    },
  },
  {
    name: 'get_time',
    description: 'Local time in a timezone',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['zone'],
      properties: { zone: { type: 'string' } },
    },
  },
]

describe('streaming text', () => {
  it('streams the text as deltas, then finish with the usage the server counted', async () => {
    server.mock.script({ reply: { type: 'text', text: 'The quick brown fox jumps over the lazy dog.' } })
    const seen = await events(model.stream(hello, {}))
    const deltas = seen.filter((event) => event.type === 'text-delta')
    expect(deltas.length).toBeGreaterThan(5)
    expect(deltas.map((event) => event.text).join('')).toBe('The quick brown fox jumps over the lazy dog.')
    const finish = seen.at(-1)
    expect(finish).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: {
        inputTokens: expect.any(Number),
        outputTokens: deltas.length, // MockGPT sends one token per delta
        totalTokens: expect.any(Number),
      },
      model: 'gpt-4o-mini',
    })
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.usage.totalTokens).toBe(finish.usage.inputTokens + finish.usage.outputTokens)
    expect(lastBody()).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello there' }],
    })
  })

  it('generate answers the same text and usage in one JSON response', async () => {
    server.mock.script(
      { reply: { type: 'text', text: 'Same words either way.' } },
      { reply: { type: 'text', text: 'Same words either way.' } },
    )
    const whole = await model.generate(hello, {})
    const streamed = await collectModelStream(model.stream(hello, {}))
    expect(whole).toEqual(streamed)
    expect(whole.message).toEqual({ role: 'assistant', content: 'Same words either way.' })
    expect(server.mock.requests.map((request) => (request.body as { stream?: unknown }).stream)).toEqual([
      undefined,
      true,
    ])
  })

  it('works without a context (a fresh one is made), and a request model overrides the options on the wire', async () => {
    const response = await model.generate({ ...hello, model: 'gpt-4.1-nano' })
    expect(response.model).toBe('gpt-4.1-nano')
    expect(lastBody().model).toBe('gpt-4.1-nano')
    expect(model.identity).toBe('gpt-4o-mini')
  })

  it('streamUsage: false sends no stream_options; finish then reports zero usage', async () => {
    const quiet = createOpenAIChatModel({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      streamUsage: false,
    })
    const seen = await events(quiet.stream(hello))
    expect(lastBody().stream_options).toBeUndefined()
    expect(seen.at(-1)).toMatchObject({
      type: 'finish',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    })
  })
})

describe('reasoning deltas', () => {
  it('maps reasoning_content deltas to thinking-delta, before the text', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Four.', reasoning: 'Two plus two makes four.' } })
    const seen = await events(model.stream({ messages: [{ role: 'user', content: '2 + 2?' }] }))
    const kinds = seen.map((event) => event.type)
    expect(kinds.indexOf('text-delta')).toBeGreaterThan(kinds.lastIndexOf('thinking-delta'))
    const thinking = seen.flatMap((event) => (event.type === 'thinking-delta' ? [event.text] : []))
    expect(thinking.length).toBeGreaterThan(1)
    expect(thinking.join('')).toBe('Two plus two makes four.')
    const response = await collectModelStream(seen as unknown as AsyncIterable<ModelStreamEvent>)
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Four.',
      thinking: 'Two plus two makes four.',
    })
  })

  it('reads reasoning_content on a whole message as thinking', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Four.', reasoning: 'Two plus two makes four.' } })
    const response = await model.generate({ messages: [{ role: 'user', content: '2 + 2?' }] })
    expect(response.message.thinking).toBe('Two plus two makes four.')
    expect(response.message.content).toBe('Four.')
  })

  it('also reads the `reasoning` field some servers send instead', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'chatcmpl-r',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'local-reasoner',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
    server.mock.script({
      reply: {
        type: 'raw-chunks',
        chunks: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ reasoning: 'Think ' }),
          chunk({ reasoning: 'twice.' }),
          // vLLM in transition sends both names with the same text: it must count once.
          chunk({ reasoning: ' Done.', reasoning_content: ' Done.' }),
          chunk({ content: 'Answer.' }),
          chunk({}, 'stop'),
          'data: [DONE]\n\n',
        ],
      },
    })
    const response = await collectModelStream(model.stream(hello))
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Answer.',
      thinking: 'Think twice. Done.',
    })
    expect(response.model).toBe('local-reasoner')
  })
})

describe('tool calls', () => {
  it('reassembles parallel calls whose fragments arrive interleaved, by index', async () => {
    server.mock.script({
      reply: {
        type: 'tool-calls',
        calls: [
          { name: 'get_weather', arguments: { city: 'Lisbon, Portugal, on the Atlantic coast' } },
          { name: 'get_time', arguments: { zone: 'Europe/Lisbon and some more words' } },
          { name: 'get_weather', arguments: { city: 'Porto' } },
        ],
      },
    })
    const seen = await events(
      model.stream({ messages: [{ role: 'user', content: 'Weather and time?' }], tools: weatherTools }),
    )
    const deltaOrder = seen.flatMap((event) => (event.type === 'tool-call-delta' ? [event.index] : []))
    // The fragments really were interleaved: some call's fragment came after a later call's.
    expect(deltaOrder.some((index, i) => i > 0 && index < (deltaOrder[i - 1] as number))).toBe(true)
    const starts = seen.filter((event) => event.type === 'tool-call-start')
    expect(starts.map((event) => [event.index, event.name])).toEqual([
      [0, 'get_weather'],
      [1, 'get_time'],
      [2, 'get_weather'],
    ])
    const ends = seen.flatMap((event) => (event.type === 'tool-call-end' ? [event] : []))
    expect(ends.map((event) => event.index)).toEqual([0, 1, 2])
    expect(ends.map((event) => JSON.parse(event.call.arguments))).toEqual([
      { city: 'Lisbon, Portugal, on the Atlantic coast' },
      { zone: 'Europe/Lisbon and some more words' },
      { city: 'Porto' },
    ])
    // Each call's deltas join to its final arguments, and ids are the ones from the start events.
    for (const end of ends) {
      const joined = seen
        .flatMap((event) =>
          event.type === 'tool-call-delta' && event.index === end.index ? [event.argumentsDelta] : [],
        )
        .join('')
      expect(joined).toBe(end.call.arguments)
      expect(end.call.id).toBe(starts[end.index]?.id)
    }
    expect(new Set(ends.map((event) => event.call.id)).size).toBe(3)
    expect(seen.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' })
    expect(lastBody().tools).toEqual(
      weatherTools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      })),
    )
  })

  it('generate reads whole tool calls, and the results go back as tool messages the server pairs', async () => {
    server.mock.script({
      reply: { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
    })
    const first = await model.generate({
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: weatherTools,
    })
    expect(first.finishReason).toBe('tool-calls')
    const call = first.message.toolCalls?.[0]
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Oslo"}' })
    const conversation: ChatMessage[] = [
      { role: 'user', content: 'Weather in Oslo?' },
      first.message,
      { role: 'tool', toolCallId: call?.id ?? '', content: '{"celsius": 4}' },
    ]
    const second = await model.generate({ messages: conversation, tools: weatherTools })
    expect(second.finishReason).toBe('stop')
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call?.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: call?.id, content: '{"celsius": 4}' },
    ])
  })

  it('sends tool choice: a named tool is forced, required and none pass through', async () => {
    const ask = (toolChoice: ModelRequest['toolChoice']) =>
      model.generate({
        messages: [{ role: 'user', content: 'Anything' }],
        tools: weatherTools,
        toolChoice,
        parallelToolCalls: false,
      })
    const forced = await ask({ name: 'get_time' })
    expect(lastBody()).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      parallel_tool_calls: false,
    })
    expect(forced.message.toolCalls?.map((c) => c.name)).toEqual(['get_time'])
    const required = await ask('required')
    expect(lastBody().tool_choice).toBe('required')
    expect(required.message.toolCalls?.length).toBeGreaterThan(0)
    const none = await ask('none')
    expect(lastBody().tool_choice).toBe('none')
    expect(none.message.toolCalls).toBeUndefined()
    expect(none.finishReason).toBe('stop')
  })
})

describe('response formats', () => {
  const review = {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'rating'],
    properties: {
      title: { type: 'string', minLength: 3 },
      rating: { type: 'integer', minimum: 1, maximum: 5 },
    },
  }

  it('json_schema: the schema reaches the server and the answer validates', async () => {
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Review the film' }],
      responseFormat: { type: 'json_schema', name: 'review', schema: review, strict: true },
    })
    expect(lastBody().response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'review', schema: review, strict: true },
    })
    expect(compileJsonSchema(review).validate(JSON.parse(response.message.content))).toEqual({ ok: true })
  })

  it('json_object answers an object, streamed too', async () => {
    const response = await collectModelStream(
      model.stream({
        messages: [{ role: 'user', content: 'Any JSON object' }],
        responseFormat: { type: 'json_object' },
      }),
    )
    expect(lastBody().response_format).toEqual({ type: 'json_object' })
    expect(typeof JSON.parse(response.message.content)).toBe('object')
  })

  it('generateStructured over the chat model and over a ModelCalls binding, in json-schema mode', async () => {
    const budget = new AttemptBudget(4)
    const overModel = await generateStructured<{ title: string; rating: number }>(
      { model, schema: review, name: 'review', prompt: 'Review the film', mode: 'json-schema' },
      { attemptBudget: budget },
    )
    expect(overModel.attempts).toBe(1)
    expect(overModel.value.rating).toBeGreaterThanOrEqual(1)
    expect(overModel.usage?.totalTokens).toBeGreaterThan(0)
    expect((lastBody().response_format as { type: string }).type).toBe('json_schema')

    const models = new ModelCalls([openAIChatBinding({ id: 'chat', chatModel: model })])
    const overBinding = await generateStructured<{ title: string; rating: number }>(
      {
        model: { models, modelId: 'chat', timeoutMs: 10_000 },
        schema: review,
        name: 'review',
        prompt: 'Review it',
        mode: 'json-schema',
      },
      { attemptBudget: budget },
    )
    expect(compileJsonSchema(review).validate(overBinding.value)).toEqual({ ok: true })
    expect(budget.used).toBe(2)
    expect(server.mock.requests.length).toBe(2)
  })
})

describe('request mapping', () => {
  it('sends every ModelRequest field in its chat completions form', async () => {
    const request: ModelRequest = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
        { role: 'assistant', content: 'A cat.', thinking: 'It looks like a cat.' },
        { role: 'user', content: 'And now?' },
      ],
      temperature: 0.2,
      maxOutputTokens: 50,
      seed: 42,
      stop: ['END'],
    }
    await model.generate(request)
    expect(lastBody()).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        // Thinking stays on our side: OpenAI-compatible servers refuse or ignore it as input.
        { role: 'assistant', content: 'A cat.' },
        { role: 'user', content: 'And now?' },
      ],
      temperature: 0.2,
      max_completion_tokens: 50,
      seed: 42,
      stop: ['END'],
    })
  })

  it('maxTokensParameter and body extras shape the body', async () => {
    const local = createOpenAIChatModel({
      model: 'local',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      maxTokensParameter: 'max_tokens',
      body: { top_p: 0.5, user: 'user-42' },
    })
    await local.generate({ ...hello, maxOutputTokens: 7 })
    expect(lastBody()).toMatchObject({ model: 'local', max_tokens: 7, top_p: 0.5, user: 'user-42' })
    expect(lastBody().max_completion_tokens).toBeUndefined()
  })

  it('a ready client is used as given, but its requests are never retried by the SDK', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL }) // maxRetries defaults to 2
    const shared = createOpenAIChatModel({ model: 'gpt-4o-mini', client })
    expect(shared.client).toBe(client)
    server.mock.script({ reply: { type: 'error', status: 503, retryAfterMs: 1 } })
    await expect(shared.generate(hello)).rejects.toMatchObject({ code: 'provider-error', status: 503 })
    expect(server.mock.requests.length).toBe(1)
    // The client built by the adapter has maxRetries 0 itself.
    expect(model.client.maxRetries).toBe(0)
  })
})

describe('diagnostics', () => {
  it('each request is a model-request span with GenAI data, nested in the ModelCalls span', async () => {
    const memory = new MemoryDiagnosticSink()
    const models = new ModelCalls([openAIChatBinding({ id: 'chat', chatModel: model })])
    server.mock.script({ reply: { type: 'text', text: 'Traced answer.', reasoning: 'Short thought.' } })
    await models.invoke(
      { modelId: 'chat', input: { ...hello, temperature: 0.5 }, timeoutMs: 10_000 },
      { diagnostics: memory.sink },
    )
    expect(memory.kinds()).toEqual([
      'model-call-start',
      'model-request-start',
      'model-request-end',
      'model-call-end',
    ])
    const [callStart, start, end] = memory.events
    expect(start?.parentSpanId).toBe(callStart?.spanId)
    expect(end?.spanId).toBe(start?.spanId)
    expect(start?.data).toEqual({
      operation: 'chat',
      provider: 'openai',
      identity: 'gpt-4o-mini',
      requestModel: 'gpt-4o-mini',
      stream: false,
      serverAddress: '127.0.0.1',
      serverPort: server.port,
      temperature: 0.5,
    })
    expect(end?.data).toMatchObject({
      outcome: 'ok',
      responseModel: 'gpt-4o-mini',
      responseId: expect.stringMatching(/^chatcmpl-/),
      finishReason: 'stop',
      providerFinishReason: 'stop',
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      reasoningTokens: expect.any(Number),
      usageReported: true,
      requestId: expect.any(String),
    })
  })

  it('a consumer that stops reading cancels the request and ends the span as aborted', async () => {
    const memory = new MemoryDiagnosticSink()
    server.mock.script({ reply: { type: 'text', text: 'one two three four five six seven eight nine ten' } })
    for await (const event of model.stream(hello, { diagnostics: memory.sink })) {
      if (event.type === 'text-delta') break
    }
    expect(memory.kinds()).toEqual(['model-request-start', 'model-request-end'])
    expect(memory.events[1]?.data).toMatchObject({
      outcome: 'aborted',
      reason: 'the consumer stopped reading the stream',
    })
  })
})
