/**
 * The Anthropic chat model against MockGPT's `/v1/messages` over real HTTP (loopback), through the official
 * `@anthropic-ai/sdk` client: streaming text, thinking with its signature sent back, parallel tool calls
 * assembled from `input_json_delta`s, structured output, tool choice, prompt caching breakpoints (asserted
 * on the recorded requests) and the cache usage reaching an agent run's `result.usage`.
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
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import { generateStructured, ModelCalls } from '@agent-core/kits/models'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type AnthropicChatModel, anthropicChatBinding, createAnthropicChatModel } from './index.js'

const MODEL = 'claude-sonnet-4-6'
let server: MockGPTServer
let model: AnthropicChatModel

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 5, apiKey: 'sk-ant-test' })
  model = createAnthropicChatModel({ model: MODEL, apiKey: 'sk-ant-test', baseURL: server.url })
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

type Body = Record<string, unknown> & { messages: { role: string; content: Record<string, unknown>[] }[] }
function bodies(): Body[] {
  return server.mock.requests.filter((r) => r.endpoint === 'messages').map((r) => r.body as Body)
}
function lastBody(): Body {
  return bodies().at(-1) as Body
}

/** Where a body carries `cache_control`: 'tools', 'system', or `messages[i].content[j]`. */
function breakpointsOf(body: Body): string[] {
  const marks: string[] = []
  const tools = (body.tools ?? []) as Record<string, unknown>[]
  tools.forEach((tool, i) => {
    if (tool.cache_control) marks.push(`tools[${i}]`)
  })
  const system = (body.system ?? []) as Record<string, unknown>[]
  system.forEach((block, i) => {
    if (block.cache_control) marks.push(`system[${i}]`)
  })
  body.messages.forEach((message, i) => {
    message.content.forEach((block, j) => {
      if (block.cache_control) marks.push(`messages[${i}].content[${j}]`)
    })
  })
  return marks
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
    const seen = await events(
      model.stream({ messages: [{ role: 'system', content: 'Be brief.' }, ...hello.messages] }),
    )
    const deltas = seen.filter((event) => event.type === 'text-delta')
    expect(deltas.length).toBeGreaterThan(5)
    expect(deltas.map((event) => event.text).join('')).toBe('The quick brown fox jumps over the lazy dog.')
    const finish = seen.at(-1)
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop', model: MODEL })
    if (finish?.type !== 'finish') throw new Error('no finish')
    expect(finish.usage.outputTokens).toBe(deltas.length) // MockGPT sends one token per delta
    expect(finish.usage.totalTokens).toBe(finish.usage.inputTokens + finish.usage.outputTokens)
    // The first request writes its whole prompt to the cache: every input token is a cache write.
    expect(finish.usage.cacheReadTokens).toBe(0)
    expect(finish.usage.cacheWriteTokens).toBeGreaterThan(0)
    expect(lastBody()).toMatchObject({
      model: MODEL,
      stream: true,
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hello there', cache_control: { type: 'ephemeral' } }],
        },
      ],
    })
  })

  it('generate answers the same message in one JSON response', async () => {
    const plain = createAnthropicChatModel({
      model: MODEL,
      apiKey: 'sk-ant-test',
      baseURL: server.url,
      promptCache: false,
    })
    server.mock.script(
      { reply: { type: 'text', text: 'Same words either way.' } },
      { reply: { type: 'text', text: 'Same words either way.' } },
    )
    const whole = await plain.generate(hello, {})
    const streamed = await collectModelStream(plain.stream(hello, {}))
    expect(whole).toEqual(streamed)
    expect(whole.message).toEqual({ role: 'assistant', content: 'Same words either way.' })
    expect(whole.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 })
    expect(bodies().map((body) => body.stream)).toEqual([undefined, true])
    expect(bodies().flatMap(breakpointsOf)).toEqual([])
  })

  it('works without a context, and a request model overrides the options on the wire', async () => {
    const response = await model.generate({ ...hello, model: 'claude-haiku-4-5', maxOutputTokens: 64 })
    expect(response.model).toBe('claude-haiku-4-5')
    expect(lastBody()).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 64 })
    expect(model.identity).toBe(MODEL)
  })

  it('answers through a ModelCalls binding, streamed or not', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Bound.' }, times: 2 })
    const models = new ModelCalls([
      anthropicChatBinding({ id: 'chat', chatModel: model }),
      anthropicChatBinding({
        id: 'streamed',
        model: MODEL,
        apiKey: 'sk-ant-test',
        baseURL: server.url,
        stream: true,
      }),
    ])
    for (const modelId of ['chat', 'streamed'] as const) {
      const { value } = await models.invoke(
        { modelId, input: hello, timeoutMs: 10_000 },
        { attemptBudget: new AttemptBudget(1) },
      )
      expect(value.message.content).toBe('Bound.')
    }
    expect(bodies().map((body) => body.stream)).toEqual([undefined, true])
  })
})

