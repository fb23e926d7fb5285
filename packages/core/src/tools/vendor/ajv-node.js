// What `#ajv` resolves to in Node (packages/core/package.json): ajv's bundle stays on disk until the first
// compiled schema, then `require` loads ajv.cjs beside this file (written by scripts/build-ajv.mjs, copied to
// dist/tools/vendor/ by the build). Importing `@agent-core/core/tools` in Node therefore neither reads nor
// scans the bundle; browsers, workers and bundlers get ajv.js instead (the same script held as a string).
import { createRequire } from 'node:module'

let load
/** ajv's two entry classes and ajv-formats; the first call loads the bundle and runs its modules. */
export default function loadAjvBundle() {
  load ??= createRequire(import.meta.url)('./ajv.cjs')
  return load()
}
