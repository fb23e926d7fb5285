import assert from 'node:assert/strict'
import { defineModelTool } from '@agent-core/core/tools'
import { type AgentRunState, defineAgent, defineAgentTool } from '@agent-core/kits/loop'
import { createScriptedModel, type ScriptedTurn } from '@agent-core/kits/loop/testing'

const deployed: string[] = []
const buildAgent = (turns: ScriptedTurn[]) =>
  defineAgent({
    model: createScriptedModel(turns),
    tools: [
      defineAgentTool(
        defineModelTool<{ env: string }, string>({
          id: 'deploy',
          description: 'Deploys the app',
          inputSchema: { type: 'object', required: ['env'], properties: { env: { type: 'string' } } },
          execute: ({ env }) => {
            deployed.push(env)
            return `deployed to ${env}`
          },
        }),
        { approval: (call) => (call.input.env === 'production' ? 'ask' : 'allow') },
      ),
    ],
  })

// The model deploys to staging and production; production waits for a person, and the run suspends.
const first = await buildAgent([
  {
    toolCalls: [
      { name: 'deploy', input: { env: 'staging' } },
      { name: 'deploy', input: { env: 'production' } },
    ],
  },
]).run({ prompt: 'Deploy everywhere.', defer: true })
assert.equal(first.reason, 'suspended')
assert.deepEqual(deployed, ['staging'])

// Later, from the stored JSON: the person approved, the run resumes and answers.
const state: AgentRunState = JSON.parse(JSON.stringify(first.state))
const toolCallId = state.pending[0]?.toolCallId ?? ''
const second = await buildAgent([{ text: 'Deployed to staging and production.' }]).run({
  resume: state,
  outcomes: { [toolCallId]: { type: 'approve', toolCallId, by: 'person' } },
})
assert.equal(second.reason === 'final' && second.answer, 'Deployed to staging and production.')
assert.deepEqual(deployed, ['staging', 'production'])
