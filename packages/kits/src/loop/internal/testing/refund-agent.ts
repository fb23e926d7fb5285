/**
 * The agent of the suspend-and-resume tests, built the same way in the test process and in the child
 * process that resumes it: `lookup` (safe, no approval) and `refund` (asks a person above 100), whose
 * side effect is a line in a file, written with the invocation id as its key.
 */
import { appendFileSync } from 'node:fs'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, defineAgentTool, type ScriptedTurn } from '../../index.js'

export interface RefundEffect {
  readonly orderId: string
  readonly amount: number
  readonly invocationId: string
}

export function refundAgent(options: {
  effects: string
  turns: readonly ScriptedTurn[]
  keys?: readonly string[] | undefined
}) {
  const lookup = defineAgentTool(
    defineModelTool<{ orderId: string }, { orderId: string; total: number }>({
      id: 'lookup',
      description: 'Finds an order',
      inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
      execute: ({ orderId }) => {
        appendFileSync(options.effects, `${JSON.stringify({ lookup: orderId })}\n`)
        return { orderId, total: 300 }
      },
    }),
    { replayPolicy: 'safe' },
  )
  const refund = defineAgentTool(
    defineModelTool<{ orderId: string; amount: number }, string>({
      id: 'refund',
      description: 'Refunds part of an order',
      inputSchema: {
        type: 'object',
        required: ['orderId', 'amount'],
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      },
      execute: ({ orderId, amount }, { invocationId }) => {
        const effect: RefundEffect = { orderId, amount, invocationId }
        appendFileSync(options.effects, `${JSON.stringify(effect)}\n`)
        return `refunded ${amount} on ${orderId}`
      },
    }),
    {
      approval: (call) =>
        call.input.amount > 100
          ? { type: 'ask', reason: `A refund of ${call.input.amount} needs a manager.` }
          : 'allow',
    },
  )
  const model = createScriptedModel(options.turns)
  const agent = defineAgent({
    model,
    tools: [lookup, refund],
    system: 'You handle refunds.',
    ...(options.keys ? { decisionKeys: options.keys } : {}),
  })
  return { agent, model }
}
