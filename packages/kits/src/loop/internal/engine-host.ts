/**
 * What the lazily loaded run engine (engine-deps.ts) uses of the modules the public entry loads at import:
 * live bindings that `connectEngine` sets once, when the entry loads the engine (internal/engine.ts), before
 * any engine code runs.
 *
 * Why not plain imports: the build splits code that two chunks import into a shared chunk of its own, so
 * an engine module that imported `jsonProblem` from json.ts would move json.ts (and the modules beside it)
 * out of `dist/loop/index.js` into one more module that every import of the kit loads, which costs about
 * what leaving the engine out saves (docs/design/cold-import.md). Engine modules therefore import
 * `@agent-core/*` packages, other engine modules and this module, and only types from the rest of the kit.
 * Nothing here may be used while an engine module is evaluated (only inside functions and methods).
 */

import type * as agentTool from '../agent-tool.js'
import type { ExternalToolError as ExternalToolErrorClass } from '../agent-tool.js'
import type * as answerFlow from '../answer-flow.js'
import type { GuardrailTrippedError as GuardrailTrippedErrorClass } from '../guardrails.js'
import type { CustomInputs as CustomInputsClass } from './custom-inputs.js'
import type * as json from './json.js'
import type * as messages from './messages.js'
import type * as toolIds from './tool-ids.js'
import type * as toolState from './tool-state.js'

/** The values `connectEngine` hands the engine, under the names their modules export them by. */
export interface EngineHost {
  readonly answerValidatorOf: typeof agentTool.answerValidatorOf
  readonly CustomInputs: typeof CustomInputsClass
  readonly ExternalToolError: typeof ExternalToolErrorClass
  readonly GuardrailTrippedError: typeof GuardrailTrippedErrorClass
  readonly jsonProblem: typeof json.jsonProblem
  readonly parseArguments: typeof json.parseArguments
  readonly questionText: typeof agentTool.questionText
  readonly readControl: typeof answerFlow.readControl
  readonly readMessages: typeof messages.readMessages
  readonly readToolIds: typeof toolIds.readToolIds
  readonly RUN_TOOL_STATE: typeof toolState.RUN_TOOL_STATE
}

export let answerValidatorOf: EngineHost['answerValidatorOf']
export let CustomInputs: EngineHost['CustomInputs']
export type CustomInputs = CustomInputsClass
export let ExternalToolError: EngineHost['ExternalToolError']
export let GuardrailTrippedError: EngineHost['GuardrailTrippedError']
export let jsonProblem: EngineHost['jsonProblem']
export let parseArguments: EngineHost['parseArguments']
export let questionText: EngineHost['questionText']
export let readControl: EngineHost['readControl']
export let readMessages: EngineHost['readMessages']
export let readToolIds: EngineHost['readToolIds']
export let RUN_TOOL_STATE: EngineHost['RUN_TOOL_STATE']

/** Sets the bindings above (internal/engine.ts calls it once, right after loading the engine). */
export function connectEngine(host: EngineHost): void {
  ;({
    answerValidatorOf,
    CustomInputs,
    ExternalToolError,
    GuardrailTrippedError,
    jsonProblem,
    parseArguments,
    questionText,
    readControl,
    readMessages,
    readToolIds,
    RUN_TOOL_STATE,
  } = host)
}
