import assert from 'node:assert/strict'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent, createScriptedModel as deprecatedCreateScriptedModel } from '@agent-core/kits/loop'
import { createScriptedModel, type ScriptedTurn } from '@agent-core/kits/loop/testing'

const weather = defineModelTool<{ city: string }, string>({
  id: 'weather',
  description: 'Current weather in a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${city}`,
})
const turns: ScriptedTurn[] = [
  { toolCalls: [{ name: 'weather', input: { city: 'Lyon' } }] },
  { text: 'It is sunny in Lyon.' },
]
const model = createScriptedModel(turns)
const result = await defineAgent({ model, tools: [weather] }).run({ prompt: 'Weather in Lyon?' })
assert.equal(result.reason, 'final')
assert.equal(result.answer, 'It is sunny in Lyon.')
model.assertDone()
// The loop's own export is the same function for one release.
assert.equal(deprecatedCreateScriptedModel, createScriptedModel)
