/**
 * Package hygiene, after `pnpm build`:
 * 1. publint on every package;
 * 2. the `agentCore.subpathDependencies` declarations name real subpaths and packages the manifest depends on,
 *    every runtime dependency is declared by some subpath, and an optional peer is declared by one kit only;
 * 3. from source (esbuild, imports left unresolved): a kit reaches no other kit's folder except through that
 *    kit's public subpath, the platform-neutral mock entry imports no `node:` module, and every third-party
 *    package a subpath's code imports (statically or with a literal dynamic `import()`) is declared by that
 *    subpath or by a subpath of the same package that it imports by public subpath; a declared package the
 *    code never imports is reported too;
 * 4. from dist, in fresh Node processes outside the workspace (scripts/cold-import.mjs): the modules and
 *    milliseconds a cold `import` of each subpath costs (printed as a table, the one in the README), and
 *    every third-party package that our code actually loads is declared the same way; each subpath must
 *    export something (a plain Node ESM consumer).
 *
 * A package compiled into our dist (`agentCore.bundledIntoDist`, see scripts/tsup-config.mjs) counts as our
 * code: the subpaths listed for it may import it from source, it must be a devDependency (not a dependency
 * or a peer: users never install it), its LICENSE text must be in the package's THIRD_PARTY_NOTICES.md
 * (shipped in `files`) and, as a legal comment, in the built file, and no dist file may still import it.
 *
 * "Declared the same way": a module of package P that imports third-party package X passes when X is
 * declared by a subpath of P that the process loaded. Resolution of X starts from P's own dependencies, so
 * only P's declarations count: `@agent-core/mock` importing ajv itself needs its own declaration even though
 * `@agent-core/core/tools` declares ajv too. ajv's own dependencies (fast-uri, ...) are ajv's business.
 *
 * `--write-readme` rewrites the cold-import table in README.md (between its two marker comments).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import { build } from 'esbuild'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import {
  bundledIntoDist,
  createConsumer,
  median,
  ownerOf,
  probeColdImport,
  publicSubpaths,
  readManifest,
  subpathDependencies,
  timeColdImport,
} from './cold-import.mjs'
import { packages } from './subpaths.mjs'
import { installedPackageRoot, licenseFile } from './tsup-config.mjs'

const root = join(import.meta.dirname, '..')
const TIMING_RUNS = 3
const README = join(root, 'README.md')
const TABLE_START = '<!-- cold-import-table:start -->'
const TABLE_END = '<!-- cold-import-table:end -->'
const problems = []
const notes = []

const BUILTINS = new Set(builtinModules)
const isBuiltin = (specifier) => specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0])
const packageNameOf = (specifier) => {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

// 1. publint
for (const p of packages()) {
  const dir = join(root, p.dir)
  const { messages } = await publint({ pkgDir: dir, level: 'warning', strict: true })
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  for (const m of messages) problems.push(`publint ${p.name}: ${formatMessage(m, pkg) ?? m.code}`)
}

// 2. the declarations themselves
for (const p of packages()) {
  const manifest = readManifest(p)
  const available = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ])
  const declaredAnywhere = new Set(Object.values(subpathDependencies(p)).flat())
  for (const name of Object.keys(manifest.dependencies ?? {}))
    if (!name.startsWith('@agent-core/') && !declaredAnywhere.has(name))
      problems.push(
        `${p.dir}/package.json depends on ${name}, but no subpath declares it in agentCore.subpathDependencies: declare it for the subpath that loads it, or drop the dependency`,
      )
  // an optional peer (openai, pg, ...) belongs to one kit: only that kit's subpaths (durable/postgres is
  // the durable kit) may load it; any other subpath reaches it through that kit's public subpath
  const optional = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
    (name) => manifest.peerDependenciesMeta[name]?.optional,
  )
  for (const name of optional) {
    const owners = Object.entries(subpathDependencies(p))
      .filter(([, names]) => names.includes(name))
      .map(([subpath]) => subpath)
    const kits = new Set(owners.map((subpath) => subpath.split('/')[1]))
    if (kits.size > 1)
      problems.push(
        `${p.dir}/package.json: the optional peer ${name} is declared by ${owners.join(', ')}; it belongs to one kit, so the others must import that kit's public subpath instead`,
      )
  }
  for (const [subpath, names] of Object.entries(subpathDependencies(p))) {
    if (!p.subpaths.includes(subpath))
      problems.push(
        `${p.dir}/package.json declares dependencies for ${subpath}, which is not a subpath of ${p.name}`,
      )
    for (const name of names)
      if (!available.has(name))
        problems.push(
          `${p.dir}/package.json: ${subpath} declares ${name}, which is neither a dependency nor a peer dependency of ${p.name}`,
        )
  }
}

// 2b. packages compiled into dist
const NOTICES = 'THIRD_PARTY_NOTICES.md'
const squash = (text) => text.replace(/\s+/g, ' ').trim()
for (const p of packages()) {
  const manifest = readManifest(p)
  const bundles = Object.entries(bundledIntoDist(p))
  if (bundles.length === 0) continue
  const notices = join(root, p.dir, NOTICES)
  const noticesText = existsSync(notices) ? squash(readFileSync(notices, 'utf8')) : undefined
  if (noticesText === undefined)
    problems.push(
      `${p.dir} bundles third-party packages into its dist but has no ${NOTICES}: add one with each package's name, version and LICENSE text`,
    )
  else if (!(manifest.files ?? []).includes(NOTICES))
    problems.push(
      `${p.dir}/package.json: add "${NOTICES}" to "files" (it holds the licenses of the packages bundled into dist)`,
    )
  const declared = new Set(Object.values(subpathDependencies(p)).flat())
  for (const [subpath, names] of bundles) {
    if (!p.subpaths.includes(subpath))
      problems.push(
        `${p.dir}/package.json bundles packages into ${subpath}, which is not a subpath of ${p.name}`,
      )
    for (const name of names) {
      const where = `${p.dir}/package.json: ${name} is bundled into dist (agentCore.bundledIntoDist)`
      if (!manifest.devDependencies?.[name])
        problems.push(`${where} but is not a devDependency: move it there`)
      if (manifest.dependencies?.[name] || manifest.peerDependencies?.[name])
        problems.push(`${where}, so users never need it: remove it from dependencies and peerDependencies`)
      if (declared.has(name))
        problems.push(`${where}: remove it from agentCore.subpathDependencies (dist does not load it)`)
      let packageRoot
      try {
        packageRoot = installedPackageRoot(join(root, p.dir), name)
      } catch {
        problems.push(`${where} but is not installed: run pnpm install`)
        continue
      }
      const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'))
      let licensePath
      try {
        licensePath = licenseFile(packageRoot)
      } catch {
        problems.push(`${where}, but ${packageRoot} ships no LICENSE file: bundle only packages that do`)
        continue
      }
      const license = squash(readFileSync(licensePath, 'utf8'))
      if (noticesText && (!noticesText.includes(`${name} ${version}`) || !noticesText.includes(license)))
        problems.push(
          `${p.dir}/${NOTICES} must name ${name} ${version} and hold its LICENSE text (${licensePath})`,
        )
      const stamp = `${name} ${version}, bundled into this file`
      if (!distFiles(join(root, p.dir, 'dist')).some((f) => readFileSync(f, 'utf8').includes(stamp)))
        problems.push(
          `${where}, but no file of ${p.dir}/dist carries its license comment ("${stamp}"): rebuild (pnpm build)`,
        )
    }
  }
}

/** Every .js file under a dist folder. */
function distFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return distFiles(path)
    return name.endsWith('.js') ? [path] : []
  })
}

