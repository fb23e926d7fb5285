/**
 * What a cold `import` of each public subpath costs, measured the way a user's program pays it: from the
 * built `dist` files, in a fresh Node process, from a folder outside the workspace that sees the packages
 * through `node_modules/@agent-core/*` links (third-party code resolves from the packages' own
 * dependencies, as after an install).
 *
 * Two kinds of fresh processes per subpath:
 * - a **probe** registers module customization hooks (scripts/cold-import-hooks.mjs) before importing the
 *   subpath. The hooks see every ES module loaded and every import edge; CommonJS modules loaded by
 *   `require()` (which bypass the hooks on Node 20) come from the CommonJS module cache, with their
 *   `children` as edges. The probe lists each module file once, as ESM or CommonJS (JSON files read by
 *   `require` count as CommonJS modules; `node:` builtins are not counted), with the package that owns it.
 * - a **timing** run has no hooks (they run on a separate thread and would distort the time): it reads
 *   `performance.now()`, awaits `import(subpath)` and reads it again. That is resolution, reading,
 *   compiling and evaluating the whole module graph, without Node's own start-up.
 *
 * Used by scripts/check-package.mjs (table, declared-dependency check) and bench/cold-import (ranges over
 * repeated runs against the 10 ms goal).
 */
import { execFileSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { packages } from './subpaths.mjs'

// the real path: Node reports loaded files by their real paths, so ownership checks compare against it
const root = realpathSync(join(import.meta.dirname, '..'))
const HOOKS_URL = pathToFileURL(join(import.meta.dirname, 'cold-import-hooks.mjs')).href

const PROBE = `import { createRequire, register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
register(process.argv[3], { data: { port: port2 }, transferList: [port2] })
await import(process.argv[2])
const hooked = await new Promise((resolve) => { port1.once('message', resolve); port1.postMessage('report') })
port1.close()
const cjs = Object.values(createRequire(import.meta.url).cache).map((m) => ({
  file: m.filename,
  parent: m.parent ? m.parent.filename : undefined,
  children: m.children.map((c) => c.filename),
}))
process.stdout.write(JSON.stringify({ ...hooked, cjs }))
`

const TIME = `const cpu = process.cpuUsage()
const start = performance.now()
await import(process.argv[2])
const ms = performance.now() - start
const used = process.cpuUsage(cpu)
process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }))
`

/**
 * Every public subpath of the workspace, with what the check needs to know about it.
 * @returns {{ pkg: string, packageName: string, subpath: string, specifier: string, entry: string, declared: string[], bundled: string[] }[]}
 */
export function publicSubpaths() {
  return packages().flatMap((p) => {
    const declarations = subpathDependencies(p)
    const bundles = bundledIntoDist(p)
    return p.subpaths.map((subpath) => ({
      pkg: p.pkg,
      packageName: p.name,
      subpath,
      specifier: subpath === '.' ? p.name : `${p.name}/${subpath.slice(2)}`,
      entry: join(root, p.dir, 'dist', subpath === '.' ? 'index.js' : `${subpath.slice(2)}/index.js`),
      declared: declarations[subpath] ?? [],
      bundled: bundles[subpath] ?? [],
    }))
  })
}

/** The `agentCore.subpathDependencies` map of one package (`{ './sandbox': ['quickjs-emscripten', 'sucrase'] }`). */
export function subpathDependencies(p) {
  return readManifest(p).agentCore?.subpathDependencies ?? {}
}

/**
 * The `agentCore.bundledIntoDist` map of one package (`{ './search': ['wink-porter2-stemmer'] }`): the
 * devDependencies its build compiles into the dist of those subpaths (scripts/tsup-config.mjs).
 */
export function bundledIntoDist(p) {
  return readManifest(p).agentCore?.bundledIntoDist ?? {}
}

/** The parsed package.json of one workspace package. */
export function readManifest(p) {
  return JSON.parse(readFileSync(join(root, p.dir, 'package.json'), 'utf8'))
}

/**
 * A folder outside the workspace whose `node_modules/@agent-core/*` link to the packages, with the probe and
 * timing programs in it. Call `dispose()` when done.
 */
export function createConsumer() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-core-cold-import-')))
  mkdirSync(join(dir, 'node_modules/@agent-core'), { recursive: true })
  for (const p of packages()) symlinkSync(join(root, p.dir), join(dir, 'node_modules', p.name), 'dir')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n')
  writeFileSync(join(dir, 'probe.mjs'), PROBE)
  writeFileSync(join(dir, 'time.mjs'), TIME)
  writeFileSync(join(dir, 'empty.mjs'), 'export {}\n')
  // an empty package with an `exports` map, imported by its bare name: what resolving any package costs
  mkdirSync(join(dir, 'node_modules/empty-package'))
  writeFileSync(
    join(dir, 'node_modules/empty-package/package.json'),
    '{ "name": "empty-package", "type": "module", "exports": { ".": "./index.js" } }\n',
  )
  writeFileSync(join(dir, 'node_modules/empty-package/index.js'), 'export {}\n')
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) }
}