describe('thinking', () => {
  const thinker = () =>
    createAnthropicChatModel({
      model: MODEL,
      apiKey: 'sk-ant-test',
      baseURL: server.url,
      maxTokens: 4096,
      thinking: { budgetTokens: 1024 },
    })

  it('streams thinking deltas, ends the block with its signature, and keeps it on the message', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Four.', reasoning: 'Two plus two makes four.' } })
    const seen = await events(thinker().stream({ messages: [{ role: 'user', content: '2 + 2?' }] }))
    const kinds = seen.map((event) => event.type)
    expect(kinds.indexOf('thinking-end')).toBeLessThan(kinds.indexOf('text-delta'))
    const end = seen.find((event) => event.type === 'thinking-end')
    expect(end).toEqual({
      type: 'thinking-end',
      block: { text: 'Two plus two makes four.', signature: expect.stringMatching(/^mockgpt-sig-/) },
    })
    const thinking = seen.filter((event) => event.type === 'thinking-delta').map((event) => event.text)
    expect(thinking.join('')).toBe('Two plus two makes four.')
    expect(lastBody().thinking).toEqual({ type: 'enabled', budget_tokens: 1024 })
    server.mock.script({ reply: { type: 'text', text: 'Four.', reasoning: 'Two plus two makes four.' } })
    const whole = await thinker().generate({ messages: [{ role: 'user', content: '2 + 2?' }] })
    expect(whole.message.thinkingBlocks).toEqual(end?.type === 'thinking-end' ? [end.block] : [])
    expect(whole.message.thinking).toBe('Two plus two makes four.')
  })

  it('sends the signed thinking block back first in its tool turn; MockGPT checks the signature', async () => {
    server.mock.script(
      {
        reply: {
          type: 'tool-calls',
          reasoning: 'I need the weather.',
          calls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }],
        },
      },
      { reply: (request) => ({ type: 'text', text: `It is ${request.toolResults[0]?.output}.` }) },
    )
    const m = thinker()
    const first = await collectModelStream(
      m.stream({ messages: [{ role: 'user', content: 'Weather?' }], tools: weatherTools }),
    )
    const call = first.message.toolCalls?.[0]
    if (call === undefined) throw new Error('no call')
    const history: ChatMessage[] = [
      { role: 'user', content: 'Weather?' },
      first.message,
      { role: 'tool', toolCallId: call.id, content: '19 °C' },
    ]
    const second = await m.generate({ messages: history, tools: weatherTools })
    expect(second.message.content).toBe('It is 19 °C.')
    const sent = lastBody().messages[1]?.content
    expect(sent?.map((block) => block.type)).toEqual(['thinking', 'tool_use'])
    expect(sent?.[0]).toEqual({
      type: 'thinking',
      thinking: 'I need the weather.',
      signature: first.message.thinkingBlocks?.[0]?.signature,
    })
    // A changed text no longer matches its signature: the server refuses it, as Anthropic does.
    const forged: ChatMessage = {
      ...first.message,
      thinkingBlocks: [{ text: 'Something else.', signature: first.message.thinkingBlocks?.[0]?.signature }],
    }
    await expect(
      m.generate({
        messages: [history[0] as ChatMessage, forged, history[2] as ChatMessage],
        tools: weatherTools,
      }),
    ).rejects.toMatchObject({
      code: 'provider-error',
      kind: 'invalid-request',
      retryable: false,
    })
  })

  it('keeps redacted thinking as an opaque block and sends it back as redacted_thinking', async () => {
    server.mock.script({
      reply: {
        type: 'raw-chunks',
        chunks: [
          'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"ENCRYPTED"}}\n\n',
          'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
          'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n',
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done."}}\n\n',
          'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
          'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\n',
          'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        ],
      },
    })
    const response = await collectModelStream(model.stream(hello))
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Done.',
      thinkingBlocks: [{ text: '', redacted: 'ENCRYPTED' }],
    })
    expect(response.usage).toEqual({ inputTokens: 5, outputTokens: 3, totalTokens: 8 })
    await model.generate({
      messages: [...hello.messages, response.message, { role: 'user', content: 'Again' }],
    })
    expect(lastBody().messages[1]?.content[0]).toEqual({ type: 'redacted_thinking', data: 'ENCRYPTED' })
  })
})

