/**
 * Loads the run engine (engine-deps.ts) on an agent's first run and hands it what it uses of the modules
 * loaded at import (engine-host.ts). Later runs get the loaded engine without waiting.
 */
import { answerValidatorOf, ExternalToolError, questionText } from '../agent-tool.js'
import { readControl } from '../answer-flow.js'
import { GuardrailTrippedError } from '../guardrails.js'
import { CustomInputs } from './custom-inputs.js'
import { jsonProblem, parseArguments } from './json.js'
import { readMessages } from './messages.js'
import { readToolIds } from './tool-ids.js'
import { RUN_TOOL_STATE } from './tool-state.js'

/** The run engine's module. */
export type Engine = typeof import('./engine-deps.js')

let loaded: Engine | undefined

/** The run engine once a run has loaded it, else undefined (then await {@link loadEngine}). */
export function loadedEngine(): Engine | undefined {
  return loaded
}

/** Loads the run engine (once; concurrent first runs share the one import) and connects it. */
export async function loadEngine(): Promise<Engine> {
  if (loaded !== undefined) return loaded
  const engine: Engine = await import('./engine-deps.js')
  if (loaded === undefined) {
    engine.connectEngine({
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
    })
    loaded = engine
  }
  return loaded
}
