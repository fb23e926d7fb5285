import assert from 'node:assert/strict'
import { createMockGPT } from '@agent-core/mock'

const mock = createMockGPT({ seed: 7, script: [{ reply: { type: 'text', text: 'pong' } }] })
const response = mock.handle({
  method: 'POST',
  url: '/v1/chat/completions',
  headers: {},
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
})
assert.equal(response.status, 200)
assert.equal(mock.requests.length, 1)