describe('tool calls', () => {
  it('assembles parallel tool_use blocks from their deltas, in order, and sends every result in one user turn', async () => {
    server.mock.script(
      {
        reply: {
          type: 'tool-calls',
          calls: [
            { name: 'get_weather', arguments: { city: 'Lisbon' } },
            { name: 'get_time', arguments: { zone: 'Europe/Oslo' } },
          ],
        },
      },
      {
        reply: (request) => ({
          type: 'text',
          text: request.toolResults.map((result) => `${result.name}=${result.output}`).join(' '),
        }),
      },
    )
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'Weather and time?' }],
      tools: weatherTools,
    }
    const seen = await events(model.stream(request))
    const starts = seen.filter((event) => event.type === 'tool-call-start')
    expect(starts.map((event) => [event.index, event.name])).toEqual([
      [0, 'get_weather'],
      [1, 'get_time'],
    ])
    const ends = seen.filter((event) => event.type === 'tool-call-end')
    expect(ends.map((event) => JSON.parse(event.call.arguments))).toEqual([
      { city: 'Lisbon' },
      { zone: 'Europe/Oslo' },
    ])
    expect(seen.filter((event) => event.type === 'tool-call-delta').length).toBeGreaterThan(2)
    expect(seen.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' })
    const first = await collectModelStream(
      (async function* () {
        yield* seen
      })(),
    )
    const calls = first.message.toolCalls ?? []
    const answer = await model.generate({
      ...request,
      messages: [
        ...request.messages,
        first.message,
        { role: 'tool', toolCallId: calls[0]?.id ?? '', content: '19 °C' },
        { role: 'tool', toolCallId: calls[1]?.id ?? '', content: '14:02', isError: false },
      ],
    })
    expect(answer.message.content).toBe('get_weather=19 °C get_time=14:02')
    const wire = lastBody().messages
    expect(wire.map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(wire[2]?.content.map((block) => [block.type, block.tool_use_id])).toEqual([
      ['tool_result', calls[0]?.id],
      ['tool_result', calls[1]?.id],
    ])
    expect(lastBody().tools).toEqual(
      [
        {
          name: 'get_weather',
          description: 'Current weather in a city',
          input_schema: weatherTools[0]?.parameters,
          cache_control: undefined,
        },
        {
          name: 'get_time',
          description: 'Local time in a timezone',
          input_schema: weatherTools[1]?.parameters,
          cache_control: { type: 'ephemeral' },
        },
      ].map((tool) => JSON.parse(JSON.stringify(tool))),
    )
  })

  it('maps toolChoice and parallelToolCalls to tool_choice', async () => {
    const ask = async (extra: Partial<ModelRequest>) => {
      server.mock.script({
        reply: { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      })
      await model.generate({ messages: [{ role: 'user', content: 'Oslo?' }], tools: weatherTools, ...extra })
      return lastBody().tool_choice
    }
    expect(await ask({})).toBeUndefined()
    expect(await ask({ toolChoice: 'required' })).toEqual({ type: 'any' })
    expect(await ask({ toolChoice: { name: 'get_weather' }, parallelToolCalls: false })).toEqual({
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    })
    expect(await ask({ parallelToolCalls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true })
  })
})

describe('structured output', () => {
  const review = {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'stars'],
    properties: { title: { type: 'string' }, stars: { type: 'integer', minimum: 1, maximum: 5 } },
  } as const

  it('json_schema goes out as output_config.format and the answer validates, streamed too', async () => {
    const whole = await model.generate({
      messages: [{ role: 'user', content: 'Review the film' }],
      responseFormat: { type: 'json_schema', name: 'review', schema: review },
    })
    expect(lastBody().output_config).toEqual({ format: { type: 'json_schema', schema: review } })
    const value = JSON.parse(whole.message.content) as { title: unknown; stars: number }
    expect(typeof value.title).toBe('string')
    expect(value.stars).toBeGreaterThanOrEqual(1)
    const streamed = await collectModelStream(
      model.stream({
        messages: [{ role: 'user', content: 'Review the film' }],
        responseFormat: { type: 'json_schema', name: 'review', schema: review },
      }),
    )
    expect(Object.keys(JSON.parse(streamed.message.content))).toEqual(['title', 'stars'])
  })

  it('json_object goes through a forced tool (the API has no JSON mode) and comes back as the text', async () => {
    server.mock.script(
      { reply: { type: 'json', value: { answer: 42, unit: 'none' } } },
      { reply: { type: 'json', value: { answer: 42, unit: 'none' } } },
    )
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'Answer as a JSON object.' }],
      responseFormat: { type: 'json_object' },
    }
    const streamed = await collectModelStream(model.stream(request))
    expect(JSON.parse(streamed.message.content)).toEqual({ answer: 42, unit: 'none' })
    expect(streamed.finishReason).toBe('stop')
    expect(streamed.message.toolCalls).toBeUndefined()
    expect(lastBody()).toMatchObject({
      tools: [{ name: 'json_answer', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'json_answer' },
    })
    const whole = await model.generate(request)
    expect(whole.message).toEqual(streamed.message)
    expect(whole.finishReason).toBe('stop')
  })

  it('generateStructured in json-schema mode, over the model and over a binding', async () => {
    const direct = await generateStructured<{ title: string; stars: number }>({
      model,
      schema: review,
      name: 'review',
      prompt: 'Review the film',
      mode: 'json-schema',
    })
    expect(direct.value.stars).toBeGreaterThanOrEqual(1)
    const models = new ModelCalls([anthropicChatBinding({ id: 'chat', chatModel: model })])
    const bound = await generateStructured<{ title: string; stars: number }>(
      {
        model: { models, modelId: 'chat', timeoutMs: 10_000 },
        schema: review,
        prompt: 'Review it',
        mode: 'json-schema',
      },
      { attemptBudget: new AttemptBudget(2) },
    )
    expect(typeof bound.value.title).toBe('string')
  })
})

