import assert from 'node:assert/strict'
import { reciprocalRankFusion, TextSearch, VectorSearch } from '@agent-core/kits/search'

interface Passage {
  id: string
  text: string
}

const passages: { passage: Passage; vector: number[] }[] = [
  { passage: { id: 'p1', text: 'How to reset a forgotten password' }, vector: [0.9, 0.1, 0.0] },
  { passage: { id: 'p2', text: 'Account recovery when you cannot sign in' }, vector: [0.85, 0.2, 0.1] },
  { passage: { id: 'p3', text: 'Password rules: length and characters' }, vector: [0.3, 0.8, 0.1] },
  { passage: { id: 'p4', text: 'Billing and invoices' }, vector: [0.0, 0.1, 0.95] },
]

const text = new TextSearch<Passage>({ indexRevision: 'help-v1', fields: ['text'], storedFields: ['text'] })
text.addAll(passages.map((p) => p.passage))
const vectors = new VectorSearch<Passage>({ identity: 'toy-embedder-v1', dimensions: 3 })
vectors.upsertMany(passages.map((p) => ({ document: p.passage, vector: p.vector })))

// The user asks about a "forgotten password"; its embedding is close to p1 and p2.
const question = 'forgotten password'
const questionVector = [0.88, 0.15, 0.05]

const fused = reciprocalRankFusion(
  [
    { sourceId: 'text', hits: text.search({ query: question, limit: 20 }) },
    { sourceId: 'vector', hits: vectors.search({ vector: questionVector, limit: 20 }) },
  ],
  { limit: 3 },
)

// p1 is first in both lists. p3 is second in the text list and third in the vector list; p2 is only in
// the vector list (second), so p3 outranks it.
assert.deepEqual(
  fused.map((f) => f.id),
  ['p1', 'p3', 'p2'],
)
// Every fused result says where its score came from.
assert.deepEqual(
  fused[0]!.contributions.map((c) => [c.sourceId, c.rank]),
  [
    ['text', 1],
    ['vector', 1],
  ],
)
assert.equal(fused[0]!.score, 1 / 61 + 1 / 61)
// The original hits ride along, with their documents.
assert.equal(fused[0]!.contributions[1]!.hit.document.text, 'How to reset a forgotten password')
