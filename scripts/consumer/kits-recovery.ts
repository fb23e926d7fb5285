import assert from 'node:assert/strict'
import { defineRecoveryChain } from '@agent-core/kits/recovery'

const chain = defineRecoveryChain([
  {
    id: 'empty-is-zero',
    recover: (error: unknown) => (error === 'empty' ? { handled: true, value: 0 } : { handled: false }),
  },
])
assert.deepEqual(chain.tryRecover('empty'), { handled: true, value: 0, recoveredBy: 'empty-is-zero' })
assert.deepEqual(chain.tryRecover('other'), { handled: false })
