/**
 * The agent of the replay tests, built the same way in the test process and in the child processes that
 * resume it: `refund` asks a person, and its side effect is a line in a file with the invocation id (its
 * idempotency key). With `hangAfterEffect`, the refund writes that file and then never returns, so a test
 * can kill the process inside the tool.
 */
import { appendFileSync, writeFileSync } from 'node:fs'
import { defineModelTool } from '@agent-core/core/tools'
import { defineDurableTask } from '@agent-core/kits/durable'
import type { SqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import {
  agentRunStep,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  isAgentRunState,
  type ScriptedTurn,
  type SuspensionLedger,
} from '../../index.js'

export interface LedgerEffect {
  readonly orderId: string
  readonly amount: number
  readonly invocationId: string
  readonly pid: number
}

export function ledgerAgent(options: {
  effects: string
  turns: readonly ScriptedTurn[]
  ledger: SuspensionLedger
  hangAfterEffect?: string | undefined
}) {
  const refund = defineAgentTool(
    defineModelTool<{ orderId: string; amount: number }, string>({
      id: 'refund',
      description: 'Refunds part of an order',
      inputSchema: {
        type: 'object',
        required: ['orderId', 'amount'],
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      },
      execute: async ({ orderId, amount }, { invocationId }) => {
        const effect: LedgerEffect = { orderId, amount, invocationId, pid: process.pid }
        appendFileSync(options.effects, `${JSON.stringify(effect)}\n`)
        if (options.hangAfterEffect !== undefined) {
          writeFileSync(options.hangAfterEffect, invocationId)
          await new Promise(() => {}) // the test kills the process here
        }
        return `refunded ${amount} on ${orderId}`
      },
    }),
    { approval: 'ask' },
  )
  const model = createScriptedModel(options.turns)
  return defineAgent({ model, tools: [refund], suspensionLedger: options.ledger })
}

/** The durable task of the replay tests: one agent run step over {@link ledgerAgent}, on a SQLite store. */
export function ledgerTask(agent: ReturnType<typeof ledgerAgent>, store: SqliteDurableStore) {
  return defineDurableTask(
    {
      id: 'refund-run',
      revision: '1',
      isState: isAgentRunState,
      steps: [agentRunStep(agent, { request: { defer: true } })],
    },
    { store, modelBudget: { maxCalls: 20, maxCallsPerAttempt: 5 }, maxAttempts: 5 },
  )
}
