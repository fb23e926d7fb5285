import assert from 'node:assert/strict'
import { createOperationContext } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  ApprovalRequiredError,
  assertDecision,
  assertToolCallState,
  defineToolLifecycle,
  ToolLifecycleRegistry,
} from '@agent-core/kits/tools'

const refunds: number[] = []
const refund = defineModelTool<{ amount: number }, { refunded: number }>({
  id: 'refund',
  description: 'Refunds an amount',
  inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
  execute: ({ amount }) => {
    refunds.push(amount)
    return { refunded: amount }
  },
})
const tools = ToolLifecycleRegistry.create([
  defineToolLifecycle(refund, {
    authorize(call) {
      if (call.input.amount > 100) throw new ApprovalRequiredError('A large refund needs a manager.')
    },
  }),
])

// The model asks for a large refund: the call waits for a person, as plain JSON.
const pending = await tools.run(
  { toolCallId: 'call_1', toolId: 'refund', arguments: '{"amount":250}' },
  createOperationContext(),
)
assert.equal(pending.status, 'pending')
assert.deepEqual(refunds, [])

// Later, from the stored JSON: the manager approves and the tool runs.
const state: unknown = JSON.parse(JSON.stringify(pending.record))
const decision: unknown = { type: 'approve', toolCallId: 'call_1', by: 'person' }
assertToolCallState(state)
assertDecision(decision)
const done = await tools.resume(state, decision, createOperationContext())
assert.equal(done.status, 'completed')
assert.deepEqual(refunds, [250])
