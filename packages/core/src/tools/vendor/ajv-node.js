// What `#ajv` resolves to in Node (the imports map of packages/core/package.json): ajv's bundle stays on
// disk until the first compiled schema, then `require` loads ajv.cjs from beside the module this code runs
// in: src/tools/vendor/ in source mode, dist/tools/ once the build has inlined this file into
// dist/tools/index.js (the build copies ajv.cjs there). Importing `@agent-core/core/tools` in Node therefore
// neither reads nor scans the bundle, and loads no module for it; `process.getBuiltinModule` (Node 20.16+)
// reaches `node:module` without an import. Browsers, workers and bundlers get ajv.js instead (the same
// script held as a string) through dist/tools/index.browser.js.

let load
/** ajv's two entry classes and ajv-formats; the first call loads the bundle and runs its modules. */
export default function loadAjvBundle() {
  load ??= process.getBuiltinModule('node:module').createRequire(import.meta.url)('./ajv.cjs')
  return load()
}
