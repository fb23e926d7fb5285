import assert from 'node:assert/strict'
import { AttemptBudget } from '@agent-core/core'
import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
import { defineReflection } from '@agent-core/kits/reflection'

const drafts = ['See teh sea.', 'See the sea.']
const verdicts = [
  '{"decision": "revise", "issues": ["Fix the typo in \\"teh\\"."]}',
  '{"decision": "accept", "issues": []}',
]
const models = new ModelCalls([
  defineModelBinding({ id: 'writer', identity: 'toy-writer', invoke: () => drafts.shift() ?? '' }),
  defineModelBinding({ id: 'critic', identity: 'toy-critic', invoke: () => verdicts.shift() ?? '' }),
])
const reflection = defineReflection({
  drafter: { models, modelId: 'writer', timeoutMs: 10_000 },
  critic: { models, modelId: 'critic', timeoutMs: 10_000 },
  maxRounds: 3,
})

const attemptBudget = new AttemptBudget(10)
const result = await reflection.run({ prompt: 'One line about the sea.' }, { attemptBudget })
assert.equal(result.reason, 'accepted')
assert.equal(result.output, 'See the sea.')
assert.equal(result.rounds[0]?.verdict?.issues[0], 'Fix the typo in "teh".')
assert.deepEqual(
  result.rounds.map((round) => round.by),
  ['drafter', 'reviser'],
)
assert.equal(attemptBudget.used, 4) // two drafts, two verdicts
