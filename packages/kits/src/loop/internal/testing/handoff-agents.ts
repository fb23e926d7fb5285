/** The agent graph of the handoff tests: `triage` hands off to `billing` (through `removeToolCalls`), which may hand back; `billing`'s `refund` needs approval. */
import { appendFileSync } from 'node:fs'
import { defineModelTool } from '@agent-core/core/tools'
import {
  createScriptedModel,
  defineAgentTool,
  defineHandoffAgent,
  type HandoffAgent,
  handoff,
  removeToolCalls,
  type ScriptedTurn,
} from '../../index.js'

export function handoffGraph(input: {
  triage: readonly ScriptedTurn[]
  billing: readonly ScriptedTurn[]
  effects?: string
}): { triage: HandoffAgent; billing: HandoffAgent } {
  const refund = defineAgentTool(
    defineModelTool<{ amount: number }, string>({
      id: 'refund',
      description: 'Refunds an amount',
      inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      execute: ({ amount }) => {
        if (input.effects !== undefined) appendFileSync(input.effects, `refund ${amount}\n`)
        return `refunded ${amount}`
      },
    }),
    { approval: 'ask' },
  )
  const triage: HandoffAgent = defineHandoffAgent({
    name: 'triage',
    description: 'Routes the user',
    model: createScriptedModel(input.triage),
    handoffs: () => [handoff(billing, { inputFilter: removeToolCalls })],
  })
  const billing: HandoffAgent = defineHandoffAgent({
    name: 'billing',
    description: 'Invoices and refunds',
    model: createScriptedModel(input.billing),
    tools: [refund],
    handoffs: () => [triage],
  })
  return { triage, billing }
}