describe('prompt caching', () => {
  const weather = defineModelTool<{ city: string }, string>({
    id: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    execute: ({ city }) => `19 °C and sunny in ${city}`,
  })
  const instructions =
    'You answer questions about the weather. Call get_weather for every city you are asked about. '.repeat(8)

  it('an agent run places the breakpoints each turn, reads the previous prefix back, and reports it in result.usage', async () => {
    server.mock.script(
      { reply: { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] } },
      { reply: { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } },
      { reply: (request) => ({ type: 'text', text: request.toolResults.map((r) => r.output).join('; ') }) },
    )
    const agent = defineAgent({ model, tools: [weather], system: instructions })
    const memory = new MemoryDiagnosticSink()
    const result = await agent.run({ prompt: 'How is Lisbon today, and Oslo?' }, { diagnostics: memory.sink })
    expect(result.reason).toBe('final')
    expect(result.turns).toBe(3)
    const sent = bodies()
    expect(sent).toHaveLength(3)
    // Turn 1: the tools, the system prompt, the question. Later turns: the last message and where the
    // previous request ended (the prefix it wrote), never more than four.
    expect(sent.map(breakpointsOf)).toEqual([
      ['tools[0]', 'system[0]', 'messages[0].content[0]'],
      ['tools[0]', 'system[0]', 'messages[0].content[0]', 'messages[2].content[0]'],
      ['tools[0]', 'system[0]', 'messages[2].content[0]', 'messages[4].content[0]'],
    ])
    expect(sent[1]?.messages[2]?.content[0]?.type).toBe('tool_result')
    expect(server.mock.requests.map((r) => r.status)).toEqual([200, 200, 200])
    expect(result.usage.cacheReadTokens).toBeGreaterThan(0)
    expect(result.usage.cacheWriteTokens).toBeGreaterThan(0)
    expect(result.usage.cacheReadTokens ?? 0).toBeLessThan(result.usage.inputTokens)
    // The run's usage is the sum of what the server reported turn by turn (the adapter's spans).
    const turns = memory.events
      .filter((event) => event.kind === 'model-request-end')
      .map((event) => event.data)
    expect(turns).toHaveLength(3)
    const sum = (key: string) => turns.reduce((total, data) => total + (data?.[key] as number), 0)
    expect(turns[0]?.cachedInputTokens).toBe(0)
    expect(turns[1]?.cachedInputTokens).toBeGreaterThan(0)
    expect(result.usage.cacheReadTokens).toBe(sum('cachedInputTokens'))
    expect(result.usage.cacheWriteTokens).toBe(sum('cacheWriteTokens'))
    expect(result.usage.inputTokens).toBe(sum('inputTokens'))
  })

  it('cache usage per turn: the first writes, the next reads what it wrote', async () => {
    server.mock.script({ reply: { type: 'text', text: 'One.' } }, { reply: { type: 'text', text: 'Two.' } })
    const system: ChatMessage = { role: 'system', content: instructions }
    const first = await model.generate({ messages: [system, { role: 'user', content: 'Hi' }] })
    const second = await model.generate({
      messages: [system, { role: 'user', content: 'Hi' }, first.message, { role: 'user', content: 'More' }],
    })
    expect(first.usage.cacheReadTokens).toBe(0)
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens)
    expect(second.usage.inputTokens).toBeGreaterThan(second.usage.cacheReadTokens ?? 0)
  })

  it('promptCache: { ttl, breakpoints } places them yourself; more than four is refused before sending', async () => {
    const own = createAnthropicChatModel({
      model: MODEL,
      apiKey: 'sk-ant-test',
      baseURL: server.url,
      promptCache: {
        ttl: '1h',
        breakpoints: (request) => (request.tools ? ['tools'] : ['system', { message: 1 }]),
      },
    })
    await own.generate({
      messages: [
        { role: 'system', content: 'Rules.' },
        { role: 'user', content: 'Hi' },
      ],
    })
    expect(breakpointsOf(lastBody())).toEqual(['system[0]', 'messages[0].content[0]'])
    expect((lastBody().system as Record<string, unknown>[])[0]?.cache_control).toEqual({
      type: 'ephemeral',
      ttl: '1h',
    })
    await own.generate({ messages: [{ role: 'user', content: 'Hi' }], tools: weatherTools })
    expect(breakpointsOf(lastBody())).toEqual(['tools[1]'])
    const greedy = createAnthropicChatModel({
      model: MODEL,
      apiKey: 'sk-ant-test',
      baseURL: server.url,
      promptCache: {
        breakpoints: () => ['system', { message: 1 }, { message: 2 }, { message: 3 }, { message: 4 }],
      },
    })
    const before = server.mock.requests.length
    expect(() => greedy.assertRequest(hello)).toThrow(/at most 4/)
    expect(server.mock.requests.length).toBe(before)
  })
})

describe('diagnostics', () => {
  it('each request is a model-request span with the model, usage, cache counts and finish reason', async () => {
    const memory = new MemoryDiagnosticSink()
    server.mock.script({ reply: { type: 'text', text: 'Traced.' } })
    await collectModelStream(model.stream({ ...hello, temperature: 0.5 }, { diagnostics: memory.sink }))
    expect(memory.kinds()).toEqual(['model-request-start', 'model-request-end'])
    const [start, end] = memory.events
    expect(start?.data).toEqual({
      operation: 'chat',
      provider: 'anthropic',
      identity: MODEL,
      requestModel: MODEL,
      stream: true,
      serverAddress: '127.0.0.1',
      serverPort: server.port,
      temperature: 0.5,
      maxOutputTokens: 4096,
      cacheBreakpoints: 1,
    })
    expect(end?.data).toMatchObject({
      outcome: 'ok',
      responseModel: MODEL,
      responseId: expect.stringMatching(/^msg_/),
      finishReason: 'stop',
      providerFinishReason: 'end_turn',
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      cachedInputTokens: 0,
      cacheWriteTokens: expect.any(Number),
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

  it('the client built here never retries', () => {
    expect(model.client.maxRetries).toBe(0)
  })
})
