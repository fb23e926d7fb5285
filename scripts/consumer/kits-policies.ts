import assert from 'node:assert/strict'
import { definePolicySet } from '@agent-core/kits/policies'

const policies = definePolicySet([
  {
    id: 'large',
    description: 'Large refunds need approval.',
    handler: 'ask',
    when: (r: { amount: number }) => r.amount > 500,
  },
  { id: 'any', description: 'Every refund is logged.', handler: 'log', when: () => true },
])
assert.deepEqual(
  policies.assess({ amount: 900 }).map((reason) => reason.handler),
  ['ask', 'log'],
)
