import assert from 'node:assert/strict'
import { defineNormalization } from '@agent-core/kits/normalization'

const count = defineNormalization<unknown>({
  steps: [
    { id: 'parse', when: (v) => typeof v === 'string', transform: (v) => Number.parseInt(v as string, 10) },
  ],
  isComplete: (v) => Number.isSafeInteger(v),
})
assert.deepEqual(count.normalize('0'), { value: 0, complete: true, appliedStepIds: ['parse'] })
