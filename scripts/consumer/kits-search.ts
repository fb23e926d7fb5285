import assert from 'node:assert/strict'
import { reciprocalRankFusion, TextSearch } from '@agent-core/kits/search'

const articles = new TextSearch<{ id: string; title: string }>({
  indexRevision: 'v1',
  fields: ['title'],
  storedFields: ['title'],
})
articles.addAll([
  { id: 'a', title: 'Deploying apps' },
  { id: 'b', title: 'Local preview' },
])
assert.deepEqual(
  articles.search({ query: 'deploying', limit: 5 }).map((hit) => hit.id),
  ['a'],
)
const fused = reciprocalRankFusion([
  { sourceId: 'text', hits: [{ id: 'a' }, { id: 'b' }] },
  { sourceId: 'vector', hits: [{ id: 'b' }] },
])
assert.equal(fused[0]?.id, 'b')
