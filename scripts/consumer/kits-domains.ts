import assert from 'node:assert/strict'
import { Registry } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgentCatalog, defineIntentTool, IntentRegistry, ScopeRegistry } from '@agent-core/kits/domains'

const tool = (id: string) =>
  defineModelTool({ id, description: id, inputSchema: { type: 'object' }, execute: () => id })
const refund = defineIntentTool(tool('refund_order'), {
  scopePolicy: 'required',
  targetPolicy: 'query-scopes',
})
const tools = Registry.create([refund, tool('lookup_order')], { kind: 'tool' })
const scopes = ScopeRegistry.create(
  [
    {
      id: 'billing',
      goalIds: ['refund_order'],
      toolIds: ['lookup_order'],
      queryScopeIds: ['orders'],
      aliases: ['Invoices'],
    },
    { id: 'orders', goalIds: [], toolIds: ['lookup_order'], knowledgeTopicIds: ['shipping'] },
  ],
  { tools },
)
const catalog = defineAgentCatalog({ tools, intents: IntentRegistry.create([refund]), scopes })

const task = catalog.project({ goalId: 'refund_order', scopeId: scopes.normalize(' invoices ') })
assert.equal(task.scopeId, 'billing')
assert.deepEqual(task.toolIds, ['refund_order', 'lookup_order'])
assert.deepEqual(task.queryScopeIds, ['orders'])
assert.deepEqual(task.knowledgeTopicIds, ['shipping'])
