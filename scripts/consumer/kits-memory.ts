import assert from 'node:assert/strict'
import { defineAgent } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import {
  createMemorySessionStore,
  defineFactTools,
  runSession,
  SessionBusyError,
  selectWindow,
} from '@agent-core/kits/memory'

const store = createMemorySessionStore()
const session = { store, id: 'chat-1' }
const agent = defineAgent({ model: createScriptedModel([{ text: 'Hi Ada.' }, { text: 'You are Ada.' }]) })
await runSession(agent, { session, prompt: 'I am Ada.' })
const second = await runSession(agent, { session, prompt: 'Who am I?', window: { maxMessages: 10 } })
assert.equal(second.text, 'You are Ada.')
assert.equal((await store.read('chat-1')).messages.length, 4)
assert.equal(
  selectWindow(
    [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ],
    { maxMessages: 1 },
  ).dropped,
  1,
)
assert.equal(defineFactTools({ store, scope: () => 'user:1' }).length, 3)
assert.equal(SessionBusyError.code, 'session-busy')