const runNode = (dir, args) =>
  JSON.parse(
    execFileSync(process.execPath, ['--no-warnings', ...args], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    }),
  )

/** Milliseconds one fresh process spends in `await import(specifier)`. */
export function timeColdImport(dir, specifier) {
  return runNode(dir, ['time.mjs', specifier]).ms
}

/**
 * Like {@link timeColdImport}, with the CPU time (user + system) the process spent in the same span: on a
 * loaded machine the wall time also counts the waits for a core, the CPU time does not.
 * @returns {{ ms: number, cpuMs: number }}
 */
export function measureColdImport(dir, specifier) {
  const { ms, cpuMs } = runNode(dir, ['time.mjs', specifier])
  return { ms, cpuMs }
}

/** The package a module file belongs to: `@agent-core/kits`, `ajv`, `@scope/name`, or undefined. */
export function ownerOf(file) {
  for (const p of packages()) if (file.startsWith(join(root, p.dir) + sep)) return p.name
  const at = file.lastIndexOf(`${sep}node_modules${sep}`)
  if (at < 0) return undefined
  const parts = file.slice(at + `${sep}node_modules${sep}`.length).split(sep)
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

const isOurs = (owner) => owner?.startsWith('@agent-core/') === true

/**
 * Loads `specifier` once in a fresh process under the probe hooks.
 * @returns {{
 *   modules: { file: string, kind: 'esm' | 'cjs', owner: string | undefined }[],
 *   esm: number, cjs: number, thirdPartyModules: number,
 *   thirdParty: string[],
 *   direct: { from: string, package: string }[],
 *   entries: string[],
 * }}
 */
export function probeColdImport(dir, specifier) {
  const raw = runNode(dir, ['probe.mjs', specifier, HOOKS_URL])
  const files = new Map()
  const toFile = (url) => (url.startsWith('file:') ? fileURLToPath(url) : undefined)
  for (const { url, format } of raw.loads) {
    const file = toFile(url)
    if (!file || format === 'builtin') continue
    if (!files.has(file)) files.set(file, format === 'commonjs' ? 'cjs' : 'esm')
  }
  for (const m of raw.cjs) if (m.file && !files.has(m.file)) files.set(m.file, 'cjs')
  const probeFiles = new Set(['probe.mjs', 'time.mjs', 'empty.mjs'].map((f) => join(dir, f)))
  const modules = [...files]
    .filter(([file]) => !probeFiles.has(file))
    .map(([file, kind]) => ({ file, kind, owner: ownerOf(file) }))

  // import edges: ESM resolutions from the hooks, CommonJS `children`/`parent` from the module cache
  const edges = raw.edges.map((e) => [toFile(e.parent), toFile(e.url)])
  for (const m of raw.cjs) {
    for (const child of m.children) edges.push([m.file, child])
    if (m.parent) edges.push([m.parent, m.file])
  }
  const direct = new Map()
  for (const [from, to] of edges) {
    if (!from || !to) continue
    const fromOwner = ownerOf(from)
    const toOwner = ownerOf(to)
    if (isOurs(fromOwner) && toOwner && !isOurs(toOwner))
      direct.set(`${from}\0${toOwner}`, { from, package: toOwner })
  }
  const entryOf = new Map(publicSubpaths().map((s) => [s.entry, s.specifier]))
  const thirdParty = [
    ...new Set(modules.filter((m) => m.owner && !isOurs(m.owner)).map((m) => m.owner)),
  ].sort()
  return {
    modules,
    esm: modules.filter((m) => m.kind === 'esm').length,
    cjs: modules.filter((m) => m.kind === 'cjs').length,
    thirdPartyModules: modules.filter((m) => m.owner && !isOurs(m.owner)).length,
    thirdParty,
    direct: [...direct.values()],
    entries: modules.map((m) => entryOf.get(m.file)).filter((s) => s !== undefined),
  }
}

/** Median of a non-empty list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
