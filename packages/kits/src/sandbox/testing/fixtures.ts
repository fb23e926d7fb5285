/**
 * Fixtures of the sandbox's tests (private: `testing/` is never a subpath): an order shop whose tools
 * count their executions, and whose refunds above 100 ask a person.
 */
import { appendFileSync } from 'node:fs'
import { defineModelTool } from '@agent-core/core/tools'
import { ApprovalRequiredError, defineToolLifecycle } from '@agent-core/kits/tools'

export interface ShopOptions {
  /** A file each side effect is appended to (for tests that span processes). */
  readonly effects?: string | undefined
  /** Milliseconds each lookup takes. */
  readonly lookupDelayMs?: number | undefined
}

export function shop(options: ShopOptions = {}) {
  const runs: string[] = []
  const note = (line: string) => {
    runs.push(line)
    if (options.effects) appendFileSync(options.effects, `${line}\n`)
  }
  const lookupOrder = defineModelTool<{ orderId: string }, { orderId: string; total: number }>({
    id: 'lookup_order',
    description: 'Finds an order by id',
    inputSchema: {
      type: 'object',
      required: ['orderId'],
      additionalProperties: false,
      properties: { orderId: { type: 'string', description: 'The order id, like "A-17"' } },
    },
    outputSchema: {
      type: 'object',
      required: ['orderId', 'total'],
      properties: { orderId: { type: 'string' }, total: { type: 'number' } },
    },
    execute: async ({ orderId }) => {
      if (options.lookupDelayMs) await new Promise((resolve) => setTimeout(resolve, options.lookupDelayMs))
      note(`lookup ${orderId}`)
      return { orderId, total: orderId === 'A-17' ? 250 : 40 }
    },
  })
  const refundTool = defineModelTool<{ orderId: string; amount: number }, string>({
    id: 'refund',
    description: 'Refunds part of an order',
    inputSchema: {
      type: 'object',
      required: ['orderId', 'amount'],
      additionalProperties: false,
      properties: { orderId: { type: 'string' }, amount: { type: 'number', exclusiveMinimum: 0 } },
    },
    execute: ({ orderId, amount }, { invocationId }) => {
      note(`refund ${orderId} ${amount} ${invocationId}`)
      return `refunded ${amount} on ${orderId}`
    },
  })
  const refund = defineToolLifecycle(refundTool, {
    authorize(call) {
      if (call.input.amount > 100)
        throw new ApprovalRequiredError(`A refund of ${call.input.amount} needs a manager.`)
    },
  })
  return { lookupOrder, refund, tools: [lookupOrder, refund] as const, runs }
}
