/**
 * The run engine, as `Agent.run` reaches it: the one module of the loop that the public entry imports
 * dynamically (`await import()` on an agent's first run), so that importing `@agent-core/kits/loop`
 * compiles definitions, validation and types but not the engine (the run, its model and tool steps, the
 * journal, resume checks: about 84 KB of built code). Every run is asynchronous already; what a caller
 * can get wrong (a definition, a request's fields) is checked before the engine is needed, so those
 * errors are thrown (or rejected) exactly as before. See docs/design/cold-import.md.
 *
 * Nothing that the entry loads statically may import the modules behind this one (only types): that
 * would pull them back into the entry's import.
 */

export { checkResume } from './resume-checks.js'
export { AgentRun } from './run.js'
