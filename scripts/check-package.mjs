/**
 * Package hygiene, after `pnpm build`:
 * 1. publint on every package;
 * 2. each public subpath, bundled from its dist entry, reaches no heavy optional dependency it does not own
 *    (importing `@agent-core/kits/search` must not load better-sqlite3, pg or openai), and from source it
 *    reaches no other kit's folder except through that kit's public subpath;
 * 3. a plain Node ESM script in a folder outside the workspace imports every subpath from dist.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { packages } from './subpaths.mjs'

const root = join(import.meta.dirname, '..')
const problems = []

// 1. publint
for (const p of packages()) {
  const dir = join(root, p.dir)
  const { messages } = await publint({ pkgDir: dir, level: 'warning', strict: true })
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  for (const m of messages) problems.push(`publint ${p.name}: ${formatMessage(m, pkg) ?? m.code}`)
}

// 2. isolation of heavy dependencies and of kits
const HEAVY = {
  'better-sqlite3': ['./durable/sqlite'],
  pg: ['./durable/postgres'],
  openai: ['./openai'],
  minisearch: ['./search'],
  '@opentelemetry/api': ['./otel'],
  '@modelcontextprotocol/sdk': ['./mcp'],
}
for (const p of packages()) {
  for (const subpath of p.subpaths) {
    const stem = subpath === '.' ? 'index' : `${subpath.slice(2)}/index`
    const label = subpath === '.' ? p.name : `${p.name}/${subpath.slice(2)}`
    const result = await build({
      entryPoints: [join(root, p.dir, 'src', `${stem}.ts`)],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      conditions: ['@agent-core/source'],
      external: Object.keys(HEAVY).concat(['ajv', 'ajv-formats', 'playwright-core', '@agent-core/*']),
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs)
    const outputs = Object.values(result.metafile.outputs)
    const externals = new Set(outputs.flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)))
    for (const [dep, owners] of Object.entries(HEAVY)) {
      const owned = p.pkg === 'kits' && owners.some((o) => subpath === o || subpath.startsWith(`${o}/`))
      if ([...externals].some((e) => e === dep || e.startsWith(`${dep}/`)) && !owned)
        problems.push(`${label} loads ${dep}, which only ${owners.join(', ')} may load`)
    }
    if (p.pkg === 'kits') {
      const kit = subpath.slice(2)
      for (const input of inputs) {
        const m = /packages\/kits\/src\/(.+)\/[^/]+$/.exec(input)
        if (!m) continue
        // a variant (durable/sqlite) may use its parent kit's files; other kits only by public subpath
        const top = kit.split('/')[0]
        if (m[1] !== top && !m[1].startsWith(`${top}/`))
          problems.push(`${label} reaches into ${input}; import the other kit by its public subpath instead`)
      }
    }
    if (p.pkg === 'mock' && subpath === '.') {
      for (const input of inputs)
        if (/src\/node\//.test(input)) problems.push(`${label} (platform neutral) loads ${input}`)
      const nodeBuiltins = [...externals].filter((e) => e.startsWith('node:'))
      if (nodeBuiltins.length)
        problems.push(`${label} must run in browsers but imports ${nodeBuiltins.join(', ')}`)
    }
  }
}

// 3. plain Node ESM from outside the workspace, against dist
const outside = mkdtempSync(join(tmpdir(), 'agent-core-consumer-'))
try {
  mkdirSync(join(outside, 'node_modules/@agent-core'), { recursive: true })
  for (const p of packages()) symlinkSync(join(root, p.dir), join(outside, 'node_modules', p.name), 'dir')
  const lines = packages().flatMap((p) =>
    p.subpaths.map((s, i) => {
      const spec = s === '.' ? p.name : `${p.name}/${s.slice(2)}`
      return `const m_${p.pkg}_${i} = await import(${JSON.stringify(spec)}); if (Object.keys(m_${p.pkg}_${i}).length === 0) throw new Error(${JSON.stringify(`${spec} exports nothing`)})`
    }),
  )
  writeFileSync(join(outside, 'package.json'), '{"type":"module"}')
  writeFileSync(
    join(outside, 'consumer.mjs'),
    `${lines.join('\n')}\nconsole.log('plain Node ESM consumer imported ${lines.length} subpaths')\n`,
  )
  console.log(execFileSync(process.execPath, ['consumer.mjs'], { cwd: outside, encoding: 'utf8' }).trim())
} catch (error) {
  problems.push(`plain Node ESM consumer failed: ${error.stderr || error.message}`)
} finally {
  rmSync(outside, { recursive: true, force: true })
}

if (problems.length) {
  console.error(`package check failed:\n- ${problems.join('\n- ')}`)
  process.exit(1)
}
console.log(
  'package check ok: publint clean, heavy dependencies isolated, kits import each other by public subpath only',
)
