import assert from 'node:assert/strict'
import { defineCandidateSelection } from '@agent-core/kits/candidates'

const titles = defineCandidateSelection({ minCandidates: 2, maxCandidates: 3 })
assert.deepEqual(titles.parse({ value: { candidates: ['Short', 'Long'] }, allowed: true }), ['Short', 'Long'])
assert.deepEqual(titles.parse({ value: 'Only one', allowed: true }), ['Only one'])
