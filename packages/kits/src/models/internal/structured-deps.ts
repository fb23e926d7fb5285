/**
 * The code of `generateStructured` and `chooseRoute`, as their public functions reach it: the one module
 * of the models kit that is imported dynamically (structured-calls.ts, on the first call of either), so
 * that importing `@agent-core/kits/models` (and the loop kit, which imports it) does not compile it (about
 * 13 KB of built code). Both are asynchronous, so their checks reject exactly as before, only after the
 * import on the first call. See docs/design/cold-import.md.
 *
 * The modules behind this one import from the rest of the kit through structured-host.ts only (it says
 * why); nothing the entry loads statically may import them (types only).
 */
export { chooseRoute } from './route-run.js'
export { connectStructured } from './structured-host.js'
export { generateStructured } from './structured-run.js'
