/**
 * The loop end to end on the Anthropic adapter: the first agent of the loop guide, unchanged but for its
 * model, against MockGPT's `/v1/messages` over real HTTP; extended thinking across a tool turn (the loop
 * keeps the signed thinking block in the history, and MockGPT refuses a tool turn sent back without it);
 * a 429 then success through `withRetry`; a disconnect mid-stream ending the run with a provider error.
 */
import { AttemptBudget } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import { ModelProviderError, withRetry } from '@agent-core/kits/models'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterEach, describe, expect, it } from 'vitest'
import { createAnthropicChatModel } from './index.js'

const servers: MockGPTServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(options: Parameters<typeof startMockGPTServer>[0] = {}) {
  const server = await startMockGPTServer({ apiKey: 'sk-test', ...options })
  servers.push(server)
  return server
}

const weather = defineModelTool<{ city: string }, string>({
  id: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
  execute: ({ city }) => `19 °C and sunny in ${city}`,
})

describe('the loop against MockGPT through the Anthropic adapter', () => {
  it("runs the loop guide's first agent: model -> tool -> model", async () => {
    const server = await serve()
    const agent = defineAgent({
      model: createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-test', baseURL: server.url }),
      tools: [weather],
    })
    const result = await agent.run({ prompt: 'Use get_weather: how is Lisbon today?' })
    expect(result.reason).toBe('final')
    expect(JSON.stringify(result.messages)).toMatch(/19 °C and sunny in/)
    expect(result.turns).toBe(2)
    expect(server.mock.requests.map((request) => request.endpoint)).toEqual(['messages', 'messages'])
  })

  it('keeps the signed thinking block through a tool turn, as extended thinking requires', async () => {
    const server = await serve({
      script: [
        {
          reply: {
            type: 'tool-calls',
            reasoning: 'Look the weather up first.',
            calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
          },
        },
        {
          reply: (request) => ({
            type: 'text',
            text: `Oslo: ${request.toolResults[0]?.output}`,
            reasoning: 'Report it.',
          }),
        },
      ],
    })
    const thinking: string[] = []
    const agent = defineAgent({
      model: createAnthropicChatModel({
        model: 'claude-sonnet-4-6',
        apiKey: 'sk-test',
        baseURL: server.url,
        thinking: { budgetTokens: 1024 },
      }),
      tools: [weather],
    })
    const result = await agent.run({
      prompt: 'Weather in Oslo?',
      onEvent: (event) => {
        if (event.type === 'thinking-delta') thinking.push(event.text)
      },
    })
    expect(result.reason === 'final' && result.answer).toBe('Oslo: 19 °C and sunny in Oslo')
    expect(thinking.join('')).toBe('Look the weather up first.Report it.')
    const assistant = result.messages.find((message) => message.role === 'assistant')
    expect(assistant?.role === 'assistant' && assistant.thinkingBlocks?.[0]?.signature).toMatch(
      /^mockgpt-sig-/,
    )
    const second = server.mock.requests[1]?.body as { messages: { content: { type: string }[] }[] }
    expect(second.messages[1]?.content.map((block) => block.type)).toEqual(['thinking', 'tool_use'])
    // The run's state survives JSON with the blocks in it (a durable run resumes with them).
    expect(JSON.parse(JSON.stringify(result.state))).toEqual(result.state)
  })

  it('a 429 with retry-after, then success, through withRetry', async () => {
    const server = await serve({
      script: [
        { reply: { type: 'error', status: 429, retryAfterMs: 20 } },
        { reply: { type: 'text', text: 'Through.' } },
      ],
    })
    const delays: number[] = []
    const agent = defineAgent({
      model: withRetry(
        createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-test', baseURL: server.url }),
        {
          onRetry: (event) => void delays.push(event.delayMs),
        },
      ),
    })
    const result = await agent.run({ prompt: 'Hi' }, { attemptBudget: new AttemptBudget(3) })
    expect(result.reason === 'final' && result.answer).toBe('Through.')
    expect(delays).toEqual([20])
    expect(server.mock.requests.map((request) => request.status)).toEqual([429, 200])
  })

  it('a disconnect mid-stream ends the run with the provider error, never a shorter answer', async () => {
    const server = await serve({
      script: [
        {
          reply: { type: 'text', text: 'A long answer that will be cut.' },
          faults: [{ type: 'disconnect', afterChunks: 4 }],
        },
      ],
    })
    const agent = defineAgent({
      model: createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-test', baseURL: server.url }),
    })
    const result = await agent.run({ prompt: 'Tell me' })
    expect(result.reason).toBe('error')
    expect(result.reason === 'error' && ModelProviderError.isInstance(result.error)).toBe(true)
    expect(result.reason === 'error' && (result.error as ModelProviderError).kind).toBe('network')
  })
})
