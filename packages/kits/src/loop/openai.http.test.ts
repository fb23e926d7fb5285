/**
 * The loop end to end: the OpenAI adapter (official `openai` client) against MockGPT over real HTTP on
 * loopback. Streaming text, parallel tool calls arriving as interleaved fragments, structured output with
 * `json_schema`, a 429 with Retry-After then success through `withRetry`, a disconnect and a malformed
 * chunk mid-stream (an error, never a shorter answer), and a hung server (the timeout fires).
 */
import { AttemptBudget, TimeoutError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ModelProviderError, type RetryEvent, withRetry } from '@agent-core/kits/models'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterEach, describe, expect, it } from 'vitest'
import { defineAgent, structuredAnswer } from './index.js'
import { EventLog } from './internal/testing/fixtures.js'

const servers: MockGPTServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(options: Parameters<typeof startMockGPTServer>[0]) {
  const server = await startMockGPTServer({ apiKey: 'sk-test', ...options })
  servers.push(server)
  const model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL })
  return { server, model }
}

const weather = defineModelTool<{ city: string }, string>({
  id: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: {
    type: 'object',
    required: ['city'],
    additionalProperties: false,
    properties: { city: { type: 'string' } },
  },
  execute: ({ city }) => ({ Lisbon: '19 °C', Oslo: '4 °C' })[city] ?? 'unknown',
})

