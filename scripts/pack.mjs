/**
 * `pnpm pack:all`: builds the packages, then writes one installable tarball per package (core, kits, mock)
 * with `pnpm pack`, which rewrites `workspace:*` dependencies to the packages' versions. Tarballs go to
 * `packs/` (or `--out <dir>`); the script checks that no `workspace:` range survived and prints how to
 * install them into an app with npm or pnpm (README, "Use it in your app").
 *
 * `--no-build` packs the current `dist` as it is.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { packages } from './subpaths.mjs'

const root = join(import.meta.dirname, '..')
const args = process.argv.slice(2)
const outAt = args.indexOf('--out')
const out = resolve(outAt >= 0 && args[outAt + 1] ? args[outAt + 1] : join(root, 'packs'))

/** Runs pnpm: the one running this script (`pnpm pack:all`), else pnpm 9 through npx. */
function pnpm(pnpmArgs, cwd) {
  const execpath = process.env.npm_execpath
  const [command, prefix] =
    execpath && /pnpm/.test(execpath) ? [process.execPath, [execpath]] : ['npx', ['-y', 'pnpm@9']]
  return execFileSync(command, [...prefix, ...pnpmArgs], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
}

if (!args.includes('--no-build')) {
  console.log('building the packages...')
  pnpm(['-r', '--filter', './packages/*', 'run', 'build'], root)
}

mkdirSync(out, { recursive: true })
const tarballs = []
for (const p of packages()) {
  const dir = join(root, p.dir)
  if (!existsSync(join(dir, 'dist'))) throw new Error(`${p.dir}/dist is missing: run without --no-build`)
  const prefix = `${p.name.slice(1).replace('/', '-')}-`
  for (const old of readdirSync(out))
    if (old.startsWith(prefix) && old.endsWith('.tgz')) rmSync(join(out, old))
  const written = pnpm(['pack', '--pack-destination', out], dir).trim().split('\n').at(-1)
  if (!written?.endsWith('.tgz') || !existsSync(written))
    throw new Error(`pnpm pack wrote no tarball for ${p.name}`)
  const manifest = execFileSync('tar', ['-xzOf', written, 'package/package.json'], { encoding: 'utf8' })
  if (manifest.includes('workspace:')) throw new Error(`${written} still has a workspace: dependency range`)
  tarballs.push(written)
}

const shown = tarballs.map((t) => relative(process.cwd(), t) || t)
console.log(`\nwrote ${tarballs.length} tarballs to ${out}:\n${shown.map((t) => `  ${t}`).join('\n')}`)
console.log(`\nnpm, in your app (all three in one command):\n  npm install ${tarballs.join(' ')}`)
const files = Object.fromEntries(packages().map((p, i) => [p.name, `file:${tarballs[i]}`]))
console.log(
  `\npnpm, in your app's package.json (the overrides make the packages' references to each other use the tarballs too), then pnpm install:\n${JSON.stringify({ dependencies: files, pnpm: { overrides: files } }, null, 2)}`,
)
