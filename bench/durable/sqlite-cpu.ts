/**
 * CPU per step of the durable runner on SQLite with `synchronous: 'normal'` (so fsync does not dominate),
 * against the bare statements: the same checkpoint writes (one INSERT and one version-checked UPDATE per
 * step, bodies serialized ahead) run as prepared better-sqlite3 statements on a table of the same shape, no
 * lease, no runner. "Over" is the runner's CPU per step minus the bare statements' CPU per step: what the
 * lease, the runner's checks and serialization cost. Also prints the runner's writes per step
 * (`total_changes()`). Rounds alternate runner and bare so that load spreads over both.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CheckpointV2, defineDurableTask } from '@agent-core/kits/durable'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'

const STEPS = 3

/** One round's figures, in microseconds of CPU (user + system) per step. */
export interface CpuRound {
  readonly runnerUs: number
  readonly bareUs: number
  readonly writesPerStep: number
}

function cpuUs(): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

function checkpoint(n: number, nextStepIndex: number, status: string): CheckpointV2<{ readonly n: number }> {
  return {
    version: 2,
    definitionId: 'bench-noop',
    revision: '1',
    nextStepIndex,
    attemptCount: 1,
    maxAttempts: 3,
    deadlineAtMs: null,
    status: status as CheckpointV2['status'],
    state: { n },
  }
}

export async function benchSqliteCpu(tasks = 2_000, rounds = 3): Promise<CpuRound[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-durable-cpu-'))
  const store = createSqliteDurableStore(join(dir, 'tasks.db'), { synchronous: 'normal' })
  try {
    const db = store.database
    const totalChanges = db.prepare<[], { n: number }>('SELECT total_changes() AS n')
    db.exec(
      'CREATE TABLE bare (task_id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, updated_at_ms INTEGER NOT NULL)',
    )
    const insert = db.prepare('INSERT INTO bare (task_id, version, body, updated_at_ms) VALUES (?, 1, ?, ?)')
    const update = db.prepare(
      'UPDATE bare SET version = version + 1, body = ?, updated_at_ms = ? WHERE task_id = ? AND version = ?',
    )
    const task = defineDurableTask({
      id: 'bench-noop',
      revision: '1',
      isState: (value): value is { readonly n: number } =>
        typeof value === 'object' && value !== null && typeof (value as { n?: unknown }).n === 'number',
      steps: Array.from({ length: STEPS }, (_, index) => ({
        id: `step-${index}`,
        replayPolicy: 'safe' as const,
        run: (state: { readonly n: number }) => state,
      })),
    })
    for (let i = 0; i < 200; i++) await task.run({ taskId: `warm-${i}`, store, input: { n: i } })
    const bodies = Array.from({ length: STEPS + 1 }, (_, step) =>
      JSON.stringify(checkpoint(1, step, step === STEPS ? 'completed' : 'running')),
    )
    const results: CpuRound[] = []
    let next = 0
    for (let round = 0; round < rounds; round++) {
      const changesBefore = totalChanges.get()?.n ?? 0
      const runnerStart = cpuUs()
      for (let i = 0; i < tasks; i++) await task.run({ taskId: `task-${next + i}`, store, input: { n: i } })
      const runnerUs = cpuUs() - runnerStart
      const writes = (totalChanges.get()?.n ?? 0) - changesBefore
      const bareStart = cpuUs()
      for (let i = 0; i < tasks; i++) {
        const id = `bare-${next + i}`
        insert.run(id, bodies[0], Date.now())
        for (let step = 1; step <= STEPS; step++) update.run(bodies[step], Date.now(), id, step)
      }
      const bareUs = cpuUs() - bareStart
      next += tasks
      const steps = tasks * STEPS
      results.push({ runnerUs: runnerUs / steps, bareUs: bareUs / steps, writesPerStep: writes / steps })
    }
    return results
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Prints the rounds as ranges. */
export function printCpuRounds(rounds: readonly CpuRound[]): void {
  const range = (values: number[], digits = 1) =>
    `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`
  const over = rounds.map((r) => r.runnerUs - r.bareUs)
  console.log(`SQLite (WAL, synchronous=NORMAL): CPU per step over ${rounds.length} rounds (min-max)`)
  console.log(`  runner CPU/step         ${range(rounds.map((r) => r.runnerUs))} µs`)
  console.log(`  bare statements/step    ${range(rounds.map((r) => r.bareUs))} µs`)
  console.log(`  over the bare           ${range(over)} µs`)
  console.log(
    `  writes/step             ${range(
      rounds.map((r) => r.writesPerStep),
      2,
    )}`,
  )
}
