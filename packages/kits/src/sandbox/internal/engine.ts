/**
 * The QuickJS WebAssembly module every execution creates its runtime in. It is loaded once, lazily (so
 * importing the kit loads no WebAssembly), from the optional peer `quickjs-emscripten`. An execution that
 * broke the module (the engine's C code ran out of the host's native stack, which QuickJS's own stack check
 * cannot see, or aborted) retires it: later executions get a fresh module, and the broken one is dropped.
 */
import type { QuickJSWASMModule } from 'quickjs-emscripten'
import { SandboxUnavailableError } from '../sandbox-errors.js'

let loading: Promise<QuickJSWASMModule> | undefined
let current: QuickJSWASMModule | undefined
let retired = 0

async function load(): Promise<QuickJSWASMModule> {
  let lib: typeof import('quickjs-emscripten')
  try {
    lib = await import('quickjs-emscripten')
  } catch (error) {
    throw new SandboxUnavailableError(
      'The sandbox needs the optional peer dependency quickjs-emscripten, which could not be loaded. Install it next to @agent-core/kits (npm install quickjs-emscripten@^0.32.0).',
      { cause: error },
    )
  }
  try {
    return await lib.newQuickJSWASMModule(lib.RELEASE_SYNC)
  } catch (error) {
    throw new SandboxUnavailableError(
      `The QuickJS WebAssembly module could not be started: ${error instanceof Error ? error.message : String(error)}.`,
      { cause: error },
    )
  }
}

/** The module to create runtimes in. */
export function quickjs(): Promise<QuickJSWASMModule> {
  if (current) return Promise.resolve(current)
  if (!loading) {
    const started = load()
    loading = started
    started.then(
      (module) => {
        if (loading === started) current = module
      },
      () => {
        if (loading === started) loading = undefined
      },
    )
  }
  return loading
}

/** Stops handing out `module`: the next execution loads a fresh one. */
export function retire(module: QuickJSWASMModule): void {
  if (current === module) {
    current = undefined
    loading = undefined
    retired++
  }
}

/** How many modules were retired in this process (for tests and diagnostics). */
export function retiredModules(): number {
  return retired
}
