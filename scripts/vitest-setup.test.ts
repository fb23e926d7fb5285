/**
 * The suite-wide setup (scripts/vitest-setup.ts) turns an unhandled rejection into a failure of the test
 * it surfaced in. Checked by running vitest on a throwaway project that uses the same setup file.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'agent-core-unhandled-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const FIXTURE = `
test('leaks a rejection', async () => {
  Promise.reject(new Error('nobody awaited me'))
  await new Promise((resolve) => setTimeout(resolve, 20))
})
test('handles its rejection late', async () => {
  const late = Promise.reject(new Error('handled late'))
  await new Promise((resolve) => setTimeout(resolve, 20))
  await late.catch(() => {})
})
test('is clean', () => {
  expect(1).toBe(1)
})
`

interface JsonReport {
  readonly testResults: readonly {
    readonly assertionResults: readonly {
      readonly title: string
      readonly status: string
      readonly failureMessages: readonly string[]
    }[]
  }[]
}

it('fails exactly the test during which a rejection went unhandled', async () => {
  writeFileSync(join(dir, 'fixture.test.mjs'), FIXTURE)
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { globals: true, include: ['fixture.test.mjs'], setupFiles: [${JSON.stringify(
      join(root, 'scripts/vitest-setup.ts'),
    )}] } }\n`,
  )
  const output = join(dir, 'report.json')
  await promisify(execFile)(
    process.execPath,
    [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--reporter=json',
      `--outputFile=${output}`,
    ],
    { cwd: dir, env: { ...process.env, CI: '' } },
  ).catch((error: unknown) => error)
  const report = JSON.parse(readFileSync(output, 'utf8')) as JsonReport
  const results = report.testResults.flatMap((file) => file.assertionResults)
  expect(results.map((r) => [r.title, r.status])).toEqual([
    ['leaks a rejection', 'failed'],
    ['handles its rejection late', 'passed'],
    ['is clean', 'passed'],
  ])
  expect(results[0]?.failureMessages.join('\n')).toMatch(/unhandled promise rejection.*nobody awaited me/)
})
