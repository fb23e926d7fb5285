/**
 * An App that serves its tools over stdio with serveMcp, as Claude Desktop or Cursor would start it:
 * `node --import tsx serve-child.ts`. Tools: `greet`, and `refund`, which needs approval above 100.
 */
import { defineModelTool } from '@agent-core/core/tools'
import { serveMcp } from '@agent-core/kits/mcp'
import { ApprovalRequiredError, defineToolLifecycle } from '@agent-core/kits/tools'

const greet = defineModelTool<{ name: string }, string>({
  id: 'greet',
  description: 'Greets someone',
  inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  execute: ({ name }) => `Hello, ${name}!`,
})
const refund = defineModelTool<{ amount: number }, { refunded: number }>({
  id: 'refund',
  description: 'Refunds an amount',
  inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
  outputSchema: { type: 'object', required: ['refunded'], properties: { refunded: { type: 'number' } } },
  execute: ({ amount }) => ({ refunded: amount }),
})
const handle = await serveMcp(
  [
    greet,
    defineToolLifecycle(refund, {
      authorize(call) {
        if (call.input.amount > 100) throw new ApprovalRequiredError('Refunds above 100 need a manager.')
      },
    }),
  ],
  { type: 'stdio' },
  { name: 'shop', version: '2.0.0' },
)
process.stderr.write('shop server ready\n')
await handle.closed
