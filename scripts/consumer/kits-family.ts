import assert from 'node:assert/strict'
import { AttemptBudget } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgentFamily, FamilyGrantError } from '@agent-core/kits/family'
import { createScriptedModel } from '@agent-core/kits/loop/testing'

const search = defineModelTool<{ query: string }, string>({
  id: 'search',
  description: 'Searches the web',
  inputSchema: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
  execute: ({ query }) => `3 results for ${query}`,
})
const publish = defineModelTool({
  id: 'publish',
  description: 'Publishes a page',
  inputSchema: {},
  execute: () => 'ok',
})

// A researcher searches once, then answers with what it found.
const researcher = createScriptedModel(
  Array.from({ length: 4 }, () => (request) => {
    const last = request.messages.at(-1)
    if (last?.role === 'tool') return { text: `Summary: ${last.content}` }
    return { toolCalls: [{ name: 'search', input: { query: String(last?.content) } }] }
  }),
)
const family = defineAgentFamily({
  tools: [search, publish],
  members: [{ id: 'researcher', agent: { model: researcher } }],
})

const attemptBudget = new AttemptBudget(10)
const result = await family.run(
  {
    children: [
      { id: 'otters', member: 'researcher', prompt: 'otters', tools: ['search'], attempts: 3 },
      { id: 'beavers', member: 'researcher', prompt: 'beavers', tools: ['search'], attempts: 3 },
    ],
  },
  { attemptBudget },
)
assert.deepEqual(
  result.children.map((child) => (child.status === 'done' ? child.value : child.status)),
  ['Summary: 3 results for otters', 'Summary: 3 results for beavers'],
)
assert.equal(attemptBudget.used, 6) // both shares, taken at spawn, never given back

// A child may only get what its parent holds.
const refused = await family
  .run(
    { children: [{ member: 'researcher', prompt: 'x', tools: ['refund'], attempts: 1 }] },
    { attemptBudget },
  )
  .catch((error: unknown) => error)
assert.ok(FamilyGrantError.isInstance(refused))
assert.equal(refused.details.id, 'refund')
