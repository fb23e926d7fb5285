/**
 * What the lazily loaded structured calls (structured-deps.ts) use of the modules the public entry loads at
 * import: live bindings that `connectStructured` sets once, when structured-calls.ts loads them, before
 * any of their code runs.
 *
 * Why not plain imports: the build puts code that two chunks import into a shared chunk of its own, so a
 * lazy module that imported `ModelCalls` from model-calls.ts would move model-calls.ts (and what it
 * imports) out of `dist/models/index.js` into one more module that every import of the kit loads, which
 * costs more than leaving 13 KB out saves (the loop kit's engine-host.ts is the same pattern). The lazy
 * modules therefore import `@agent-core/*` packages, each other and this module, and only types from the
 * rest of the kit. Nothing here may be used while a lazy module is evaluated (only inside functions).
 */

import type * as modelCalls from '../model-calls.js'
import type { ModelCalls as ModelCallsClass } from '../model-calls.js'
import type * as structuredOutput from '../structured-output.js'

/** The values `connectStructured` hands the lazy modules, under the names their modules export them by. */
export interface StructuredHost {
  readonly compileStructuredOutput: typeof structuredOutput.compileStructuredOutput
  readonly defineStructuredOutput: typeof structuredOutput.defineStructuredOutput
  readonly isStructuredOutput: typeof structuredOutput.isStructuredOutput
  readonly MAX_TIMEOUT_MS: typeof modelCalls.MAX_TIMEOUT_MS
  readonly ModelCalls: typeof ModelCallsClass
}

export let compileStructuredOutput: StructuredHost['compileStructuredOutput']
export let defineStructuredOutput: StructuredHost['defineStructuredOutput']
export let isStructuredOutput: StructuredHost['isStructuredOutput']
export let MAX_TIMEOUT_MS: StructuredHost['MAX_TIMEOUT_MS']
export let ModelCalls: StructuredHost['ModelCalls']

/** Sets the bindings above (structured-calls.ts calls it once, right after loading the lazy modules). */
export function connectStructured(host: StructuredHost): void {
  ;({ compileStructuredOutput, defineStructuredOutput, isStructuredOutput, MAX_TIMEOUT_MS, ModelCalls } =
    host)
}
