/**
 * `pnpm test`: runs vitest (arguments are passed on) and closes with one plain line,
 * `tests: N passed, N failed[, N skipped]`, read from vitest's JSON report.
 *
 * The run fails when vitest itself exits non-zero (a crash before any test ran, an unhandled error outside
 * a test, a type error), when it wrote no report, when the report counts a failure, or when no test ran (all skipped or none found).
 * The report of an earlier run is deleted first, so a crash can never be summarized from stale numbers.
 * `AGENT_CORE_TEST_REPORT` moves the report (default `.tmp/vitest-report.json`).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

const root = join(import.meta.dirname, '..')
const report = resolve(root, process.env.AGENT_CORE_TEST_REPORT ?? '.tmp/vitest-report.json')
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')

rmSync(report, { force: true })
mkdirSync(dirname(report), { recursive: true })
const run = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: process.cwd(), stdio: 'inherit' },
)
const vitestFailed = run.status !== 0
const exit = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.status}`

if (!existsSync(report)) {
  console.log(`tests: none ran; vitest ${exit} before writing its report (see its output above)`)
  process.exit(1)
}
const result = JSON.parse(readFileSync(report, 'utf8'))
const skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0)
const noneRan = result.numPassedTests === 0 && result.numFailedTests === 0
const reportFailed = result.success === false || result.numFailedTests > 0 || noneRan
console.log(
  `tests: ${result.numPassedTests} passed, ${result.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}${
    noneRan
      ? '; no test ran'
      : vitestFailed && !reportFailed
        ? `; but vitest ${exit} (errors outside the tests, see above)`
        : ''
  }`,
)
process.exit(vitestFailed || reportFailed ? 1 : 0)
