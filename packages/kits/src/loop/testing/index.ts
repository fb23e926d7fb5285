/**
 * Test kits of the agent loop, framework-neutral: {@link createScriptedModel} is a chat model that replays a
 * script of turns (text, tool calls, usage, finish reasons) so a test can run an agent without a provider,
 * then check with `assertDone()` that every turn was used.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * const model = createScriptedModel([{ text: 'Hello!' }])
 * const result = await defineAgent({ model }).run({ prompt: 'Hi' })
 * model.assertDone()
 * ```
 *
 * @module
 */
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
} from './scripted-model.js'
