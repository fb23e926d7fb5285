import assert from 'node:assert/strict'
import { startMockGPTServer } from '@agent-core/mock/node'

const server = await startMockGPTServer({ port: 0, host: '127.0.0.1', seed: 1 })
try {
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] }),
  })
  const completion = (await response.json()) as { choices: { message: { content: string } }[] }
  assert.match(completion.choices[0]?.message.content ?? '', /Hello there/)
} finally {
  await server.close()
}
