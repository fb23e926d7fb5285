/**
 * Kills the worker with SIGKILL at random points (inside tools included), restarts it until the run is
 * done, and checks that each refund was paid exactly once, under the invocation id the run recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import { type AgentRunState, isAgentRunState } from '@agent-core/kits/loop'
import { afterEach, describe, expect, it } from 'vitest'

const WORKER = fileURLToPath(new URL('./main.ts', import.meta.url))
const children = new Set<ChildProcess>()

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

describe('a durable agent run survives SIGKILL at random points', () => {
  const seeds = [0, 1, 2, 3, 4, 5]
  for (const seed of seeds) {
    it(`seed ${seed}: every refund is paid once per invocation id, and the run finishes`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'durable-agent-'))
      dirs.push(dir)
      const dbPath = join(dir, 'tasks.db')
      const log = join(dir, 'executions.log')
      const next = random(seed)
      const points: string[] = []
      let finished: Run | undefined
      // A clean run prints 18 lines; each worker is killed after one of its first ten (a restarted worker
      // prints fewer), up to five times, then one is left to finish. Seed 0 kills right after the first
      // refund was paid: inside the tool, after its effect, before its result is saved.
      for (let attempt = 0; attempt < 8 && finished === undefined; attempt++) {
        const killAfter =
          attempt >= 5 ? undefined : seed === 0 && attempt === 0 ? 8 : 1 + Math.floor(next() * 10)
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
        refunds: [
          { orderId: 'A-1', amount: 30 },
          { orderId: 'A-2', amount: 50 },
          { orderId: 'A-3', amount: 70 },
        ],
      })

      const store = createSqliteDurableStore(dbPath)
      try {
        const checkpoint = (await store.load('refund-1')) as { status: string; state: AgentRunState }
        expect(checkpoint.status).toBe('completed')
        expect(isAgentRunState(checkpoint.state)).toBe(true)
        // The invocation id each refund was recorded under in the run's history...
        const rows = store.database
          .prepare('SELECT idempotency_key AS key, order_id AS orderId FROM refunds ORDER BY order_id')
          .all() as { key: string; orderId: string }[]
        expect(rows).toHaveLength(3)
        // ...is the only one any execution of that refund ever used: a restart re-entered it with its key.
        const executions = readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { orderId: string; invocationId: string })
        for (const row of rows) {
          const keys = new Set(executions.filter((e) => e.orderId === row.orderId).map((e) => e.invocationId))
          expect([...keys], `refund ${row.orderId} (kills at ${points.join(', ')})`).toEqual([row.key])
        }
        const tools = checkpoint.state.messages.filter((m) => m.role === 'tool')
        expect(tools.filter((m) => m.content.startsWith('refunded'))).toHaveLength(3)
      } finally {
        store.close()
      }
    }, 120_000)
  }
})
