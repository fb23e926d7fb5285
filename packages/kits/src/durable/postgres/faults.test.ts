import { ConflictError } from '@agent-core/core'
import { type DurableStore, defineDurableTask } from '@agent-core/kits/durable'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DurableStoreError } from '../store-error.js'
import { createPostgresDurableStore } from './index.js'
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './testing/embedded.js'

let server: EmbeddedPostgresServer | undefined
let admin: pg.Pool
let tables = 0

function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

function freshTable(): string {
  tables += 1
  return `faults_${tables}`
}

beforeAll(async () => {
  server = await startEmbeddedPostgres()
  admin = server.createPool({ max: 3 })
})

afterAll(async () => {
  await server?.stop()
})

interface Ledger {
  readonly entries: readonly string[]
  readonly total: number
}

const isLedger = (value: unknown): value is Ledger =>
  typeof value === 'object' && value !== null && Array.isArray((value as Ledger).entries)

/** A three-step task; `pause` lets a test hold a run inside a step. */
function ledgerTask(pause?: (stepId: string) => Promise<void>) {
  const step = (id: string, amount: number) => ({
    id,
    replayPolicy: 'safe' as const,
    async run(state: Ledger): Promise<Ledger> {
      await pause?.(id)
      return { entries: [...state.entries, id], total: state.total * 2 + amount }
    },
  })
  return defineDurableTask<Ledger>(
    {
      id: 'ledger',
      revision: '1',
      isState: isLedger,
      steps: [step('open', 1), step('post', 2), step('close', 3)],
    },
    { maxAttempts: 20 },
  )
}

async function storedCheckpoint(
  table: string,
  taskId: string,
): Promise<{ checkpoint: unknown; version: number }> {
  const result = await admin.query<{ checkpoint: string; version: string }>(
    `SELECT checkpoint, version FROM "${table}" WHERE task_id = $1`,
    [taskId],
  )
  const row = result.rows[0]
  if (row === undefined) throw new Error(`task ${taskId} has no row`)
  return { checkpoint: JSON.parse(row.checkpoint), version: Number(row.version) }
}

describe('PostgreSQL store: a superseded owner', () => {
  it('cannot save over the newer checkpoint of the worker that took over: its save is refused and its run throws', async () => {
    const tableName = freshTable()
    const workerA = createPostgresDurableStore({ pool: running().createPool({ max: 2 }), tableName })
    const workerB = createPostgresDurableStore({ pool: running().createPool({ max: 2 }), tableName })

    let pausedInPost!: () => void
    const aPaused = new Promise<void>((resolve) => {
      pausedInPost = resolve
    })
    let resumeA!: () => void
    const aResumes = new Promise<void>((resolve) => {
      resumeA = resolve
    })
    const aTask = ledgerTask(async (stepId) => {
      if (stepId !== 'post') return
      pausedInPost()
      await aResumes
    })
    const aRun = aTask.run({ taskId: 'invoice', store: workerA, input: { entries: [], total: 0 } })
    const aOutcome = aRun.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    await aPaused
    const beforeTakeover = await storedCheckpoint(tableName, 'invoice')

    // A stalls past its lock: its session dies (as after a network partition or an idle timeout), and the
    // server drops the advisory lock with it.
    const holders = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted",
    )
    expect(holders.rows).toHaveLength(1)
    await admin.query('SELECT pg_terminate_backend($1, 10000)', [holders.rows[0]?.pid])

    // B takes the task over and finishes it. (A is resumed whatever happens, so no run is left hanging.)
    let afterTakeover: Awaited<ReturnType<typeof storedCheckpoint>>
    try {
      const bState = await ledgerTask().run({ taskId: 'invoice', store: workerB })
      expect(bState).toEqual({ entries: ['open', 'post', 'close'], total: 11 })
      afterTakeover = await storedCheckpoint(tableName, 'invoice')
      expect(afterTakeover.checkpoint).toMatchObject({ status: 'completed', nextStepIndex: 3 })
    } finally {
      // A wakes up with its stale view and tries to save step "post".
      resumeA()
    }
    // Its save is refused, and the run throws.
    const outcome = await aOutcome
    expect('error' in outcome && ConflictError.isInstance(outcome.error)).toBe(true)
    expect(await storedCheckpoint(tableName, 'invoice')).toEqual(afterTakeover)

    // The version column refuses A's stale token too, even on a fresh connection outside any lease.
    const stale = workerA.fencing.save('invoice', beforeTakeover.checkpoint as never, {
      expectedVersion: beforeTakeover.version,
    })
    await expect(stale).rejects.toSatisfy((error) => ConflictError.isInstance(error))
    expect(await storedCheckpoint(tableName, 'invoice')).toEqual(afterTakeover)
  })
})

