import assert from 'node:assert/strict'
import { defineDelivery } from '@agent-core/kits/delivery'

const delivery = defineDelivery<string, string>({
  stages: [
    { id: 'trim', handle: (text) => ({ type: 'continue', state: text.trim() }) },
    { id: 'send', handle: (text) => ({ type: 'complete', value: `sent: ${text}` }) },
  ],
})
assert.deepEqual(delivery.deliver('  hi  '), { value: 'sent: hi', stageId: 'send' })