describe('the loop against MockGPT through the OpenAI adapter', () => {
  it('streams text', async () => {
    const { model } = await serve({
      script: [{ reply: { type: 'text', text: 'Hello! How can I help you today?' } }],
    })
    const log = new EventLog()
    const result = await defineAgent({ model }).run({ prompt: 'Hi', onEvent: log.onEvent })
    expect(result.reason === 'final' && result.answer).toBe('Hello! How can I help you today?')
    expect(log.of('text-delta').length).toBeGreaterThan(3)
    expect(
      log
        .of('text-delta')
        .map((event) => event.text)
        .join(''),
    ).toBe('Hello! How can I help you today?')
    expect(result.usage.totalTokens).toBeGreaterThan(0)
  })

  it('runs parallel tool calls that arrive as interleaved fragments, and sends every result back', async () => {
    const { server, model } = await serve({
      script: [
        {
          reply: {
            type: 'tool-calls',
            reasoning: 'Both cities.',
            calls: [
              { name: 'get_weather', arguments: { city: 'Lisbon' } },
              { name: 'get_weather', arguments: { city: 'Oslo' } },
            ],
          },
        },
        {
          reply: (request) => ({
            type: 'text',
            text: `Lisbon ${request.toolResults[0]?.output}, Oslo ${request.toolResults[1]?.output}.`,
          }),
        },
      ],
    })
    const log = new EventLog()
    const result = await defineAgent({ model, tools: [weather] }).run({
      prompt: 'Weather in Lisbon and Oslo?',
      onEvent: log.onEvent,
    })
    expect(result.reason === 'final' && result.answer).toBe('Lisbon 19 °C, Oslo 4 °C.')
    expect(
      log
        .of('thinking-delta')
        .map((event) => event.text)
        .join(''),
    ).toBe('Both cities.')
    expect(log.of('tool-start').map((event) => event.input)).toEqual([{ city: 'Lisbon' }, { city: 'Oslo' }])
    expect(log.of('tool-resolved')).toHaveLength(2)
    // The second request carried the assistant's two calls and both results.
    const second = server.mock.requests[1]!.body as {
      messages: { role: string; tool_call_id?: string; tool_calls?: unknown[] }[]
      tools: unknown[]
    }
    expect(second.messages.filter((message) => message.role === 'tool')).toHaveLength(2)
    expect(second.messages.find((message) => message.role === 'assistant')?.tool_calls).toHaveLength(2)
    expect(second.tools).toHaveLength(1)
  })

  it('gets a structured answer with json_schema', async () => {
    const { server, model } = await serve({ seed: 7 })
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['city', 'population'],
      properties: { city: { type: 'string', minLength: 2 }, population: { type: 'integer', minimum: 0 } },
    } as const
    const result = await defineAgent({
      model,
      answer: structuredAnswer<{ city: string; population: number }>({
        name: 'City',
        schema,
        mode: 'json-schema',
      }),
    }).run({ prompt: 'Name a city and its population.' })
    expect(result.reason).toBe('final')
    const answer = result.reason === 'final' ? result.answer : undefined
    expect(typeof answer?.city).toBe('string')
    expect(Number.isInteger(answer?.population)).toBe(true)
    const body = server.mock.requests[0]!.body as {
      response_format?: { type: string; json_schema?: { name: string } }
    }
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'City' } })
  })

  it('a 429 with Retry-After, then success, through withRetry: every attempt metered', async () => {
    const { server, model } = await serve({
      script: [
        { reply: { type: 'error', status: 429, retryAfterMs: 40, message: 'Slow down' } },
        { reply: { type: 'text', text: 'Sorry for the wait.' } },
      ],
    })
    const retries: RetryEvent[] = []
    const attemptBudget = new AttemptBudget(5)
    const result = await defineAgent({
      model: withRetry(model, { onRetry: (event) => void retries.push(event) }),
    }).run({ prompt: 'Hi' }, { attemptBudget })
    expect(result.reason === 'final' && result.answer).toBe('Sorry for the wait.')
    expect(retries.map((event) => [event.error.status, event.delayMs, event.fromRetryAfter])).toEqual([
      [429, 40, true],
    ])
    expect(attemptBudget.used).toBe(2)
    expect(server.mock.requests).toHaveLength(2)
  })

  it('a disconnect or a malformed chunk mid-stream is an error, never a shorter answer', async () => {
    for (const fault of [
      { type: 'disconnect', afterChunks: 3 } as const,
      { type: 'malformed-chunk', afterChunks: 3 } as const,
    ]) {
      const { model } = await serve({
        script: [
          { reply: { type: 'text', text: 'This answer will be cut in the middle.' }, faults: [fault] },
        ],
      })
      const log = new EventLog()
      const result = await defineAgent({ model }).run({ prompt: 'Hi', onEvent: log.onEvent })
      expect(result.reason, fault.type).toBe('error')
      expect(
        ModelProviderError.isInstance(result.reason === 'error' ? result.error : undefined),
        fault.type,
      ).toBe(true)
      expect(result.messages, fault.type).toEqual([{ role: 'user', content: 'Hi' }])
      // What arrived before the fault: a non-empty start of the scripted text, kept apart from the answer.
      const partial = result.partialText ?? ''
      expect(partial.length, fault.type).toBeGreaterThan(0)
      expect('This answer will be cut in the middle.'.startsWith(partial), fault.type).toBe(true)
      expect(log.of('text-flush'), fault.type).toHaveLength(0)
    }
  })

  it('a hung server: the timeout fires', async () => {
    const { model } = await serve({
      script: [
        { reply: { type: 'text', text: 'Never finished.' }, faults: [{ type: 'hang', afterChunks: 2 }] },
      ],
    })
    const started = Date.now()
    const result = await defineAgent({ model, modelTimeoutMs: 300 }).run({ prompt: 'Hi' })
    expect(result.reason).toBe('error')
    expect(TimeoutError.isInstance(result.reason === 'error' ? result.error : undefined)).toBe(true)
    expect(Date.now() - started).toBeLessThan(20_000) // the run ended; the server would have held it forever

    const silent = await serve({
      script: [
        { reply: { type: 'text', text: 'Late.' }, faults: [{ type: 'slow-first-byte', delayMs: 60_000 }] },
      ],
    })
    const idle = await defineAgent({ model: silent.model, modelIdleTimeoutMs: 200 }).run({ prompt: 'Hi' })
    expect(idle.reason === 'error' && (idle.error as { code?: string }).code).toBe('timeout')
  })
})
