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
 *   fails the build: convert it here, or keep that package external.
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
          contents: `${toEsm(readFileSync(args.path, 'utf8'), args.path)}\n${owner.comment}\n`,
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
