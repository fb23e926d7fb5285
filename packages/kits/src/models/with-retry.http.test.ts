/**
 * withRetry over real HTTP: a fetch-based binding against MockGPT on loopback with injected faults. The
 * server's recorded requests and the attempt budget count the attempts independently.
 */
import { AttemptBudget, BudgetExhaustedError, TimeoutError } from '@agent-core/core'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ModelCalls, ModelProviderError, withRetry } from './index.js'
import { fetchChatBinding } from './internal/testing/fetch-chat-binding.js'

let server: MockGPTServer
let models: ModelCalls<ReturnType<typeof fetchChatBinding<'chat'>>>

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 11 })
  models = new ModelCalls([
    withRetry(fetchChatBinding({ id: 'chat', baseURL: server.baseURL }), { baseDelayMs: 5, maxDelayMs: 20 }),
  ])
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

const hello = { messages: [{ role: 'user' as const, content: 'Hello there' }] }

function chatRequests(): number {
  return server.mock.requests.filter((request) => request.endpoint === 'chat.completions').length
}

describe('withRetry against MockGPT over HTTP', () => {
  it('retries 429 and 503 with their retry-after, then answers; every attempt is metered', async () => {
    server.mock.script(
      { reply: { type: 'error', status: 429, retryAfterMs: 20 } },
      { faults: [{ type: 'status', status: 503, retryAfterMs: 10 }] },
    )
    const budget = new AttemptBudget(5)
    const { value } = await models.invoke(
      { modelId: 'chat', input: hello, timeoutMs: 10_000 },
      { attemptBudget: budget },
    )
    expect(value.message.content).toMatch(/Hello there/)
    expect(chatRequests()).toBe(3)
    expect(budget.used).toBe(3)
    expect(server.mock.requests.map((request) => request.status)).toEqual([429, 503, 200])
  })

  it('reads Retry-After in whole seconds when retry-after-ms is absent', async () => {
    server.mock.script({ reply: { type: 'error', status: 429, retryAfterSeconds: 0 } })
    const budget = new AttemptBudget(5)
    await models.invoke({ modelId: 'chat', input: hello, timeoutMs: 10_000 }, { attemptBudget: budget })
    expect(budget.used).toBe(2)
  })

  it('does not retry a 400, and the error carries status and provider message', async () => {
    server.mock.script({ reply: { type: 'error', status: 400, message: 'Invalid value for temperature' } })
    const budget = new AttemptBudget(5)
    const error = await models
      .invoke({ modelId: 'chat', input: hello, timeoutMs: 10_000 }, { attemptBudget: budget })
      .catch((e: unknown) => e)
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ status: 400, kind: 'invalid-request', retryable: false })
    expect((error as Error).message).toMatch(/Invalid value for temperature/)
    expect(chatRequests()).toBe(1)
    expect(budget.used).toBe(1)
  })

  it('does not retry a 429 the provider marks as final (x-should-retry: false)', async () => {
    server.mock.script({ reply: { type: 'error', status: 429, shouldRetry: false, retryAfterMs: 1 } })
    const error = await models
      .invoke({ modelId: 'chat', input: hello, timeoutMs: 10_000 })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'provider-error', status: 429, retryable: false })
    expect(chatRequests()).toBe(1)
  })

  it('retries a body cut in half (a dropped connection) and a truncated body', async () => {
    server.mock.script({ faults: [{ type: 'disconnect' }] }, { faults: [{ type: 'malformed-chunk' }] })
    const budget = new AttemptBudget(5)
    const { value } = await models.invoke(
      { modelId: 'chat', input: hello, timeoutMs: 10_000 },
      { attemptBudget: budget },
    )
    expect(value.message.content).toMatch(/Hello there/)
    expect(budget.used).toBe(3)
    expect(chatRequests()).toBe(3)
  })

  it('a hung server cannot outlive timeoutMs; nothing is retried after the deadline', async () => {
    server.mock.script({ faults: [{ type: 'hang' }] })
    const budget = new AttemptBudget(5)
    const error = await models
      .invoke({ modelId: 'chat', input: hello, timeoutMs: 150 }, { attemptBudget: budget })
      .catch((e: unknown) => e)
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect(budget.used).toBe(1)
    expect(chatRequests()).toBe(1)
  })

  it('stops when the shared budget runs out, with the provider error as cause', async () => {
    server.mock.script({ reply: { type: 'error', status: 503, retryAfterMs: 1 }, times: 10 })
    const budget = new AttemptBudget(2)
    const error = await models
      .invoke({ modelId: 'chat', input: hello, timeoutMs: 10_000 }, { attemptBudget: budget })
      .catch((e: unknown) => e)
    expect(BudgetExhaustedError.isInstance(error)).toBe(true)
    expect(ModelProviderError.isInstance((error as Error).cause)).toBe(true)
    expect(chatRequests()).toBe(2)
  })

  it('under seeded chaos, server requests, attempts taken and binding calls agree', async () => {
    const chaotic = await startMockGPTServer({
      seed: 5,
      chaos: {
        rate: 0.5,
        faults: [
          { type: 'status', status: 429, retryAfterMs: 2 },
          { type: 'status', status: 500 },
          { type: 'status', status: 503, retryAfterMs: 1 },
          { type: 'disconnect' },
        ],
      },
    })
    try {
      const chaosModels = new ModelCalls([
        withRetry(fetchChatBinding({ id: 'chat', baseURL: chaotic.baseURL }), {
          maxAttempts: 8,
          baseDelayMs: 1,
          maxDelayMs: 4,
        }),
      ])
      const budget = new AttemptBudget(200)
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          chaosModels.invoke(
            {
              modelId: 'chat',
              input: { messages: [{ role: 'user', content: `question ${i}` }] },
              timeoutMs: 20_000,
            },
            { attemptBudget: budget },
          ),
        ),
      )
      const requests = chaotic.mock.requests.filter((request) => request.endpoint === 'chat.completions')
      expect(requests.length).toBe(budget.used)
      expect(requests.some((request) => request.status !== 200)).toBe(true)
      const answered = results.filter((result) => result.status === 'fulfilled').length
      expect(requests.filter((request) => request.status === 200 && request.faults.length === 0).length).toBe(
        answered,
      )
    } finally {
      await chaotic.close()
    }
  })
})
