/**
 * Every rule of the strict, safe mock, through the clients people use, over real HTTP: the official
 * `openai` SDK, the AI SDK (`ai` with its OpenAI-compatible, OpenAI and Anthropic providers) and the
 * official `@anthropic-ai/sdk`.
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import Anthropic from '@anthropic-ai/sdk'
import { APICallError, generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MockComputedReply, MockScriptEntry } from '../script.js'
import { type MockGPTServer, startMockGPTServer } from './start-mock-gpt-server.js'

const KEY = 'sk-official-clients'
const QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: { query: { type: 'string' } },
} as const
const REVIEW = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'stars'],
  properties: { title: { type: 'string' }, stars: { type: 'integer', minimum: 1, maximum: 5 } },
} as const

/** A computed reply as the research desk uses it: search first, then answer from what the tool returned. */
const researcher: MockComputedReply = (request) =>
  request.toolResults.length === 0
    ? { type: 'tool-calls', calls: [{ name: 'search', arguments: { query: request.lastUserMessage } }] }
    : {
        type: 'text',
        text: `From the sources: ${request.toolResults.map((r) => r.output).join(' ')}`,
        reasoning: 'The search returned a passage; quote it.',
      }

/** A script error: a value that breaks the request's json_schema. */
const BROKEN: MockScriptEntry = { label: 'broken review', reply: { type: 'json', value: { title: 1 } } }

let server: MockGPTServer
beforeAll(async () => {
  server = await startMockGPTServer({ seed: 5, apiKey: KEY })
})
afterAll(async () => {
  server.mock.reset()
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

/** Every request of the default scope was answered with these statuses (so retries are visible). */
const statuses = () => server.mock.requests.map((r) => r.status)

describe('the official openai SDK', () => {
  const client = () => new OpenAI({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 3 })

  it('does not retry a script error, and sees which entry and why', async () => {
    server.mock.script(BROKEN)
    const error = await client()
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'review' }],
        response_format: { type: 'json_schema', json_schema: { name: 'review', schema: REVIEW } },
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(/broken review.*\/title must be string/)
    expect(statuses()).toEqual([400])
    expect(server.mock.scriptProblems).toHaveLength(1)
    // The error's request id names the journal record of the failed call.
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).requestID).toBe('req_mockgpt_error_0')
    expect(server.mock.requests[0]?.index).toBe(0)
  })

  it('gets a strict-mode error for an unmatched request', async () => {
    const strict = await startMockGPTServer({ strict: true, apiKey: KEY })
    try {
      const error = await new OpenAI({ baseURL: strict.baseURL, apiKey: KEY, maxRetries: 2 }).chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'unscripted' }] })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message).toMatch(/strict mode: no script entry matches.*"unscripted"/)
      expect(strict.mock.requests).toHaveLength(1)
    } finally {
      strict.mock.reset()
      await strict.close()
    }
  })

  it('recovers from the default chaos pool by retrying', async () => {
    const chaotic = await startMockGPTServer({ seed: 11, apiKey: KEY, chaos: { rate: 0.5 } })
    try {
      const retrying = new OpenAI({ baseURL: chaotic.baseURL, apiKey: KEY, maxRetries: 8 })
      for (let i = 0; i < 8; i++) {
        const stream = await retrying.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `question ${i}` }],
          stream: true,
        })
        let text = ''
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
        expect(text).toContain(`question ${i}`)
      }
      expect(chaotic.mock.requests.some((r) => r.faults.length > 0)).toBe(true)
    } finally {
      await chaotic.close()
    }
  })

  it('runs an agent loop against a computed reply, and streams its reasoning_content', async () => {
    server.mock.script({ reply: researcher, times: 2 })
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'search', parameters: QUERY } },
    ]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'otters' }]
    const first = await client().chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
    const call = first.choices[0]?.message.tool_calls?.[0]
    if (call?.type !== 'function') throw new Error('expected a function call')
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'otters' })
    messages.push(first.choices[0]!.message, {
      role: 'tool',
      tool_call_id: call.id,
      content: 'Otters hold hands.',
    })
    const stream = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools,
      stream: true,
    })
    let text = ''
    let reasoning = ''
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string }
        | undefined
      text += delta?.content ?? ''
      reasoning += delta?.reasoning_content ?? ''
    }
    expect(text).toBe('From the sources: Otters hold hands.')
    expect(reasoning).toBe('The search returned a passage; quote it.')
  })

  it('keeps test scopes apart with X-Test-Id', async () => {
    server.mock.scope('file-a').script({ reply: { type: 'text', text: 'scoped answer' } })
    const scoped = new OpenAI({
      baseURL: server.baseURL,
      apiKey: KEY,
      defaultHeaders: { 'x-test-id': 'file-a' },
    })
    const a = await scoped.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
    })
    const b = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(a.choices[0]?.message.content).toBe('scoped answer')
    expect(b.choices[0]?.message.content).not.toBe('scoped answer')
    expect(server.mock.scope('file-a').requests).toHaveLength(1)
    expect(server.mock.requests).toHaveLength(1)
  })

  it('gets a 400 naming the parameter for a value out of range', async () => {
    const error = await client()
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
        top_p: -5,
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('top_p')
  })

  it('reads a reasoning item from the Responses API', async () => {
    server.mock.script({ reply: { type: 'text', text: 'Yes.', reasoning: 'Check, then answer.' } })
    const response = await client().responses.create({ model: 'gpt-5-mini', input: 'Is it?' })
    const item = response.output.find((o) => o.type === 'reasoning')
    expect(item?.type === 'reasoning' && item.summary[0]?.text).toBe('Check, then answer.')
    expect(response.output_text).toBe('Yes.')
  })
})

