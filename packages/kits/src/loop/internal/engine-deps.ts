/**
 * The run engine, as `Agent.run` reaches it: the one module of the loop that the public entry imports
 * dynamically (internal/engine.ts, on an agent's first run), so that importing `@agent-core/kits/loop`
 * compiles definitions, validation and types but not the engine (the run, its model and tool steps, the
 * journal, the resume checks: about 80 KB of built code). Every run is asynchronous already, and what a
 * caller can get wrong (a definition, a request's fields) is checked before the engine is needed, so those
 * errors are thrown (or rejected) exactly as before. See docs/design/cold-import.md.
 *
 * The modules behind this one import from the rest of the kit through engine-host.ts only (it says why);
 * nothing the entry loads statically may import them (types only), or they would be loaded at import again.
 */
export { connectEngine } from './engine-host.js'
export { checkResume } from './resume-checks.js'
export { AgentRun } from './run.js'
