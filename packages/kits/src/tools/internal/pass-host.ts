/**
 * What the lazily loaded pass (tool-pass.ts, with settlement.ts and default-message.ts) uses of the
 * modules the public entry loads at import: live bindings that `connectPass` sets once, when passes.ts
 * loads the pass, before any of its code runs.
 *
 * Why not plain imports: the build puts code that two chunks import into a shared chunk of its own, so a
 * pass that imported `copyJson` from json.ts would move json.ts (and the modules beside it) out of
 * `dist/tools/index.js` into one more module that every import of the kit loads, which costs about what
 * leaving the pass out saves (the loop kit's engine-host.ts is the same pattern). The pass modules therefore
 * import `@agent-core/*` packages, each other and this module, and only types from the rest of the kit.
 * Nothing here may be used while a pass module is evaluated (only inside functions and methods).
 */

import type * as journal from '../tool-call-journal.js'
import type * as signature from '../tool-call-signature.js'
import type * as callState from '../tool-call-state.js'
import type * as decision from '../tool-decision.js'
import type * as errors from '../tool-errors.js'
import type * as policy from '../tool-policy.js'
import type * as refusal from '../tool-refusal.js'
import type * as json from './json.js'
import type * as lifecycleEntry from './lifecycle-entry.js'
import type * as request from './request.js'

/** The values `connectPass` hands the pass, under the names their modules export them by. */
export interface PassHost {
  readonly ApprovalRequiredError: typeof errors.ApprovalRequiredError
  readonly assertDecision: typeof decision.assertDecision
  readonly callAuthorize: typeof lifecycleEntry.callAuthorize
  readonly callAwaitHost: typeof lifecycleEntry.callAwaitHost
  readonly callVoidHook: typeof lifecycleEntry.callVoidHook
  readonly canonicalJson: typeof json.canonicalJson
  readonly compileLifecycle: typeof lifecycleEntry.compileLifecycle
  readonly copyJson: typeof json.copyJson
  readonly DECISION_MAKERS: typeof callState.DECISION_MAKERS
  readonly isToolPermitted: typeof policy.isToolPermitted
  readonly jsonProblem: typeof json.jsonProblem
  readonly readOptions: typeof request.readOptions
  readonly recordState: typeof journal.recordState
  readonly signToolCall: typeof signature.signToolCall
  readonly ToolRejectedError: typeof errors.ToolRejectedError
  readonly toolRefusal: typeof refusal.toolRefusal
}

export let ApprovalRequiredError: PassHost['ApprovalRequiredError']
export let assertDecision: PassHost['assertDecision']
export let callAuthorize: PassHost['callAuthorize']
export let callAwaitHost: PassHost['callAwaitHost']
export let callVoidHook: PassHost['callVoidHook']
export let canonicalJson: PassHost['canonicalJson']
export let compileLifecycle: PassHost['compileLifecycle']
export let copyJson: PassHost['copyJson']
export let DECISION_MAKERS: PassHost['DECISION_MAKERS']
export let isToolPermitted: PassHost['isToolPermitted']
export let jsonProblem: PassHost['jsonProblem']
export let readOptions: PassHost['readOptions']
export let recordState: PassHost['recordState']
export let signToolCall: PassHost['signToolCall']
export let ToolRejectedError: PassHost['ToolRejectedError']
export let toolRefusal: PassHost['toolRefusal']

/** Sets the bindings above (passes.ts calls it once, right after loading the pass). */
export function connectPass(host: PassHost): void {
  ;({
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
  } = host)
}
