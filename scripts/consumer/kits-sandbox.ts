import assert from 'node:assert/strict'
import { defineModelTool } from '@agent-core/core/tools'
import { executeSandbox } from '@agent-core/kits/sandbox'

const lookupOrder = defineModelTool<{ orderId: string }, { orderId: string; total: number }>({
  id: 'lookup_order',
  description: 'Finds an order by id',
  inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  execute: ({ orderId }) => ({ orderId, total: orderId === 'A-17' ? 250 : 40 }),
})

// TypeScript written by a model, run in QuickJS; the tool is an async function of the script.
const result = await executeSandbox(
  `interface Order { orderId: string; total: number }
const orders: Order[] = await Promise.all(['A-17', 'B-2'].map((orderId) => lookup_order({ orderId })))
console.log('found', orders.length, typeof fetch)
return orders.filter((order) => order.total > 100).map((order) => order.orderId)`,
  [lookupOrder],
)
assert.equal(result.status, 'completed')
assert.deepEqual(result.status === 'completed' && result.value, ['A-17'])
assert.deepEqual(result.logs, [{ level: 'log', text: 'found 2 undefined' }]) // no network in the sandbox
assert.equal(result.hostCalls, 2)