/**
 * A pool whose clients fail once, at the `failAt`-th store query: `before` kills the server session before
 * the query is sent (nothing happens), `after` kills it after the query ran but before the reply reaches the
 * store (the write, if any, committed; the store cannot know).
 */
class FaultyPool extends pg.Pool {
  queries = 0
  failed = false
  readonly failAt: number
  readonly mode: 'before' | 'after'
  readonly #wrapped = new WeakSet<pg.PoolClient>()

  constructor(config: pg.PoolConfig, failAt: number, mode: 'before' | 'after') {
    super(config)
    this.failAt = failAt
    this.mode = mode
    this.on('error', () => {})
  }

  /** The store checks clients out with the promise form only; every client it gets is wrapped. */
  override connect(): Promise<pg.PoolClient> {
    return super.connect().then((client) => this.#wrap(client))
  }

  async #wrap(client: pg.PoolClient): Promise<pg.PoolClient> {
    if (this.#wrapped.has(client)) return client
    this.#wrapped.add(client)
    const original = client.query.bind(client) as (
      text: string,
      values?: unknown[],
    ) => Promise<pg.QueryResult>
    const pid = (await original('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number
    const kill = () => admin.query('SELECT pg_terminate_backend($1, 10000)', [pid])
    const faulty = async (text: string, values?: unknown[]) => {
      this.queries += 1
      if (this.failed || this.queries !== this.failAt) return original(text, values)
      this.failed = true
      if (this.mode === 'before') {
        await kill()
        return original(text, values)
      }
      await original(text, values)
      await kill()
      throw new Error('Connection terminated unexpectedly')
    }
    client.query = faulty as typeof client.query
    return client
  }
}

/** Runs the task until it completes, retrying after the failures a lost connection causes. */
async function runWithRetries(
  store: DurableStore,
  taskId: string,
): Promise<{ state: Ledger; failures: number }> {
  const task = ledgerTask()
  for (let failures = 0; ; failures++) {
    try {
      return { state: await task.run({ taskId, store, input: { entries: [], total: 0 } }), failures }
    } catch (error) {
      const retryable =
        ConflictError.isInstance(error) ||
        (DurableStoreError.isInstance(error) && (error as DurableStoreError).details.retryable === true)
      if (!retryable || failures >= 5) throw error
    }
  }
}

describe('PostgreSQL store: connection resets at every boundary', () => {
  it('ends, after retries, in the same state and checkpoint as the fault-free run', async () => {
    const reference = new FaultyPool({ connectionString: running().connectionString, max: 3 }, 0, 'before')
    const referenceTable = freshTable()
    const referenceStore = createPostgresDurableStore({ pool: reference, tableName: referenceTable })
    const expected = await runWithRetries(referenceStore, 'ledger')
    expect(expected).toEqual({ state: { entries: ['open', 'post', 'close'], total: 11 }, failures: 0 })
    const expectedCheckpoint = (await storedCheckpoint(referenceTable, 'ledger')).checkpoint
    const boundaries = reference.queries
    await reference.end()
    // The lock, schema creation, the load, four saves and the unlock: every query is a boundary.
    expect(boundaries).toBeGreaterThanOrEqual(9)

    let injected = 0
    let runsThatFailed = 0
    for (const mode of ['before', 'after'] as const) {
      for (let failAt = 1; failAt <= boundaries; failAt++) {
        const pool = new FaultyPool({ connectionString: running().connectionString, max: 3 }, failAt, mode)
        const tableName = freshTable()
        const store = createPostgresDurableStore({ pool, tableName })
        try {
          const outcome = await runWithRetries(store, 'ledger')
          expect(pool.failed).toBe(true)
          injected += 1
          if (outcome.failures > 0) runsThatFailed += 1
          expect(outcome.state).toEqual(expected.state)
          const { checkpoint } = await storedCheckpoint(tableName, 'ledger')
          // Retried runs count their attempts; everything else matches the fault-free checkpoint.
          expect({ ...(checkpoint as object), attemptCount: 0 }).toEqual({
            ...(expectedCheckpoint as object),
            attemptCount: 0,
          })
        } finally {
          await pool.end()
        }
      }
    }
    expect(injected).toBe(boundaries * 2)
    // Most faults surface as a failed run that the retry recovers from (a lost unlock, or the lost reply of
    // the last save, which the runner confirms by reading back, do not fail the run at all).
    expect(runsThatFailed).toBeGreaterThanOrEqual(boundaries)
    const locks = await admin.query<{ count: string }>(
      "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory'",
    )
    expect(Number(locks.rows[0]?.count)).toBe(0)
  }, 120_000)
})
