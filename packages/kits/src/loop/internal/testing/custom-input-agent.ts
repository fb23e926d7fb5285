/** The agent of the custom-input tests: a form turned into a user message, and a tool that needs approval. */
import type { ModelRequest } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  type ScriptedTurn,
  type TransformInputHook,
} from '../../index.js'

/** What the model read: each message as `role: content`. */
export const seen = (request: ModelRequest) =>
  request.messages.map((message) => `${message.role}: ${message.content}`)

export const formMessage: TransformInputHook = (input, info) => ({
  role: 'user',
  content: `[${input.kind} at ${info.at}, turn ${info.turn}] ${JSON.stringify(input.data)}`,
})

export function customInputAgent(turns: readonly ScriptedTurn[], options: { hook?: boolean } = {}) {
  const confirm = defineAgentTool(
    defineModelTool({
      id: 'confirm',
      description: 'Confirms',
      inputSchema: { type: 'object' },
      execute: () => 'confirmed',
    }),
    { approval: 'ask' },
  )
  const model = createScriptedModel([...turns])
  const agent = defineAgent({
    model,
    tools: [confirm],
    ...(options.hook === false ? {} : { transformInput: formMessage }),
  })
  return { agent, model }
}