describe('the AI SDK with its OpenAI-compatible provider', () => {
  const provider = (
    options: { supportsStructuredOutputs?: boolean; headers?: Record<string, string> } = {},
  ) =>
    createOpenAICompatible({
      name: 'mockgpt',
      baseURL: server.baseURL,
      apiKey: KEY,
      includeUsage: true,
      ...options,
    })

  it('does not retry a script error', async () => {
    server.mock.script(BROKEN)
    const error = await generateText({
      model: provider({ supportsStructuredOutputs: true })('gpt-4o-mini'),
      prompt: 'review',
      output: Output.object({ schema: jsonSchema(REVIEW) }),
    }).catch((e: unknown) => e)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).isRetryable).toBe(false)
    expect((error as APICallError).responseBody).toMatch(/broken review/)
    expect(statuses()).toEqual([400])
  })

  it('runs a multi-step tool loop against a computed reply and reads the reasoning', async () => {
    server.mock.script({ reply: researcher, times: 2 })
    const searched: string[] = []
    const result = await generateText({
      model: provider()('gpt-4o-mini'),
      prompt: 'otters',
      tools: {
        search: tool({
          inputSchema: jsonSchema<{ query: string }>(QUERY),
          execute: async ({ query }) => {
            searched.push(query)
            return 'Otters hold hands.'
          },
        }),
      },
      stopWhen: stepCountIs(4),
    })
    expect(searched).toEqual(['otters'])
    expect(result.text).toBe('From the sources: Otters hold hands.')
    expect(result.reasoningText).toBe('The search returned a passage; quote it.')
    expect(server.mock.requests.map((r) => r.reply)).toEqual(['tool-calls', 'text'])
  })

  it('generates structured output through response_format when supportsStructuredOutputs is set', async () => {
    const result = await generateText({
      model: provider({ supportsStructuredOutputs: true })('gpt-4o-mini'),
      prompt: 'Review a film',
      output: Output.object({ schema: jsonSchema<{ title: string; stars: number }>(REVIEW) }),
    })
    expect(typeof result.output.title).toBe('string')
    expect(result.output.stars).toBeGreaterThanOrEqual(1)
    expect(server.mock.requests[0]?.body).toMatchObject({ response_format: { type: 'json_schema' } })
  })

  it('streams text in a test scope and answers a sequence turn by turn', async () => {
    server.mock.scope('ai-sdk').script({
      sequence: [
        { type: 'tool-calls', calls: [{ name: 'search', arguments: { query: 'q' } }] },
        { type: 'text', text: 'Final answer.' },
      ],
    })
    const result = streamText({
      model: provider({ headers: { 'x-test-id': 'ai-sdk' } })('gpt-4o-mini'),
      prompt: 'go',
      tools: {
        search: tool({ inputSchema: jsonSchema<{ query: string }>(QUERY), execute: async () => 'r' }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(await result.text).toBe('Final answer.')
    expect(server.mock.scope('ai-sdk').pendingScript).toBe(0)
    expect(server.mock.requests).toHaveLength(0)
  })

  it('surfaces a strict-mode miss and a refused parameter as non-retryable errors', async () => {
    const strict = await startMockGPTServer({ strict: true, apiKey: KEY })
    try {
      const model = createOpenAICompatible({ name: 'm', baseURL: strict.baseURL, apiKey: KEY })('gpt-4o-mini')
      const miss = await generateText({ model, prompt: 'unscripted' }).catch((e: unknown) => e)
      expect(APICallError.isInstance(miss) && miss.statusCode).toBe(400)
      strict.mock.reset()
      strict.mock.script({ reply: { type: 'text', text: 'x' }, times: 5 })
      const refused = await generateText({ model, prompt: 'x', temperature: 9 }).catch((e: unknown) => e)
      expect(APICallError.isInstance(refused) && refused.responseBody).toMatch(/temperature/)
      expect(strict.mock.requests).toHaveLength(1)
    } finally {
      strict.mock.reset()
      await strict.close()
    }
  })
})

describe('hostile schemas through every client', () => {
  const BOMB = {
    type: 'object' as const,
    required: ['x'],
    properties: { x: { type: 'string', pattern: '^((a{1000}){1000}){1000}$' } },
  }

  it('answers a regex bomb with a 400 naming the keyword, to the openai SDK, the AI SDK and the Anthropic SDK', async () => {
    const viaOpenAI = await new OpenAI({
      baseURL: server.baseURL,
      apiKey: KEY,
      maxRetries: 2,
    }).chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'bomb', schema: BOMB } },
      })
      .catch((e: unknown) => e)
    expect(viaOpenAI).toBeInstanceOf(OpenAI.BadRequestError)
    expect((viaOpenAI as Error).message).toMatch(/keyword "pattern"/)

    const viaAiSdk = await generateText({
      model: createOpenAICompatible({
        name: 'm',
        baseURL: server.baseURL,
        apiKey: KEY,
        supportsStructuredOutputs: true,
      })('gpt-4o-mini'),
      prompt: 'x',
      output: Output.object({ schema: jsonSchema(BOMB) }),
    }).catch((e: unknown) => e)
    expect(APICallError.isInstance(viaAiSdk) && viaAiSdk.statusCode).toBe(400)

    const viaAnthropic = await new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 2 }).messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'bomb', input_schema: { ...BOMB, required: ['x'] } }],
        tool_choice: { type: 'tool', name: 'bomb' },
      })
      .catch((e: unknown) => e)
    expect(viaAnthropic).toBeInstanceOf(Anthropic.BadRequestError)
    expect((viaAnthropic as Error).message).toMatch(/keyword \\?"pattern/)
    // None of them retried a 400.
    expect(statuses()).toEqual([400, 400, 400])
  })
})

