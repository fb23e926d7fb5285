/**
 * A child process of the PostgreSQL ledger tests: it resumes a suspended agent run (loop kit, public API)
 * from the JSON on its stdin, claiming the suspension in PostgreSQL, and writes one JSON answer (`{ reason }`
 * or `{ thrown, details, message }`). The approved `refund` appends a line to `effects`.
 */
import { appendFileSync } from 'node:fs'
import { defineModelTool } from '@agent-core/core/tools'
import { createPostgresSuspensionLedger } from '@agent-core/kits/durable/postgres'
import { defineAgent, defineAgentTool } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
const ledger = createPostgresSuspensionLedger({ connectionString: input.url, tableName: input.table })
const refund = defineAgentTool(
  defineModelTool<{ orderId: string }, string>({
    id: 'refund',
    description: 'Refunds an order',
    inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
    execute: ({ orderId }, { invocationId }) => {
      appendFileSync(input.effects, `${JSON.stringify({ orderId, invocationId, pid: process.pid })}\n`)
      return `refunded ${orderId}`
    },
  }),
  { approval: 'ask' },
)
const agent = defineAgent({
  model: createScriptedModel(input.turns),
  tools: [refund],
  suspensionLedger: ledger,
})
let answer: unknown
try {
  const result = await agent.run({ resume: input.state, outcomes: input.outcomes, defer: true })
  answer = { reason: result.reason }
} catch (error) {
  const { code, details, message } = error as { code?: string; details?: unknown; message: string }
  answer = { thrown: code ?? 'unknown', details, message }
} finally {
  await ledger.close()
}
process.stdout.write(JSON.stringify(answer))
