/**
 * A post-build step of every package (scripts/tsup-config.mjs): with `splitting` and `keepNames`, esbuild
 * puts its two-line `__name` helper in a chunk of its own (`dist/chunk-*.js`) that every entry imports. In
 * Node each module of a graph costs its own resolve, four file operations, a compile and a link (about
 * 0.3-0.5 ms here), so that chunk made every subpath one module dearer (two for a kit: the kit's copy and
 * the core's). This step writes the helper into each file that imported it and deletes the chunk.
 *
 * It rewrites only the exact forms esbuild prints (`import { __name } from './chunk-X.js';` and the bare
 * `import './chunk-X.js';` of an entry that needs the chunk only for ordering), each one line replaced by one
 * line so that the source maps stay true; when any other reference to the chunk is left, the chunk is kept
 * and the step fails, so that a new esbuild output form is noticed instead of shipping a broken import.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const HELPER_CHUNK =
  /^var __defProp = Object\.defineProperty;\nvar __name = \(target, value\) => __defProp\(target, "name", \{ value, configurable: true \}\);\n\nexport \{ __name \};\n/
const INLINE =
  'var __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });'

const jsFiles = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return jsFiles(path)
    return name.endsWith('.js') ? [path] : []
  })

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Inlines the `__name` helper chunk of one package's `dist` (a no-op when the build made none).
 * @param {string} distDir
 * @returns {{ chunk: string | undefined, rewritten: number }}
 */
export function inlineNameHelper(distDir) {
  const files = jsFiles(distDir)
  const chunk = files.find(
    (f) => /^chunk-[A-Z0-9]+\.js$/.test(basename(f)) && HELPER_CHUNK.test(readFileSync(f, 'utf8')),
  )
  if (!chunk) {
    // a chunk that exports `__name` among other esbuild helpers (`__commonJS`, `__toESM`, ... for a bundled
    // CommonJS file) would be kept, and imported by every entry: say so rather than ship the extra module
    const mixed = files.find(
      (f) =>
        /^chunk-[A-Z0-9]+\.js$/.test(basename(f)) &&
        /^export \{[^}]*\b__name\b[^}]*\};$/m.test(readFileSync(f, 'utf8')),
    )
    if (mixed)
      throw new Error(
        `scripts/inline-name-helper.mjs: ${mixed} holds esbuild's __name helper together with other helpers, so every entry would import it; find what brought them (a bundled CommonJS file: see bundledPackages() in scripts/tsup-config.mjs)`,
      )
    return { chunk: undefined, rewritten: 0 }
  }
  const name = escapeRegExp(basename(chunk))
  const named = new RegExp(`^import \\{ __name \\} from '(?:\\./|(?:\\.\\./)+)${name}';$`, 'm')
  const bare = new RegExp(`^import '(?:\\./|(?:\\.\\./)+)${name}';$`, 'm')
  let rewritten = 0
  const left = []
  for (const file of files) {
    if (file === chunk) continue
    const before = readFileSync(file, 'utf8')
    // an empty line keeps the line count (and so the source map) of a bare import that goes away
    const after = before.replace(named, INLINE).replace(bare, '')
    if (after !== before) {
      writeFileSync(file, after)
      rewritten++
    }
    if (after.includes(basename(chunk).replace('.js', ''))) left.push(file)
  }
  if (left.length)
    throw new Error(
      `scripts/inline-name-helper.mjs: ${left.join(', ')} still refer to ${basename(chunk)} in a form this step does not rewrite; teach it the new form`,
    )
  rmSync(chunk)
  rmSync(`${chunk}.map`, { force: true })
  return { chunk: basename(chunk), rewritten }
}
