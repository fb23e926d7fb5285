/**
 * The one tsup configuration of every package: one ESM entry with types per public subpath (from
 * subpaths.mjs), and the package's own subpaths kept external so that a variant that imports its parent
 * through the public subpath (`@agent-core/kits/durable` from `durable/sqlite`) never bundles a second copy.
 *
 * Third-party packages stay external (tsup keeps `dependencies` and `peerDependencies` out of the bundle),
 * except those the package's manifest lists in `agentCore.bundledIntoDist` (`{ "./search":
 * ["wink-porter2-stemmer"] }`): those are devDependencies compiled into our dist (a small CommonJS package
 * becomes ESM in our module, which spares Node's CommonJS loader at import). Their license text goes into
 * the built file as a legal comment (esbuild keeps `/*!` comments, at the end of the file) and into the
 * package's THIRD_PARTY_NOTICES.md; `pnpm check:package` checks both.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, sep } from 'node:path'
import { inlineNameHelper } from './inline-name-helper.mjs'
import { entriesFor } from './subpaths.mjs'

/**
 * @param {'core' | 'kits' | 'mock'} pkg
 * @param {'node' | 'neutral'} platform
 */
export function packageBuildConfig(pkg, platform) {
  const bundled = bundledPackageNames(process.cwd())
  return {
    entry: entriesFor(pkg),
    format: ['esm'],
    target: 'node20',
    platform,
    dts: true,
    sourcemap: true,
    clean: true,
    splitting: true,
    treeshake: true,
    // esbuild renames a class whose name another module of the bundle also uses (`_ModelProviderError`),
    // and errors take their `name` from their class: keepNames makes the bundle restore the real names.
    keepNames: true,
    outDir: 'dist',
    external: [new RegExp(`^@agent-core/${pkg}(/|$)`)],
    noExternal: bundled,
    esbuildPlugins: bundled.length ? [bundledPackages(process.cwd(), bundled)] : [],
    // keepNames' `__name` helper would be a chunk of its own that every entry imports: one more module per
    // subpath in Node (scripts/inline-name-helper.mjs writes it into each file instead)
    onSuccess: async () => {
      inlineNameHelper(join(process.cwd(), 'dist'))
    },
  }
}

/**
 * The third-party packages one package compiles into its dist (`agentCore.bundledIntoDist`, all subpaths).
 * @param {string} packageDir
 * @returns {string[]}
 */
export function bundledPackageNames(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  return [...new Set(Object.values(manifest.agentCore?.bundledIntoDist ?? {}).flat())]
}

/**
 * An esbuild plugin for the files of the bundled packages:
 * - appends the package's LICENSE text to each file it loads, as a legal comment (appended, not prepended,
 *   so that the file's own lines and source map stay put);
 * - turns a CommonJS file of the simplest form (no `require`, no `exports.x`, one `module.exports = name;`
 *   line) into ESM by rewriting that line to `export default name;`. Left to esbuild, a CommonJS file gets
 *   its `__commonJS`/`__toESM` helpers, which go into the helper chunk that every entry shares and that
 *   scripts/inline-name-helper.mjs can only inline when it holds `__name` alone. Any other CommonJS form
 *   fails the build: convert it here, or keep that package external;
 * - writes every non-ASCII character of the file as a `\\uXXXX` escape (see {@link asciiOnly}).
 * @param {string} packageDir
 * @param {string[]} names
 */
export function bundledPackages(packageDir, names) {
  const roots = names.map((name) => {
    const root = installedPackageRoot(packageDir, name)
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const license = readFileSync(licenseFile(root), 'utf8').trim().replaceAll('*/', '* /')
    return {
      name,
      root: root + sep,
      comment: `/*! ${name} ${version}, bundled into this file:\n\n${license}\n*/`,
    }
  })
  return {
    name: 'agent-core-bundled-packages',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const owner = roots.find((r) => args.path.startsWith(r.root))
        if (!owner) return undefined
        return {
          contents: `${asciiOnly(toEsm(readFileSync(args.path, 'utf8'), args.path), args.path)}\n${owner.comment}\n`,
          loader: 'js',
        }
      })
    },
  }
}