describe('the AI SDK with its OpenAI provider (Responses API)', () => {
  it('reads text, tool calls and reasoning summaries', async () => {
    server.mock.script({ reply: researcher, times: 2 })
    const openai = createOpenAI({ baseURL: server.baseURL, apiKey: KEY })
    const result = await generateText({
      model: openai('gpt-5-mini'),
      prompt: 'otters',
      tools: {
        search: tool({
          inputSchema: jsonSchema<{ query: string }>(QUERY),
          execute: async () => 'Otters float.',
        }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe('From the sources: Otters float.')
    expect(result.reasoningText).toBe('The search returned a passage; quote it.')
    expect(server.mock.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses'])
  })
})

describe('the official Anthropic SDK', () => {
  const client = (maxRetries = 2) => new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries })

  it('creates a message and streams one, with thinking and text', async () => {
    server.mock.script({
      reply: { type: 'text', text: 'Hello from MockGPT.', reasoning: 'Greet.' },
      times: 2,
    })
    const message = await client().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text'])
    expect(message.content[1]?.type === 'text' && message.content[1].text).toBe('Hello from MockGPT.')
    expect(message.stop_reason).toBe('end_turn')
    const stream = client().messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const deltas: string[] = []
    stream.on('text', (text) => deltas.push(text))
    const final = await stream.finalMessage()
    expect(deltas.join('')).toBe('Hello from MockGPT.')
    expect(final.content[0]?.type === 'thinking' && final.content[0].thinking).toBe('Greet.')
    expect(final.usage.output_tokens).toBeGreaterThan(0)
  })

  it('calls tools, streamed as input_json_delta, and answers from the tool result', async () => {
    server.mock.script({ reply: researcher, times: 2 })
    const tools: Anthropic.Tool[] = [
      { name: 'search', input_schema: { ...QUERY, required: [...QUERY.required] } },
    ]
    const first = await client()
      .messages.stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 200,
        tools,
        messages: [{ role: 'user', content: 'otters' }],
      })
      .finalMessage()
    const use = first.content.find((b) => b.type === 'tool_use')
    expect(first.stop_reason).toBe('tool_use')
    expect(use?.type === 'tool_use' && use.input).toEqual({ query: 'otters' })
    if (use?.type !== 'tool_use') throw new Error('expected tool_use')
    expect(use.id).toMatch(/^toolu_/)
    const second = await client().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 200,
      tools,
      messages: [
        { role: 'user', content: 'otters' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Otters hold hands.' }],
        },
      ],
    })
    const text = second.content.find((b) => b.type === 'text')
    expect(text?.type === 'text' && text.text).toBe('From the sources: Otters hold hands.')
  })

  it('gets Anthropic-shaped errors: authentication, a script error (not retried), rate limits (retried)', async () => {
    const wrong = new Anthropic({ baseURL: server.url, apiKey: 'sk-wrong', maxRetries: 0 })
    await expect(
      wrong.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError)
    server.mock.reset()
    server.mock.script({ reply: { type: 'tool-calls', calls: [{ name: 'missing' }] } })
    const scriptError = await client()
      .messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((e: unknown) => e)
    expect(scriptError).toBeInstanceOf(Anthropic.BadRequestError)
    expect((scriptError as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
      request_id: 'req_mockgpt_error_0',
    })
    expect((scriptError as InstanceType<typeof Anthropic.BadRequestError>).requestID).toBe(
      'req_mockgpt_error_0',
    )
    expect(statuses()).toEqual([400])
    server.mock.reset()
    server.mock.script(
      { reply: { type: 'error', status: 429, retryAfterMs: 10 } },
      { reply: { type: 'error', status: 529, retryAfterMs: 10 } },
      { reply: { type: 'text', text: 'third time' } },
    )
    const message = await client(3).messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('third time')
    expect(statuses()).toEqual([429, 529, 200])
  })

  it('refuses a parameter of the wrong type', async () => {
    const error = await client(0)
      .messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
        stop_sequences: 'END' as unknown as string[],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toMatch(/stop_sequences/)
  })
})

