/** Structured output against MockGPT over real HTTP, through a ModelCalls binding. */
import { AttemptBudget } from '@agent-core/core'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { z } from 'zod'
import { chooseRoute, generateStructured, ModelCalls, withRetry } from './index.js'
import { fetchChatBinding } from './internal/testing/fetch-chat-binding.js'

let server: MockGPTServer
let models: ModelCalls<ReturnType<typeof fetchChatBinding<'chat'>>>

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 3 })
  models = new ModelCalls([
    withRetry(fetchChatBinding({ id: 'chat', baseURL: server.baseURL }), { baseDelayMs: 1 }),
  ])
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

const review = z.object({ title: z.string().min(3), rating: z.number().int().min(1).max(5) })

it('json-schema mode: MockGPT generates a valid value, read on the first reply', async () => {
  const budget = new AttemptBudget(3)
  const result = await generateStructured(
    {
      model: { models, modelId: 'chat', timeoutMs: 10_000 },
      schema: review,
      name: 'Review',
      prompt: 'Review the film',
      mode: 'json-schema',
    },
    { attemptBudget: budget },
  )
  expect(review.safeParse(result.value).success).toBe(true)
  expect(result.attempts).toBe(1)
  expect(budget.used).toBe(1)
  const body = server.mock.requests[0]?.body as { response_format?: { json_schema?: { name?: string } } }
  expect(body.response_format?.json_schema?.name).toBe('Review')
})

it('prompt mode: a fenced reply with a wrong field is corrected after a 429, every call metered', async () => {
  server.mock.script(
    { reply: { type: 'text', text: '```json\n{"title": "Up", "rating": 9}\n```' } },
    { reply: { type: 'error', status: 429, retryAfterMs: 1 } },
    { reply: { type: 'text', text: '{"title": "Up (2009)", "rating": 5}' } },
  )
  const budget = new AttemptBudget(5)
  const result = await generateStructured(
    { model: { models, modelId: 'chat', timeoutMs: 10_000 }, schema: review, prompt: 'Review the film' },
    { attemptBudget: budget },
  )
  expect(result.value).toEqual({ title: 'Up (2009)', rating: 5 })
  expect(result.attempts).toBe(2)
  expect(budget.used).toBe(3)
  const correction = server.mock.requests[1]?.body as { messages: { role: string; content: string }[] }
  expect(correction.messages.at(-1)?.content).toMatch(/\/title: .*\n- \/rating: /)
})

it('chooseRoute over HTTP: a pick outside the set is corrected', async () => {
  server.mock.script(
    { reply: { type: 'text', text: '{"route": "refunds"}' } },
    { reply: { type: 'text', text: '{"route": "billing", "reason": "a refund"}' } },
  )
  const choice = await chooseRoute({
    model: { models, modelId: 'chat', timeoutMs: 10_000 },
    routes: [
      { name: 'billing', description: 'invoices, refunds' },
      { name: 'tech', description: 'bugs' },
    ],
    prompt: 'Please refund my last payment.',
  })
  expect(choice).toMatchObject({ route: 'billing', reason: 'a refund', attempts: 2 })
  const feedback = server.mock.requests[1]?.body as { messages: { content: string }[] }
  expect(feedback.messages.at(-1)?.content).toContain(
    '/route: must be one of "billing", "tech", but was "refunds"',
  )
})
