/** The agent of the tool-state tests: a pager and a cursor that keep state, and a tool that needs approval. */
import { defineModelTool } from '@agent-core/core/tools'
import { type JsonValue, toolState } from '@agent-core/kits/tools'
import { createScriptedModel, defineAgent, defineAgentTool, type ScriptedTurn } from '../../index.js'

export function statefulAgent(turns: readonly ScriptedTurn[]) {
  const page = defineAgentTool(
    defineModelTool<Record<string, never>, { page: number; before: number }>({
      id: 'page',
      description: 'The next page',
      inputSchema: { type: 'object' },
      execute: (_input, context) => {
        const state = toolState<{ page: number; before: number }>(context)
        return { page: (state.lastResult?.page ?? 0) + 1, before: state.calls }
      },
    }),
    { keepState: true },
  )
  const cursor = defineAgentTool(
    defineModelTool<Record<string, never>, string>({
      id: 'cursor',
      description: 'Moves a cursor by ten',
      inputSchema: { type: 'object' },
      execute: (_input, context) => {
        const state = toolState<JsonValue, { at: number }>(context)
        const at = (state.kept?.at ?? 0) + 10
        state.keep({ at })
        return `at ${at}`
      },
    }),
    { keepState: true },
  )
  const confirm = defineAgentTool(
    defineModelTool({
      id: 'confirm',
      description: 'Confirms',
      inputSchema: { type: 'object' },
      execute: () => 'confirmed',
    }),
    { approval: 'ask' },
  )
  return defineAgent({ model: createScriptedModel([...turns]), tools: [page, cursor, confirm] })
}
