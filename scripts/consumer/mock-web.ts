import assert from 'node:assert/strict'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'

const handler = createMockGPTFetchHandler({ seed: 1, script: [{ reply: { type: 'text', text: 'Hi' } }] })
const response = await handler.fetch('http://mockgpt.local/v1/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
})
const completion = (await response.json()) as { choices: { message: { content: string } }[] }
assert.equal(completion.choices[0]?.message.content, 'Hi')
handler.close()
