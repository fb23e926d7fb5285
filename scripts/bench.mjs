/**
 * Runs the benchmarks under bench/: every `bench/<name>/main.ts`, or only those named on the command line
 * (`pnpm bench search durable`). Each benchmark prints its own ratios; this only runs them in turn from
 * source (tsx, with the `@agent-core/source` condition) and fails when one fails.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const wanted = process.argv.slice(2)
const names = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'bench', d.name, 'main.ts')))
  .map((d) => d.name)
  .filter((n) => wanted.length === 0 || wanted.includes(n))
if (wanted.length && names.length !== wanted.length) {
  console.error(`unknown benchmark; available: ${readdirSync(join(root, 'bench')).join(', ')}`)
  process.exit(2)
}
let failed = 0
for (const name of names) {
  console.log(`\n=== bench/${name} ===`)
  const run = spawnSync(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', '--expose-gc', join('bench', name, 'main.ts')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  )
  if (run.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
