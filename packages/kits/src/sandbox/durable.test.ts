/**
 * A durable agent run (the loop's agentRunStep on SQLite) whose code tool saves its progress: the worker is
 * killed with SIGKILL at random points, inside the script's host calls included, and restarted until the
 * run is done. Each charge is paid once, under one invocation id, however often the code call was re-entered.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { killChildren, startChild } from '../testing/child-process.js'
import { seededRandom } from '../testing/seeded-random.js'

const WORKER = fileURLToPath(new URL('./testing/durable-worker.ts', import.meta.url))
const dirs: string[] = []

afterEach(async () => {
  await killChildren()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

interface Run {
  readonly lines: Record<string, unknown>[]
  readonly killed: boolean
  readonly code: number | null
  readonly stderr: string
}

/** Runs the worker; kills it with SIGKILL right after its `killAfter`-th line (when given). */
async function runWorker(dbPath: string, log: string, killAfter: number | undefined): Promise<Run> {
  const lines: Record<string, unknown>[] = []
  const { code, signal, stderr } = await startChild(WORKER, {
    args: [dbPath, log],
    onLine: (text, child) => {
      lines.push(JSON.parse(text) as Record<string, unknown>)
      if (killAfter !== undefined && lines.length === killAfter) child.kill('SIGKILL')
    },
  }).exit
  return { lines, killed: signal === 'SIGKILL', code, stderr }
}

describe('a durable agent run re-enters its code call after SIGKILL without repeating a charge', () => {
  for (const seed of [0, 1, 2]) {
    it(`seed ${seed}: every charge is paid once, under one invocation id, and the run finishes`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-durable-'))
      dirs.push(dir)
      const dbPath = join(dir, 'tasks.db')
      const log = join(dir, 'executions.log')
      writeFileSync(log, '')
      const next = seededRandom(seed)
      const points: string[] = []
      let finished: Run | undefined
      // A clean run prints about 20 lines. Seed 0 kills right after the first charge was paid (inside the
      // host call, after its effect, before the script saw its result); the others at random lines.
      for (let attempt = 0; attempt < 8 && finished === undefined; attempt++) {
        const killAfter =
          attempt >= 4 ? undefined : seed === 0 && attempt === 0 ? 5 : 2 + Math.floor(next() * 14)
        const run = await runWorker(dbPath, log, killAfter)
        if (run.killed) {
          points.push(String(run.lines.at(-1)?.event))
          continue
        }
        expect(run.code, run.stderr).toBe(0)
        finished = run
      }
      expect(finished, `the run never finished (kills at ${points.join(', ')})`).toBeDefined()
      const done = finished!.lines.at(-1)!
      expect(done).toMatchObject({
        event: 'done',
        reason: 'final',
        rows: [
          { card: 'amex', amount: 50 },
          { card: 'visa', amount: 30 },
          { card: 'visa', amount: 70 },
        ],
      })
      expect(String(done.text)).toContain('charged 70 to visa')
      // However often a charge ran, it always ran with the same invocation id (its idempotency key).
      const executions = readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { card: string; amount: number; invocationId: string })
      for (const charge of ['visa:30', 'amex:50', 'visa:70']) {
        const keys = new Set(
          executions.filter((e) => `${e.card}:${e.amount}` === charge).map((e) => e.invocationId),
        )
        expect(keys.size, `${charge} (kills at ${points.join(', ')})`).toBe(1)
      }
      // Seed 0 killed the worker after the first charge was paid and before its result was saved: the
      // re-entered code call ran that charge again, with the same key, and replayed nothing else.
      if (seed === 0) expect(executions.filter((e) => e.card === 'visa' && e.amount === 30)).toHaveLength(2)
    }, 120_000)
  }
})
