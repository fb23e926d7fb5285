/**
 * Loads the pass (tool-pass.ts) on a registry's first call and hands it what it uses of the modules loaded
 * at import (pass-host.ts). Later calls get the loaded pass without waiting.
 */
import { recordState } from '../tool-call-journal.js'
import { signToolCall } from '../tool-call-signature.js'
import { DECISION_MAKERS } from '../tool-call-state.js'
import { assertDecision } from '../tool-decision.js'
import { ApprovalRequiredError, ToolRejectedError } from '../tool-errors.js'
import { isToolPermitted } from '../tool-policy.js'
import { toolRefusal } from '../tool-refusal.js'
import { canonicalJson, copyJson, jsonProblem } from './json.js'
import { callAuthorize, callAwaitHost, callVoidHook, compileLifecycle } from './lifecycle-entry.js'
import { readOptions } from './request.js'

/** The pass's module. */
export type Passes = typeof import('./tool-pass.js')

let loaded: Passes | undefined

/** The pass once a call has loaded it, else undefined (then await {@link loadPasses}). */
export function loadedPasses(): Passes | undefined {
  return loaded
}

/** Loads the pass (once; concurrent first calls share the one import) and connects it. */
export async function loadPasses(): Promise<Passes> {
  if (loaded !== undefined) return loaded
  const passes: Passes = await import('./tool-pass.js')
  if (loaded === undefined) {
    passes.connectPass({
      ApprovalRequiredError,
      assertDecision,
      callAuthorize,
      callAwaitHost,
      callVoidHook,
      canonicalJson,
      compileLifecycle,
      copyJson,
      DECISION_MAKERS,
      isToolPermitted,
      jsonProblem,
      readOptions,
      recordState,
      signToolCall,
      ToolRejectedError,
      toolRefusal,
    })
    loaded = passes
  }
  return loaded
}
