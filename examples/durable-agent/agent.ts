/**
 * A refund agent whose whole run is one durable step on SQLite.
 *
 * - `check_order` is a read: replay-safe, it simply runs again after a restart.
 * - `send_refund` pays money: it is `keyed` (the default), so the loop saves the call with its invocation id
 *   before it runs, and a restart re-enters it with that same id. The refund is written with the id as its
 *   idempotency key, so a refund that happened right before a crash is not paid a second time.
 * - The model is a small deterministic planner (a stand-in for a real one): check two orders, refund them in
 *   parallel, refund a third, then answer.
 *
 * Progress is saved after the model's reply, before each refund runs and after every tool result; each
 * attempt gets an `AttemptBudget` from the task's model budget, so restarts cannot spend more model calls
 * than the task allows.
 */
import { appendFileSync } from 'node:fs'
import type { ChatMessage, ChatModel, ModelResponse } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineDurableTask } from '@agent-core/kits/durable'
import type { SqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import {
  type AgentEvent,
  agentRunStep,
  defineAgent,
  defineAgentTool,
  isAgentRunState,
} from '@agent-core/kits/loop'

/** What the worker reports, one JSON line each, so a test can kill it at any of these points. */
export type Milestone = (line: Record<string, unknown>) => void

/** The planner's steps: which calls to make after how many tool results. */
const PLAN: readonly { readonly calls: readonly { readonly name: string; readonly input: object }[] }[] = [
  {
    calls: [
      { name: 'check_order', input: { orderId: 'A-1' } },
      { name: 'check_order', input: { orderId: 'A-2' } },
    ],
  },
  {
    calls: [
      { name: 'send_refund', input: { orderId: 'A-1', amount: 30 } },
      { name: 'send_refund', input: { orderId: 'A-2', amount: 50 } },
    ],
  },
  { calls: [{ name: 'send_refund', input: { orderId: 'A-3', amount: 70 } }] },
]

/** A deterministic model: its next step follows from the conversation alone, so any process can continue it. */
export function plannerModel(milestone: Milestone): ChatModel {
  return {
    identity: 'refund-planner',
    async generate(request): Promise<ModelResponse> {
      const step = request.messages.filter((message: ChatMessage) => message.role === 'assistant').length
      milestone({ event: 'model-call', step })
      await new Promise((resolve) => setTimeout(resolve, 5))
      const planned = PLAN[step]
      const usage = { inputTokens: 50, outputTokens: 20, totalTokens: 70 }
      if (planned === undefined) {
        const refunds = request.messages.filter(
          (message) => message.role === 'tool' && message.content.startsWith('refunded'),
        )
        return {
          message: {
            role: 'assistant',
            content: `Done: ${refunds.map((message) => message.content).join('; ')}.`,
          },
          finishReason: 'stop',
          usage,
        }
      }
      return {
        message: {
          role: 'assistant',
          content: '',
          toolCalls: planned.calls.map((call, index) => ({
            id: `call_${step}_${index}`,
            name: call.name,
            arguments: JSON.stringify(call.input),
          })),
        },
        finishReason: 'tool-calls',
        usage,
      }
    },
  }
}

/** Creates the refunds table (the destination of the side effect) in the store's own database. */
export function prepareDatabase(store: SqliteDurableStore): void {
  store.database.exec(`CREATE TABLE IF NOT EXISTS refunds (
    idempotency_key TEXT PRIMARY KEY,
    order_id TEXT NOT NULL,
    amount INTEGER NOT NULL
  )`)
}

export function refundTask(
  store: SqliteDurableStore,
  options: { executionLog: string; milestone: Milestone },
) {
  const { milestone } = options
  const insert = store.database.prepare(
    'INSERT INTO refunds (idempotency_key, order_id, amount) VALUES (?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
  )
  const checkOrder = defineAgentTool(
    defineModelTool<{ orderId: string }, { orderId: string; refundable: boolean }>({
      id: 'check_order',
      description: 'Checks whether an order can be refunded',
      inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
      execute: async ({ orderId }) => {
        milestone({ event: 'check', orderId })
        await new Promise((resolve) => setTimeout(resolve, 5))
        return { orderId, refundable: true }
      },
    }),
    { replayPolicy: 'safe' },
  )
  const sendRefund = defineModelTool<{ orderId: string; amount: number }, string>({
    id: 'send_refund',
    description: 'Pays a refund back to the customer',
    inputSchema: {
      type: 'object',
      required: ['orderId', 'amount'],
      properties: { orderId: { type: 'string' }, amount: { type: 'integer', minimum: 1 } },
    },
    execute: async ({ orderId, amount }, { invocationId, signal }) => {
      signal.throwIfAborted()
      milestone({ event: 'refund-start', orderId, invocationId })
      // Every execution is logged; the payment itself is keyed by the invocation id.
      appendFileSync(options.executionLog, `${JSON.stringify({ orderId, invocationId })}\n`)
      insert.run(invocationId, orderId, amount)
      milestone({ event: 'refund-paid', orderId, invocationId })
      // A little work after the payment: a kill here lands inside the tool, after its effect.
      await new Promise((resolve) => setTimeout(resolve, 10))
      return `refunded ${amount} on ${orderId}`
    },
  })
  const agent = defineAgent({ model: plannerModel(milestone), tools: [checkOrder, sendRefund], maxTurns: 8 })
  const step = agentRunStep(agent, {
    request: {
      onEvent: (event: AgentEvent) => {
        if (event.type === 'tool-resolved')
          milestone({ event: 'tool-resolved', toolCallId: event.toolCallId })
      },
    },
  })
  return defineDurableTask(
    { id: 'refund-agent', revision: '1', isState: isAgentRunState, steps: [step] },
    { store, modelBudget: { maxCalls: 60, maxCallsPerAttempt: 6 }, maxAttempts: 20 },
  )
}
