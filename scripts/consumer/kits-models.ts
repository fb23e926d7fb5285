import assert from 'node:assert/strict'
import { AttemptBudget, type ModelRequest } from '@agent-core/core'
import {
  defineModelBinding,
  generateStructured,
  ModelCalls,
  ModelProviderError,
  withRetry,
} from '@agent-core/kits/models'

// A binding that is overloaded once, then answers: withRetry retries it within the attempt budget.
const replies: (string | ModelProviderError)[] = [
  new ModelProviderError('Overloaded.', { kind: 'overloaded', status: 503, retryAfterMs: 5 }),
  '{"city": "Lisbon", "population": "545k"}',
  '{"city": "Lisbon", "population": 545000}',
]
const chat = defineModelBinding({
  id: 'chat',
  identity: 'toy-model',
  invoke: (_request: ModelRequest) => {
    const reply = replies.shift()
    if (reply instanceof Error) throw reply
    return reply ?? ''
  },
})
const models = new ModelCalls([withRetry(chat, { maxAttempts: 2 })])
const attemptBudget = new AttemptBudget(5)
const { value, attempts } = await generateStructured<{ city: string; population: number }>(
  {
    model: { models, modelId: 'chat', timeoutMs: 5_000 },
    schema: {
      type: 'object',
      required: ['city', 'population'],
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
    },
    prompt: 'Name a city and its population.',
  },
  { attemptBudget },
)
assert.deepEqual(value, { city: 'Lisbon', population: 545000 })
assert.equal(attempts, 2) // the first reply was corrected
assert.equal(attemptBudget.used, 3) // the retry after 503 counted too
