/**
 * The sandbox's runtime (./runtime.ts), imported on first use (the first execution, replay, code-tool call
 * or `preloadSandbox`) rather than when the kit is imported. It is about half of the kit's code, and it
 * loads node:async_hooks, node:os and node:module: imported at the top, it would add a few ms to every cold
 * import of the subpath, also in an app that only defines its code tools or describes its tools at start-up.
 * quickjs-emscripten and sucrase are loaded later still, by the first engine and the first TypeScript script.
 */
type Runtime = typeof import('./runtime.js')

let runtime: Promise<Runtime> | undefined

/** The runtime module, imported once (a failed import is tried again by the next call). */
export function loadRuntime(): Promise<Runtime> {
  if (runtime === undefined) {
    const loading = import('./runtime.js')
    runtime = loading
    loading.catch(() => {
      if (runtime === loading) runtime = undefined
    })
  }
  return runtime
}
