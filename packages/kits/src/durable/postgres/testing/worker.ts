/**
 * One worker process of the multi-process race test (`workers.test.ts`). Run as
 * `node --import tsx --conditions=@agent-core/source worker.ts` with the environment:
 *
 * - `DATABASE_URL`: the shared database; `DURABLE_TABLE`: the checkpoint table;
 * - `WORKER_ID`: this worker's name; `TASK_COUNT`: how many tasks (`task-0` ...) all workers race on;
 * - `CONCURRENCY`: how many tasks this worker runs at once.
 *
 * Every worker runs every task. Each step's effect is an insert into `effects`, whose primary key makes a
 * second execution of the same step fail (and the worker exit non-zero). Every lease is logged in `lock_log`
 * (`enter` right after the lock is granted, `exit` right before it is released) with a global sequence, so
 * the test can prove no two workers ever held one task at the same time. Prints one JSON summary line.
 */
import { defineDurableTask } from '@agent-core/kits/durable'
import pg from 'pg'
import type { DurableLease, DurableStore } from '../../store.js'
import { createPostgresDurableStore } from '../index.js'

interface Progress {
  readonly taskId: string
  readonly done: readonly string[]
}

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`worker: ${name} is not set`)
  return value
}

const workerId = env('WORKER_ID')
const taskCount = Number(env('TASK_COUNT'))
const concurrency = Number(env('CONCURRENCY'))
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: concurrency * 2 + 2 })
pool.on('error', () => {})
const store = createPostgresDurableStore({ pool, tableName: env('DURABLE_TABLE') })

/** The store, with every lease logged to `lock_log`. */
const logged: DurableStore = {
  load: (taskId) => store.load(taskId),
  save: (taskId, checkpoint) => store.save(taskId, checkpoint),
  fencing: store.fencing,
  exclusive: (taskId, operation, options) =>
    store.exclusive(
      taskId,
      async (lease: DurableLease) => {
        await pool.query("INSERT INTO lock_log (task_id, owner, event) VALUES ($1, $2, 'enter')", [
          taskId,
          lease.ownerId,
        ])
        try {
          return await operation(lease)
        } finally {
          await pool.query("INSERT INTO lock_log (task_id, owner, event) VALUES ($1, $2, 'exit')", [
            taskId,
            lease.ownerId,
          ])
        }
      },
      options,
    ),
}

const step = (id: string) => ({
  id,
  replayPolicy: 'safe' as const,
  async run(state: Progress): Promise<Progress> {
    await pool.query('INSERT INTO effects (task_id, step_id, worker) VALUES ($1, $2, $3)', [
      state.taskId,
      id,
      workerId,
    ])
    // Give other workers a chance to interleave.
    await new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)))
    return { ...state, done: [...state.done, id] }
  },
})

const task = defineDurableTask<Progress>({
  id: 'race',
  revision: '1',
  isState: (value): value is Progress =>
    typeof value === 'object' && value !== null && Array.isArray((value as Progress).done),
  steps: [step('one'), step('two'), step('three')],
})

const order = Array.from({ length: taskCount }, (_, index) => `task-${index}`)
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1))
  ;[order[i], order[j]] = [order[j] as string, order[i] as string]
}

let finished = 0
async function lane(): Promise<void> {
  for (let taskId = order.shift(); taskId !== undefined; taskId = order.shift()) {
    const state = await task.run({ taskId, store: logged, input: { taskId, done: [] } })
    if (state.done.join() !== 'one,two,three')
      throw new Error(`task ${taskId} ended with ${state.done.join()}`)
    finished += 1
  }
}

try {
  await Promise.all(Array.from({ length: concurrency }, lane))
  process.stdout.write(`${JSON.stringify({ workerId, finished })}\n`)
} catch (error) {
  process.stderr.write(
    `worker ${workerId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  )
  process.exitCode = 1
} finally {
  await pool.end()
}
