import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

/**
 * `pnpm test` (scripts/test.mjs) against small throwaway suites in a temp folder: its exit status and closing
 * line must tell the truth whatever vitest did, including crashing before it ran anything.
 */
const script = join(import.meta.dirname, 'test.mjs')
let dir: string
let report: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-core-test-runner-'))
  report = join(dir, 'report.json')
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    "export default { test: { globals: true, include: ['*.check.mjs'] } }\n",
  )
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Runs scripts/test.mjs on the temp folder; resolves with its exit code and output, never rejects. */
function runTests(...args: string[]): Promise<{ code: number; lastLine: string; output: string }> {
  const env: NodeJS.ProcessEnv = { AGENT_CORE_TEST_REPORT: report }
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('VITEST') && key !== 'NODE_OPTIONS' && key !== 'AGENT_CORE_TEST_REPORT')
      env[key] = value
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, '--root', dir, '--config', join(dir, 'vitest.config.mjs'), ...args],
      { env, cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => {
        const lines = stdout.trim().split('\n')
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          lastLine: lines[lines.length - 1] ?? '',
          output: `${stdout}\n${stderr}`,
        })
      },
    )
  })
}

const staleSuccess = JSON.stringify({
  success: true,
  numPassedTests: 999,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  numTotalTests: 999,
})

describe('pnpm test (scripts/test.mjs)', () => {
  it('passes a passing suite and closes with one summary line', async () => {
    writeFileSync(
      join(dir, 'a.check.mjs'),
      "test('one', () => expect(1).toBe(1))\ntest.skip('two', () => {})\n",
    )
    const result = await runTests()
    expect(result.lastLine).toBe('tests: 1 passed, 0 failed, 1 skipped')
    expect(result.code).toBe(0)
  })

  it('fails a failing suite', async () => {
    writeFileSync(join(dir, 'a.check.mjs'), "test('one', () => expect(1).toBe(2))\n")
    const result = await runTests()
    expect(result.lastLine).toBe('tests: 0 passed, 1 failed')
    expect(result.code).toBe(1)
  })

  it('fails when vitest crashes before running anything, whatever an earlier report said', async () => {
    writeFileSync(report, staleSuccess)
    const result = await runTests('--config', join(dir, 'missing.config.mjs'))
    expect(result.code).toBe(1)
    expect(result.lastLine).toMatch(/^tests: none ran; vitest exited with code \d+ before writing its report/)
    expect(result.output).not.toContain('999 passed')
    expect(existsSync(report)).toBe(false)
  })

  it('fails when vitest reports an error outside the tests even though every test passed', async () => {
    writeFileSync(
      join(dir, 'a.check.mjs'),
      "test('leaks', async () => { setTimeout(() => { throw new Error('late') }, 1); await new Promise((r) => setTimeout(r, 30)) })\n",
    )
    const result = await runTests()
    expect(result.lastLine).toMatch(/^tests: 1 passed, 0 failed; but vitest exited with code 1/)
    expect(result.code).toBe(1)
  })

  it('fails when no test ran', async () => {
    writeFileSync(join(dir, 'a.check.mjs'), "test.skip('skipped', () => {})\n")
    const result = await runTests()
    expect(result.code).toBe(1)
    expect(result.lastLine).toBe('tests: 0 passed, 0 failed, 1 skipped; no test ran')
  })
})