const subpaths = publicSubpaths()
const bySpecifier = new Map(subpaths.map((s) => [s.specifier, s]))

// 3. static imports, from source
/** @type {Map<string, { subpaths: string[], thirdParty: Map<string, string[]> }>} */
const staticImports = new Map()
for (const s of subpaths) {
  const p = packages().find((x) => x.pkg === s.pkg)
  const stem = s.subpath === '.' ? 'index' : `${s.subpath.slice(2)}/index`
  const result = await build({
    entryPoints: [join(root, p.dir, 'src', `${stem}.ts`)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  })
  const ours = []
  const thirdParty = new Map()
  for (const [input, info] of Object.entries(result.metafile.inputs)) {
    for (const imp of info.imports) {
      if (!imp.external || isBuiltin(imp.path)) continue
      // `#ajv`: the package's own imports map, whose targets are files of the same package
      if (imp.path.startsWith('#')) continue
      if (imp.path.startsWith('@agent-core/')) {
        if (!bySpecifier.has(imp.path))
          problems.push(`${input} imports ${imp.path}, which is not a public subpath`)
        else ours.push(imp.path)
        continue
      }
      const name = packageNameOf(imp.path)
      thirdParty.set(name, [...(thirdParty.get(name) ?? []), input])
    }
    // A package loaded at run time by its resolved path (`createRequire(...).resolve('quickjs-emscripten')`,
    // handed to a worker) is a use too, though no import names it.
    if (!input.startsWith('packages/')) continue
    for (const m of readFileSync(join(root, input), 'utf8').matchAll(/\.resolve\(\s*'([^'./][^']*)'\s*\)/g)) {
      const name = packageNameOf(m[1])
      if (isBuiltin(name)) continue
      thirdParty.set(name, [...(thirdParty.get(name) ?? []), input])
    }
  }
  staticImports.set(s.specifier, { subpaths: [...new Set(ours)], thirdParty })

  const inputs = Object.keys(result.metafile.inputs)
  if (s.pkg === 'kits') {
    const top = s.subpath.slice(2).split('/')[0]
    for (const input of inputs) {
      const m = /packages\/kits\/src\/(.+)\/[^/]+$/.exec(input)
      // a variant (durable/sqlite) may use its parent kit's files; other kits only by public subpath
      if (m && m[1] !== top && !m[1].startsWith(`${top}/`))
        problems.push(
          `${s.specifier} reaches into ${input}; import the other kit by its public subpath instead`,
        )
    }
  }
  if (s.pkg === 'mock' && s.subpath === '.') {
    for (const input of inputs)
      if (/src\/node\//.test(input)) problems.push(`${s.specifier} (platform neutral) loads ${input}`)
    const builtins = Object.values(result.metafile.inputs).flatMap((i) =>
      i.imports.filter((imp) => imp.external && isBuiltin(imp.path)).map((imp) => imp.path),
    )
    if (builtins.length)
      problems.push(`${s.specifier} must run in browsers but imports ${[...new Set(builtins)].join(', ')}`)
  }
}

/** Declarations of `specifier` and of every same-package subpath it imports by public subpath, transitively. */
function allowedStatically(specifier, seen = new Set()) {
  if (seen.has(specifier)) return new Set()
  seen.add(specifier)
  const s = bySpecifier.get(specifier)
  const allowed = new Set(s.declared)
  for (const other of staticImports.get(specifier).subpaths)
    if (bySpecifier.get(other).pkg === s.pkg)
      for (const name of allowedStatically(other, seen)) allowed.add(name)
  return allowed
}
const declarationHint = (s) =>
  `add it to "agentCore": { "subpathDependencies": { "${s.subpath}": [...] } } in packages/${s.pkg}/package.json`
for (const s of subpaths) {
  // a package bundled into this subpath's dist is ours once built: its source may import it
  const allowed = new Set([...allowedStatically(s.specifier), ...s.bundled])
  const { thirdParty } = staticImports.get(s.specifier)
  for (const [name, files] of thirdParty)
    if (!allowed.has(name))
      problems.push(
        `${s.specifier} imports ${name} (${files.join(', ')}) without declaring it: ${declarationHint(s)}`,
      )
  for (const name of s.declared)
    if (!thirdParty.has(name))
      problems.push(`${s.specifier} declares ${name} but its code never imports it; remove the declaration`)
  for (const name of s.bundled)
    if (!thirdParty.has(name))
      problems.push(
        `${s.specifier} bundles ${name} (agentCore.bundledIntoDist) but its code never imports it; remove it there`,
      )
}

// 4. cold imports from dist, in fresh processes outside the workspace
const consumer = createConsumer()
const rows = []
try {
  for (const s of subpaths) {
    let probe
    try {
      probe = probeColdImport(consumer.dir, s.specifier)
    } catch (error) {
      problems.push(
        `importing ${s.specifier} from dist in plain Node failed: ${error.stderr || error.message}`,
      )
      continue
    }
    const ms = median(Array.from({ length: TIMING_RUNS }, () => timeColdImport(consumer.dir, s.specifier)))
    rows.push({ s, probe, ms })

    const loaded = new Set(probe.entries)
    for (const edge of probe.direct) {
      const owner = packages().find((p) => p.name === ownerOf(edge.from))
      const declared = subpaths.some(
        (x) => x.pkg === owner.pkg && loaded.has(x.specifier) && x.declared.includes(edge.package),
      )
      const bundledBy = subpaths.find((x) => x.pkg === owner.pkg && x.bundled.includes(edge.package))
      if (bundledBy)
        problems.push(
          `${s.specifier} loads ${edge.package} (imported by ${relative(root, edge.from)}), which ${bundledBy.specifier} bundles into dist (agentCore.bundledIntoDist): rebuild, and check the noExternal of scripts/tsup-config.mjs`,
        )
      else if (!declared)
        problems.push(
          `${s.specifier} loads ${edge.package} (imported by ${relative(root, edge.from)}), which no subpath of ${owner.name} that it loads declares: add it to "agentCore": { "subpathDependencies": { "<subpath>": [...] } } in ${owner.dir}/package.json`,
        )
    }
  }
  // a plain Node ESM consumer: every subpath exports something
  const lines = subpaths.map(
    (s, i) =>
      `const m${i} = await import(${JSON.stringify(s.specifier)}); if (Object.keys(m${i}).length === 0) throw new Error(${JSON.stringify(`${s.specifier} exports nothing`)})`,
  )
  writeFileSync(join(consumer.dir, 'consumer.mjs'), `${lines.join('\n')}\n`)
  try {
    execFileSync(process.execPath, ['consumer.mjs'], { cwd: consumer.dir, encoding: 'utf8', stdio: 'pipe' })
  } catch (error) {
    problems.push(`plain Node ESM consumer failed: ${error.stderr || error.message}`)
  }
} finally {
  consumer.dispose()
}

const table = [
  '| import | modules (ESM + CJS) | third-party modules | third-party packages | cold import ms |',
  '| --- | ---: | ---: | --- | ---: |',
  ...rows.map(
    ({ s, probe, ms }) =>
      `| \`${s.specifier}\` | ${probe.esm + probe.cjs} (${probe.esm} + ${probe.cjs}) | ${probe.thirdPartyModules} | ${
        probe.thirdParty.length ? probe.thirdParty.join(', ') : 'none'
      } | ${ms.toFixed(1)} |`,
  ),
].join('\n')
console.log(
  `cold import of each subpath from dist (median of ${TIMING_RUNS} fresh processes, Node ${process.version}):`,
)
console.log(table)

const readme = readFileSync(README, 'utf8')
const start = readme.indexOf(TABLE_START)
const end = readme.indexOf(TABLE_END)
if (start < 0 || end < start) problems.push(`README.md lacks the ${TABLE_START} ... ${TABLE_END} markers`)
else if (process.argv.includes('--write-readme')) {
  writeFileSync(README, `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`)
  console.log('README.md: cold-import table rewritten')
} else {
  // milliseconds vary from run to run; the module columns must agree
  const strip = (text) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.replace(/\| [\d.]+ \|$/, ''))
      .join('\n')
  if (strip(readme.slice(start, end)) !== strip(table))
    notes.push(
      'the README cold-import table is out of date: run `pnpm check:package --write-readme` and commit it',
    )
}

for (const note of notes) console.log(`note: ${note}`)
if (problems.length) {
  console.error(`package check failed:\n- ${problems.join('\n- ')}`)
  process.exit(1)
}
console.log(
  `package check ok: publint clean; ${subpaths.length} subpaths load only declared third-party packages, kits import each other by public subpath only, a plain Node ESM consumer imports them all`,
)
