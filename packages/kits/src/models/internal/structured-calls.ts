/**
 * Loads the code of `generateStructured` and `chooseRoute` (structured-deps.ts) on the first call of
 * either and hands it what it uses of the modules loaded at import (structured-host.ts). Later calls get
 * the loaded code without waiting.
 */
import { MAX_TIMEOUT_MS, ModelCalls } from '../model-calls.js'
import { compileStructuredOutput, defineStructuredOutput, isStructuredOutput } from '../structured-output.js'

/** The lazily loaded module. */
export type StructuredCalls = typeof import('./structured-deps.js')

let loaded: StructuredCalls | undefined

/** The structured calls once a call has loaded them, else undefined (then await {@link loadStructuredCalls}). */
export function loadedStructuredCalls(): StructuredCalls | undefined {
  return loaded
}

/** Loads the structured calls (once; concurrent first calls share the one import) and connects them. */
export async function loadStructuredCalls(): Promise<StructuredCalls> {
  if (loaded !== undefined) return loaded
  const calls: StructuredCalls = await import('./structured-deps.js')
  if (loaded === undefined) {
    calls.connectStructured({
      compileStructuredOutput,
      defineStructuredOutput,
      isStructuredOutput,
      MAX_TIMEOUT_MS,
      ModelCalls,
    })
    loaded = calls
  }
  return loaded
}