describe('the AI SDK with its Anthropic provider', () => {
  it('runs a tool loop with reasoning, and surfaces a strict-mode miss', async () => {
    server.mock.script({ reply: researcher, times: 2 })
    const anthropic = createAnthropic({ baseURL: server.baseURL, apiKey: KEY })
    const result = await generateText({
      model: anthropic('claude-sonnet-4-6'),
      prompt: 'otters',
      tools: {
        search: tool({
          inputSchema: jsonSchema<{ query: string }>(QUERY),
          execute: async () => 'Otters hold hands.',
        }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe('From the sources: Otters hold hands.')
    expect(result.reasoningText).toBe('The search returned a passage; quote it.')
    const stream = streamText({ model: anthropic('claude-sonnet-4-6'), prompt: 'plain' })
    expect(await stream.text).toMatch(/plain/)

    const strict = await startMockGPTServer({ strict: true, apiKey: KEY })
    try {
      const miss = await generateText({
        model: createAnthropic({ baseURL: strict.baseURL, apiKey: KEY })('claude-sonnet-4-6'),
        prompt: 'unscripted',
      }).catch((e: unknown) => e)
      expect(APICallError.isInstance(miss) && miss.statusCode).toBe(400)
      expect(strict.mock.requests).toHaveLength(1)
    } finally {
      strict.mock.reset()
      await strict.close()
    }
  })
})
