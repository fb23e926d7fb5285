/**
 * A durable agent run (the loop's agentRunStep on SQLite) whose code tool saves its progress: the worker is
 * killed with SIGKILL at random points, inside the script's host calls included, and restarted until the
 * run is done. Each charge is paid once, under one invocation id, however often the code call was re-entered.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const WORKER = fileURLToPath(new URL('./testing/durable-worker.ts', import.meta.url))
const children = new Set<ChildProcess>()
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

interface Run {
  readonly lines: Record<string, unknown>[]
  readonly killed: boolean
  readonly code: number | null
  readonly stderr: string
}

/** Runs the worker; kills it with SIGKILL right after its `killAfter`-th line (when given). */
function runWorker(dbPath: string, log: string, killAfter: number | undefined): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', WORKER, dbPath, log],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.add(child)
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>)
    if (killAfter !== undefined && lines.length === killAfter) child.kill('SIGKILL')
  })
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child)
      resolve({ lines, killed: signal === 'SIGKILL', code, stderr })
    })
  })
}

/** A small seeded generator, so a failing sequence of kills can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('a durable agent run re-enters its code call after SIGKILL without repeating a charge', () => {
  for (const seed of [0, 1, 2]) {
    it(`seed ${seed}: every charge is paid once, under one invocation id, and the run finishes`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-durable-'))
      dirs.push(dir)
      const dbPath = join(dir, 'tasks.db')
      const log = join(dir, 'executions.log')
      writeFileSync(log, '')
      const next = random(seed)
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
