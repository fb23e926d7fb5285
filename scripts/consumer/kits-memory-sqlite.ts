import assert from 'node:assert/strict'
import { defineAgent } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import { runSession } from '@agent-core/kits/memory'
import { createSqliteSessionStore } from '@agent-core/kits/memory/sqlite'
import Database from 'better-sqlite3'

const database = new Database(':memory:')
const store = createSqliteSessionStore(database)
const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
const result = await runSession(agent, { session: { store, id: 'chat-1' }, prompt: 'Hi' })
assert.equal(result.session.revision, 1)
await store.remember('user:1', 'city', 'Lyon')
assert.equal((await store.recall('user:1', 'city'))?.value, 'Lyon')
database.close()
