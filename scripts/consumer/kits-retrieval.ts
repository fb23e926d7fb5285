import assert from 'node:assert/strict'
import { BudgetExhaustedError } from '@agent-core/core'
import { DuplicateRetrievalError, defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'

const notes = [
  { id: 'n1', topic: 'pricing', text: 'Pro costs 20 EUR a month.' },
  { id: 'n2', topic: 'refunds', text: 'Refunds within 14 days.' },
  { id: 'n3', topic: 'pricing', text: 'Team costs 50 EUR a month.' },
]
interface App {
  readonly ledger: RetrievalLedger
  readonly cited: string[]
}
const search = defineRetrieval({
  id: 'notes',
  assertInput(input: unknown): asserts input is string {
    if (typeof input !== 'string') throw new TypeError('a topic')
  },
  key: (topic: string) => topic.toLowerCase(),
  ledger: (context: { app: App }) => context.app.ledger,
  execute: (topic: string) => notes.filter((note) => note.topic === topic.toLowerCase()),
  effects: [
    {
      id: 'cite',
      apply: (submission, context: { app: App }) => {
        for (const source of submission.sources)
          context.app.cited.push(`${source.sourceId}:${source.material.id}`)
      },
    },
  ],
})

// One request: two queries at most, each read once, every source with its own reference id.
const app: App = { ledger: new RetrievalLedger({ limit: 2 }), cited: [] }
assert.equal(search.run('pricing', { app }).sources.length, 2)
assert.throws(
  () => search.run('Pricing', { app }),
  (error) => DuplicateRetrievalError.isInstance(error),
)
search.run('refunds', { app })
assert.throws(
  () => search.run('shipping', { app }),
  (error) => BudgetExhaustedError.isInstance(error),
)
assert.deepEqual(app.cited, ['S1:n1', 'S2:n3', 'S3:n2'])