/**
 * The folder (real path) of a package as Node resolves it from `packageDir`, found through the
 * `node_modules` folders Node would search (its `exports` need not offer `./package.json`).
 * @param {string} packageDir
 * @param {string} name
 * @returns {string}
 */
export function installedPackageRoot(packageDir, name) {
  const paths = createRequire(join(packageDir, 'package.json')).resolve.paths(name) ?? []
  const dir = paths.map((p) => join(p, name)).find((d) => existsSync(join(d, 'package.json')))
  if (!dir)
    throw new Error(
      `scripts/tsup-config.mjs: ${name} is not installed for ${packageDir} (agentCore.bundledIntoDist): run pnpm install`,
    )
  return realpathSync(dir)
}

/**
 * The license file of an installed package (`LICENSE`, `LICENSE.md`, `LICENSE.txt`, `LICENCE`, any case).
 * @param {string} packageRoot
 * @returns {string}
 */
export function licenseFile(packageRoot) {
  const name = readdirSync(packageRoot).find((f) => /^licen[cs]e(?:\.(?:md|txt))?$/i.test(f))
  if (!name)
    throw new Error(
      `scripts/tsup-config.mjs: ${packageRoot} ships no LICENSE file; a package bundled into dist needs one (its text goes into the built file and THIRD_PARTY_NOTICES.md)`,
    )
  return join(packageRoot, name)
}

/**
 * The file with every non-ASCII character written as a `\uXXXX` escape (one outside the BMP as its two
 * surrogates), so that the built file is ASCII-only. V8 keeps a module's source as a one-byte string only
 * when every character of it fits in Latin-1: one `’` (U+2019) in a regex literal of the stemmer made all
 * 245 KB of `dist/search/index.js` a two-byte string, slower to scan and parse at every import
 * (docs/design/cold-import.md). esbuild escapes non-ASCII characters in strings, template literals and
 * identifiers (`charset: 'ascii'`, its default) but writes regex literals and tagged templates as they are,
 * hence this step on the bundled packages' own text.
 *
 * The escape stands for the same character in a string, a template's cooked text, a regex literal (with or
 * without the `u` flag, in a class or not: a surrogate pair of escapes is one code point under `u`) and an
 * identifier; an identity escape (`\’`) becomes the escape of its character, and in a comment the escape is
 * just text. Where it would mean something else, the build fails instead of changing the code: a line
 * continued by an escaped U+2028/U+2029 (refused here), a non-ASCII space between tokens (the escape is a
 * syntax error there), and the raw text of a tagged template (refused here in a file that reads `.raw`).
 * @param {string} source
 * @param {string} path
 * @returns {string}
 */
export function asciiOnly(source, path) {
  const text = source.replace(/^\uFEFF/, '')
  if (!/[^\0-\x7f]/.test(text)) return text
  const fail = (problem) => {
    throw new Error(
      `scripts/tsup-config.mjs: ${path} ${problem}, which asciiOnly() cannot write as \\u escapes without changing the code; escape it in asciiOnly() or keep the package external`,
    )
  }
  if (/\.raw\b/.test(text)) fail('has non-ASCII characters and reads the raw text of a template')
  return text.replace(/(\\*)([^\0-\x7f])/gu, (_, backslashes, character) => {
    const escaped = backslashes.length % 2 === 1
    if (escaped && (character === '\u2028' || character === '\u2029'))
      fail('continues a line with an escaped U+2028 or U+2029')
    let units = ''
    for (let i = 0; i < character.length; i++)
      units += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`
    return (escaped ? backslashes.slice(1) : backslashes) + units
  })
}

const MODULE_EXPORTS = /^module\.exports = ([A-Za-z_$][\w$]*);$/m

/** The ESM form of a bundled file (unchanged when it is ESM already; see {@link bundledPackages}). */
function toEsm(source, path) {
  if (!/\b(?:module\.exports|exports\.|require\s*\()/.test(source)) return source
  const converted = source.replace(MODULE_EXPORTS, 'export default $1;')
  if (/\b(?:module\.exports|exports\.|require\s*\()/.test(converted))
    throw new Error(
      `scripts/tsup-config.mjs: ${path} is CommonJS in a form this build does not turn into ESM (only one \`module.exports = name;\` line, no require); convert it in bundledPackages() or keep the package external`,
    )
  return converted
}
