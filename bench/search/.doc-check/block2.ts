import assert from 'node:assert/strict'
import { VectorSearch } from '@agent-core/kits/search'

interface Chunk {
  id: string
  file: string
  text: string
}

// Toy 3-dimensional "embeddings"; real ones come from your embedding model.
const chunks = new VectorSearch<Chunk>({ identity: 'toy-embedder-v1', dimensions: 3 })
chunks.upsertMany([
  { document: { id: 'a#1', file: 'a.md', text: 'cats purr' }, vector: [0.9, 0.1, 0] },
  { document: { id: 'a#2', file: 'a.md', text: 'cats sleep' }, vector: [0.8, 0.2, 0.1] },
  { document: { id: 'b#1', file: 'b.md', text: 'dogs bark' }, vector: [0.2, 0.9, 0] },
  { document: { id: 'c#1', file: 'c.md', text: 'tax forms' }, vector: [0, 0.1, 1] },
])

const query = [1, 0.1, 0] // the embedding of "kittens", say
const nearest = chunks.search({ vector: query, limit: 3 })
assert.deepEqual(
  nearest.map((hit) => hit.id),
  ['a#1', 'a#2', 'b#1'],
)
assert.ok(nearest[0]!.score > 0.99 && nearest[0]!.score <= 1 + 1e-6) // cosine similarity

// groupBy keeps the best chunk per file; minScore drops weak matches.
const perFile = chunks.search({ vector: query, limit: 10, groupBy: (chunk) => chunk.file, minScore: 0.2 })
assert.deepEqual(
  perFile.map((hit) => hit.id),
  ['a#1', 'b#1'],
)

// upsert replaces the document and vector stored under the same id; remove deletes.
chunks.upsert({ document: { id: 'b#1', file: 'b.md', text: 'dogs bark loudly' }, vector: [0.3, 0.9, 0] })
assert.equal(chunks.get('b#1')?.text, 'dogs bark loudly')
assert.equal(chunks.remove('c#1'), true)
assert.equal(chunks.size, 3)
