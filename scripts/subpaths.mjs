/**
 * The single source of truth for the monorepo's public subpaths.
 *
 * Every `index.ts` directly under a kit folder (`packages/kits/src/<kit>/index.ts`) or one level deeper
 * (`packages/kits/src/<kit>/<variant>/index.ts`, e.g. `durable/sqlite`) is a public subpath, and so is
 * every `index.ts` directly under a core folder (`packages/core/src/tools/index.ts` is
 * `@agent-core/core/tools`). Folders named in PRIVATE_FOLDERS never are, unless PUBLIC_FOLDERS declares one
 * (`durable/testing`, the conformance suite Apps run on their own stores). From that list
 * this script derives the `exports` map of each package, its `files` (the private test folders left out),
 * the tsup entries and one api-extractor config per subpath. `--write` rewrites them; `--check` fails when the committed files disagree with the folders
 * (or when an API report is missing), which CI runs.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const SOURCE_CONDITION = '@agent-core/source'
const PRIVATE_FOLDERS = new Set(['internal', '__fixtures__', 'test', 'testing'])
/**
 * Folders declared public although their name is private (paths under `packages/`): a `testing` folder
 * whose `index.ts` is a published suite for Apps rather than the repository's own test helpers.
 */
const PUBLIC_FOLDERS = new Set([
  'core/src/testing',
  'kits/src/durable/testing',
  'kits/src/knowledge/testing',
  'kits/src/loop/testing',
  'kits/src/memory/testing',
  'kits/src/models/testing',
])

/** True when `dir` (absolute) must never become a subpath. */
function isPrivate(dir) {
  const declared = relative(join(root, 'packages'), dir).split(sep).join('/')
  return PRIVATE_FOLDERS.has(basename(dir)) && !PUBLIC_FOLDERS.has(declared)
}

/** Fixed subpaths of mock; core and kits are discovered from folders. */
const FIXED = {
  mock: ['.', './node', './web', './vitest'],
}

/** Extra build entries that are not subpaths (binaries). */
const EXTRA_ENTRIES = {
  mock: { 'node/cli': 'src/node/cli.ts' },
}

/**
 * Subpaths built twice: Node gets `dist/<stem>.js`, everything else (browsers, workers, bundlers) gets
 * `dist/<stem>.browser.js` (built by the package's tsup.config.ts). `@agent-core/core/tools` is one: in Node
 * it loads ajv's bundle from its own file on the first compile, elsewhere it holds it as a string
 * (docs/design/cold-import.md). Bundlers are told apart by the `module` condition, which esbuild, webpack,
 * Rollup and Vite set and Node does not: a bundle made for Node (esbuild's `platform: 'node'` sets `node`
 * too) runs where no file of ours lies beside it, so it must hold the string form.
 */
const NODE_AND_BROWSER = { core: ['./tools'] }

/** Core: the root entry plus one subpath per folder with an `index.ts` (`src/tools/index.ts` is `./tools`). */
function coreSubpaths() {
  const src = join(root, 'packages/core/src')
  const out = ['.']
  for (const name of readdirSync(src).sort()) {
    const dir = join(src, name)
    if (statSync(dir).isDirectory() && !isPrivate(dir) && existsSync(join(dir, 'index.ts')))
      out.push(`./${name}`)
  }
  return out
}

function kitSubpaths() {
  const src = join(root, 'packages/kits/src')
  const out = []
  if (!existsSync(src)) return out
  for (const kit of readdirSync(src).sort()) {
    const dir = join(src, kit)
    if (!statSync(dir).isDirectory() || isPrivate(dir)) continue
    if (existsSync(join(dir, 'index.ts'))) out.push(`./${kit}`)
    for (const variant of readdirSync(dir).sort()) {
      const sub = join(dir, variant)
      if (!statSync(sub).isDirectory() || isPrivate(sub)) continue
      if (existsSync(join(sub, 'index.ts'))) out.push(`./${kit}/${variant}`)
    }
  }
  return out
}

/** @returns {{ pkg: string, dir: string, name: string, subpaths: string[] }[]} */
export function packages() {
  return [
    { pkg: 'core', dir: 'packages/core', name: '@agent-core/core', subpaths: coreSubpaths() },
    { pkg: 'kits', dir: 'packages/kits', name: '@agent-core/kits', subpaths: kitSubpaths() },
    { pkg: 'mock', dir: 'packages/mock', name: '@agent-core/mock', subpaths: FIXED.mock },
  ]
}

const stem = (subpath) => (subpath === '.' ? 'index' : `${subpath.slice(2)}/index`)

/** tsup entries for one package, e.g. `{ 'search/index': 'src/search/index.ts' }`. */
export function entriesFor(pkg) {
  const p = packages().find((x) => x.pkg === pkg)
  if (!p) throw new Error(`unknown package ${pkg}`)
  const entries = {}
  for (const s of p.subpaths) entries[stem(s)] = `src/${stem(s)}.ts`
  return { ...entries, ...(EXTRA_ENTRIES[pkg] ?? {}) }
}

function exportsFor(p) {
  const map = {}
  for (const s of p.subpaths) {
    map[s] = NODE_AND_BROWSER[p.pkg]?.includes(s)
      ? {
          [SOURCE_CONDITION]: `./src/${stem(s)}.ts`,
          types: `./dist/${stem(s)}.d.ts`,
          module: `./dist/${stem(s)}.browser.js`,
          node: `./dist/${stem(s)}.js`,
          import: `./dist/${stem(s)}.browser.js`,
        }
      : {
          [SOURCE_CONDITION]: `./src/${stem(s)}.ts`,
          types: `./dist/${stem(s)}.d.ts`,
          import: `./dist/${stem(s)}.js`,
        }
  }
  map['./package.json'] = './package.json'
  return map
}

