/**
 * What runs scripts, in one module that `loadRuntime` (./load-runtime.ts) imports on first use: the
 * execution driver, the engine pool and its worker's source, the host calls, the prelude that builds the
 * sandbox's builtins (the seeded `Math.random`, the frozen `Date`, `console`, the tool functions, `globals`)
 * and type stripping.
 */
export { warmEngine } from './engine.js'
export { runExecution } from './execution.js'
export { loadSucrase } from './strip-types.js'
