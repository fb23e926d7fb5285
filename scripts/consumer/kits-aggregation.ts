import assert from 'node:assert/strict'
import { defineQueryAggregation } from '@agent-core/kits/aggregation'

const hits = defineQueryAggregation<{ id: string; score: number }>({ id: 'hits', key: (hit) => hit.id })
const { items, counts } = hits.collect([
  [
    { id: 'a', score: 3 },
    { id: 'b', score: 2 },
  ],
  [
    { id: 'b', score: 9 },
    { id: 'c', score: 1 },
  ],
])
assert.deepEqual(
  items.map((hit) => hit.id),
  ['a', 'b', 'c'],
)
assert.equal(counts.duplicates, 1)