/** Report name of a subpath: `kits-durable-sqlite`, `core`, `mock-node`. */
export function reportName(p, subpath) {
  return subpath === '.' ? p.pkg : `${p.pkg}-${subpath.slice(2).replaceAll('/', '-')}`
}

export function apiTargets() {
  const out = []
  for (const p of packages()) {
    for (const s of p.subpaths) {
      out.push({
        name: reportName(p, s),
        config: `config/api-extractor/${reportName(p, s)}.json`,
        entry: `${p.dir}/dist/${stem(s)}.d.ts`,
        subpath: s === '.' ? p.name : `${p.name}/${s.slice(2)}`,
      })
    }
  }
  return out
}

function apiConfig(t) {
  return {
    $schema: 'https://developer.microsoft.com/json-schemas/api-extractor/v7/api-extractor.schema.json',
    extends: '../../api-extractor.json',
    projectFolder: '../..',
    mainEntryPointFilePath: `<projectFolder>/${t.entry}`,
    apiReport: { enabled: true, reportFileName: t.name },
  }
}

/**
 * The private test folders of a package (`internal/testing`, `kits/src/testing`, `mcp/testing`, ...: every
 * folder named in PRIVATE_FOLDERS except `internal` and those PUBLIC_FOLDERS declares), as paths under its
 * `src`, outermost only. The package ships none of them: they are the repository's own test code.
 */
function privateTestFolders(p) {
  const src = join(root, p.dir, 'src')
  const out = []
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const sub = join(dir, name)
      if (!statSync(sub).isDirectory() || name === 'node_modules') continue
      if (name !== 'internal' && isPrivate(sub)) out.push(relative(src, sub).split(sep).join('/'))
      else walk(sub)
    }
  }
  if (existsSync(src)) walk(src)
  return out
}

/**
 * The `files` of a package: its build and sources, without tests and private test folders, and the
 * licenses of the third-party code its build bundles (THIRD_PARTY_NOTICES.md, when it has one).
 */
function filesFor(p) {
  return [
    'dist',
    ...(existsSync(join(root, p.dir, 'THIRD_PARTY_NOTICES.md')) ? ['THIRD_PARTY_NOTICES.md'] : []),
    'src',
    '!src/**/*.test.ts',
    '!src/**/*.test-d.ts',
    ...privateTestFolders(p).map((folder) => `!src/${folder}`),
  ]
}

const json = (v) => `${JSON.stringify(v, null, 2)}\n`

function plannedFiles() {
  const files = new Map()
  for (const p of packages()) {
    const file = join(root, p.dir, 'package.json')
    const manifest = JSON.parse(readFileSync(file, 'utf8'))
    manifest.files = filesFor(p)
    manifest.exports = exportsFor(p)
    files.set(file, json(manifest))
  }
  for (const t of apiTargets()) files.set(join(root, t.config), json(apiConfig(t)))
  return files
}

function main() {
  const mode = process.argv[2]
  const problems = []
  const planned = plannedFiles()
  for (const [file, text] of planned) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined
    if (current === text) continue
    if (mode === '--write') {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, text)
      console.log(`wrote ${relative(root, file)}`)
    } else problems.push(`${relative(root, file)} disagrees with the kit folders (run \`pnpm sync\`)`)
  }
  for (const folder of PUBLIC_FOLDERS) {
    if (!existsSync(join(root, 'packages', folder, 'index.ts')))
      problems.push(`PUBLIC_FOLDERS declares packages/${folder}, which has no index.ts (remove the entry)`)
  }
  const configDir = join(root, 'config/api-extractor')
  if (existsSync(configDir)) {
    for (const f of readdirSync(configDir)) {
      if (![...planned.keys()].includes(join(configDir, f)))
        problems.push(`config/api-extractor/${f} belongs to no subpath (delete it)`)
    }
  }
  for (const t of apiTargets()) {
    if (!existsSync(join(root, 'etc/api', `${t.name}.api.md`)))
      problems.push(`etc/api/${t.name}.api.md is missing (run \`pnpm build && pnpm api\`)`)
    const src = join(root, t.entry.replace('/dist/', '/src/').replace(/\.d\.ts$/, '.ts'))
    if (existsSync(src) && !/@module/.test(readFileSync(src, 'utf8')))
      problems.push(`${relative(root, src)} has no @module TSDoc comment`)
  }
  const reportDir = join(root, 'etc/api')
  if (existsSync(reportDir)) {
    const names = new Set(apiTargets().map((t) => `${t.name}.api.md`))
    for (const f of readdirSync(reportDir))
      if (!names.has(f)) problems.push(`etc/api/${f} belongs to no subpath (delete it)`)
  }
  if (mode === '--check') {
    if (problems.length) {
      console.error(`layout check failed:\n- ${problems.join('\n- ')}`)
      process.exit(1)
    }
    console.log(
      `layout ok: ${apiTargets().length} subpaths agree across folders, exports, build entries and API reports`,
    )
  } else if (mode !== '--write') {
    console.error('usage: subpaths.mjs --write | --check')
    process.exit(2)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
