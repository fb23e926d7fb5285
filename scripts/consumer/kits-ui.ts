import assert from 'node:assert/strict'
import { defineAgent } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import { createChatHandler, toAgUiEvents } from '@agent-core/kits/ui'

const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello there.' }, { text: 'Hi again.' }]) })
const handle = createChatHandler({ agent })
const response = await handle(
  new Request('http://app.local/api/chat', {
    method: 'POST',
    body: JSON.stringify({
      id: 'chat-1',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    }),
  }),
)
assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1')
const chunks = (await response.text())
  .split('\n\n')
  .filter((event) => event.startsWith('data: {'))
  .map((event) => JSON.parse(event.slice(6)) as { type: string; delta?: string })
assert.equal(
  chunks
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => chunk.delta)
    .join(''),
  'Hello there.',
)
const types: string[] = []
for await (const event of toAgUiEvents(agent.stream({ prompt: 'Again' }), { threadId: 't1' }))
  types.push(event.type)
assert.equal(types[0], 'RUN_STARTED')
assert.equal(types.at(-1), 'RUN_FINISHED')
