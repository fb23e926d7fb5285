import assert from 'node:assert/strict'
import { defineEvidenceChecklist, defineEvidenceProjection } from '@agent-core/kits/evidence'

const observations = [
  { sourceId: 'S1', topic: 'pricing' },
  { sourceId: 'S2', topic: 'refunds' },
  { sourceId: 'S3', topic: 'pricing' },
]
const checklist = defineEvidenceChecklist<
  { id: string; providerId: 'topic'; topic: string },
  (typeof observations)[number]
>([
  {
    id: 'topic',
    isSatisfied: ({ observations: seen, requirement }) => seen.some((o) => o.topic === requirement.topic),
  },
])

// The answer cited S3 only: the evidence it rests on covers pricing, not refunds.
const used = defineEvidenceProjection({ id: 'cited' }).project({ observations, sourceIds: ['S3'] })
assert.deepEqual(
  used.map((o) => o.sourceId),
  ['S3'],
)
const requirements = [
  { id: 'price', providerId: 'topic' as const, topic: 'pricing' },
  { id: 'refund', providerId: 'topic' as const, topic: 'refunds' },
]
assert.deepEqual(
  checklist.missing({ observations: used, requirements }).map((r) => r.id),
  ['refund'],
)
assert.equal(checklist.isComplete({ observations, requirements }), true)
