/**
 * Reflection end to end: drafter, reviser and critic are `openAIChatBinding`s (the official `openai`
 * client) and loop agents over `createOpenAIChatModel`, against MockGPT over real HTTP on loopback. The
 * critic is MockGPT computing its verdict from the draft it reads.
 */
import { AttemptBudget } from '@agent-core/core'
import { defineAgent } from '@agent-core/kits/loop'
import { ModelCalls, withRetry } from '@agent-core/kits/models'
import { createOpenAIChatModel, openAIChatBinding } from '@agent-core/kits/openai'
import type { MockReply, MockRequestView } from '@agent-core/mock'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterEach, describe, expect, it } from 'vitest'
import { defineReflection } from './index.js'

const servers: MockGPTServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** The draft under review, as the default critique shows it. */
function draftIn(request: MockRequestView): string {
  return /## Draft to review \(round \d+\)\n([\s\S]*)$/.exec(request.lastUserMessage)?.[1] ?? ''
}

/** MockGPT as a critic: a haiku needs exactly three lines and must mention the sea. */
function critique(request: MockRequestView): MockReply {
  const draft = draftIn(request)
  const issues: string[] = []
  if (draft.split('\n').length !== 3) issues.push('A haiku has exactly three lines.')
  if (!/sea/i.test(draft)) issues.push('The task asks for the sea; mention it.')
  return {
    type: 'text',
    text: JSON.stringify({ decision: issues.length === 0 ? 'accept' : 'revise', issues }),
  }
}

/** MockGPT as a writer: the first draft is one line; a revision fixes what the issues name. */
function write(request: MockRequestView): MockReply {
  const asked = request.lastUserMessage
  if (!asked.includes('A reviewer asked for changes'))
    return { type: 'text', text: 'An old pond, a frog jumps in' }
  const lines = [
    'An old pond',
    'a frog jumps in',
    asked.includes('sea') ? 'the sea goes quiet' : 'water sound',
  ]
  return { type: 'text', text: lines.join('\n') }
}

async function serve() {
  const server = await startMockGPTServer({
    apiKey: 'sk-test',
    script: [
      { match: { model: 'critic-model' }, times: Number.POSITIVE_INFINITY, reply: critique },
      { match: { model: 'writer-model' }, times: Number.POSITIVE_INFINITY, reply: write },
    ],
  })
  servers.push(server)
  return server
}

describe('reflection against MockGPT through the OpenAI adapter', () => {
  it('binding drafter and critic: revise, then accept, every call over HTTP and metered', async () => {
    const server = await serve()
    const common = { apiKey: 'sk-test', baseURL: server.baseURL }
    const models = new ModelCalls([
      openAIChatBinding({ id: 'writer', model: 'writer-model', ...common }),
      openAIChatBinding({ id: 'critic', model: 'critic-model', stream: true, ...common }),
    ])
    const reflection = defineReflection({
      drafter: { models, modelId: 'writer', timeoutMs: 10_000 },
      critic: { models, modelId: 'critic', timeoutMs: 10_000 },
      criteria: 'Three lines; about the sea.',
    })
    const attemptBudget = new AttemptBudget(10)
    const result = await reflection.run({ prompt: 'Write a haiku about the sea.' }, { attemptBudget })
    expect(result.reason).toBe('accepted')
    expect(result.output).toBe('An old pond\na frog jumps in\nthe sea goes quiet')
    expect(result.rounds.map((round) => round.verdict?.issues.length)).toEqual([2, 0])
    expect(attemptBudget.used).toBe(4)
    expect(server.mock.requests).toHaveLength(4)
    expect(result.usage.totalTokens).toBeGreaterThan(0)
    expect(result.usage.totalTokens).toBe(
      result.rounds.reduce((sum, round) => sum + round.usage.totalTokens, 0),
    )
  })

  it('agent steps over the chat model, and a critic that is rate-limited once then retried', async () => {
    const server = await startMockGPTServer({
      apiKey: 'sk-test',
      script: [
        { match: { model: 'critic-model' }, reply: { type: 'error', status: 429, retryAfterMs: 5 } },
        { match: { model: 'critic-model' }, times: Number.POSITIVE_INFINITY, reply: critique },
        { match: { model: 'writer-model' }, times: Number.POSITIVE_INFINITY, reply: write },
      ],
    })
    servers.push(server)
    const common = { apiKey: 'sk-test', baseURL: server.baseURL }
    const writer = defineAgent({ model: createOpenAIChatModel({ model: 'writer-model', ...common }) })
    const models = new ModelCalls([
      withRetry(openAIChatBinding({ id: 'critic', model: 'critic-model', ...common }), { baseDelayMs: 1 }),
    ])
    const attemptBudget = new AttemptBudget(10)
    const result = await defineReflection({
      drafter: writer,
      critic: { models, modelId: 'critic', timeoutMs: 10_000 },
    }).run({ prompt: 'Write a haiku about the sea.' }, { attemptBudget })
    expect(result.reason).toBe('accepted')
    expect(result.rounds).toHaveLength(2)
    // 2 writer calls, 3 critic attempts (the 429 included): the retry was metered too.
    expect(attemptBudget.used).toBe(5)
  })

  it('a critic in json-schema mode gets the verdict schema as the provider response format', async () => {
    const server = await startMockGPTServer({
      apiKey: 'sk-test',
      script: [
        { match: { model: 'writer-model' }, reply: { type: 'text', text: 'Waves fold on the sea' } },
        {
          match: { model: 'critic-model' },
          reply: { type: 'json', value: { decision: 'accept', issues: [] } },
        },
      ],
    })
    servers.push(server)
    const common = { apiKey: 'sk-test', baseURL: server.baseURL }
    const models = new ModelCalls([
      openAIChatBinding({ id: 'writer', model: 'writer-model', ...common }),
      openAIChatBinding({ id: 'critic', model: 'critic-model', ...common }),
    ])
    const result = await defineReflection({
      drafter: { models, modelId: 'writer', timeoutMs: 10_000 },
      critic: { models, modelId: 'critic', timeoutMs: 10_000 },
      mode: 'json-schema',
    }).run({ prompt: 'One line about the sea.' })
    expect(result.reason).toBe('accepted')
    const body = server.mock.requests[1]?.body as {
      response_format?: { type: string; json_schema?: { name: string } }
    }
    expect(body.response_format?.type).toBe('json_schema')
    expect(body.response_format?.json_schema?.name).toBe('Verdict')
  })
})
