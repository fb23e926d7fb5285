import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './testing/embedded.js'

const WORKERS = 8
const TASKS = 50
const STEPS = ['one', 'two', 'three']
const TABLE = 'race_checkpoints'
const repositoryRoot = fileURLToPath(new URL('../../../../../', import.meta.url))
const workerFile = fileURLToPath(new URL('./testing/worker.ts', import.meta.url))

let server: EmbeddedPostgresServer | undefined
let admin: pg.Pool
const children = new Set<ChildProcess>()

beforeAll(async () => {
  server = await startEmbeddedPostgres()
  admin = server.createPool({ max: 2 })
  await admin.query(`CREATE TABLE effects (
    task_id text NOT NULL, step_id text NOT NULL, worker text NOT NULL, PRIMARY KEY (task_id, step_id))`)
  await admin.query(`CREATE TABLE lock_log (
    seq bigserial PRIMARY KEY, task_id text NOT NULL, owner text NOT NULL, event text NOT NULL)`)
})

afterAll(async () => {
  // A worker still running after a failed test must not outlive it.
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await server?.stop()
})

interface WorkerOutcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

function startWorker(workerId: string, connectionString: string): Promise<WorkerOutcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agent-core/source', workerFile], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      DATABASE_URL: connectionString,
      DURABLE_TABLE: TABLE,
      WORKER_ID: workerId,
      TASK_COUNT: String(TASKS),
      CONCURRENCY: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  return new Promise((resolve) => {
    child.on('close', (code) => {
      children.delete(child)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('PostgreSQL store: eight worker processes racing on the same tasks', () => {
  it('completes every task, runs every step effect exactly once and never overlaps two holders', async () => {
    if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
    const connectionString = server.connectionString
    const outcomes = await Promise.all(
      Array.from({ length: WORKERS }, (_, index) => startWorker(`w${index}`, connectionString)),
    )

    // No crashes: every worker exits 0 and finished every task (completed ones return at once).
    for (const outcome of outcomes) {
      expect(outcome.stderr).toBe('')
      expect(outcome.code).toBe(0)
      expect(JSON.parse(outcome.stdout.trim())).toMatchObject({ finished: TASKS })
    }

    // Every task completed with every step applied once, in order.
    const checkpoints = await admin.query<{ task_id: string; checkpoint: string }>(
      `SELECT task_id, checkpoint FROM ${TABLE} ORDER BY task_id`,
    )
    expect(checkpoints.rows).toHaveLength(TASKS)
    for (const row of checkpoints.rows) {
      const checkpoint = JSON.parse(row.checkpoint)
      expect(checkpoint).toMatchObject({ status: 'completed', nextStepIndex: STEPS.length, attemptCount: 1 })
      expect(checkpoint.state).toEqual({ taskId: row.task_id, done: STEPS })
    }

    // Every step's effect ran exactly once (the primary key refuses a second run, which would crash a worker).
    const effects = await admin.query<{ count: string; distinct: string }>(
      "SELECT count(*) AS count, count(DISTINCT task_id || '/' || step_id) AS distinct FROM effects",
    )
    expect(Number(effects.rows[0]?.count)).toBe(TASKS * STEPS.length)
    expect(Number(effects.rows[0]?.distinct)).toBe(TASKS * STEPS.length)

    // Leases never overlap: in the global order of the log, each task alternates enter/exit of one owner.
    const log = await admin.query<{ task_id: string; owner: string; event: string }>(
      'SELECT task_id, owner, event FROM lock_log ORDER BY seq',
    )
    expect(log.rows).toHaveLength(WORKERS * TASKS * 2)
    const holders = new Map<string, string>()
    const overlaps: string[] = []
    for (const { task_id: taskId, owner, event } of log.rows) {
      const holder = holders.get(taskId)
      if (event === 'enter') {
        if (holder !== undefined) overlaps.push(`${owner} entered ${taskId} while ${holder} held it`)
        holders.set(taskId, owner)
      } else {
        if (holder !== owner) overlaps.push(`${owner} left ${taskId} held by ${holder}`)
        holders.delete(taskId)
      }
    }
    expect(overlaps).toEqual([])
    expect(holders.size).toBe(0)

    // Every lock went away with its holder.
    const locks = await admin.query<{ count: string }>(
      "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory'",
    )
    expect(Number(locks.rows[0]?.count)).toBe(0)
  }, 180_000)
})
