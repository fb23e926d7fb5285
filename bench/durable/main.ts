/**
 * `pnpm bench durable`: steps per second of a 3-step no-op durable task per store, the physical writes
 * per step, and the runner's write rate against the same store doing plain writes in the same run; for
 * SQLite also the CPU per step over the bare statements with synchronous=NORMAL (`sqlite-cpu.ts`).
 *
 * Sections: SQLite (`sqlite-section.ts`) and, when present, PostgreSQL (`postgres.ts`, which starts an
 * embedded server). Each section calls `benchDurableStore(name, factory)` from `durable-bench.ts`.
 * `DURABLE_BENCH_STORES=sqlite,postgres` picks sections (default: all); `DURABLE_BENCH_TASKS` sets the
 * task count (default 2000).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { printResult } from './durable-bench.js'
import { benchSqliteCpu, printCpuRounds } from './sqlite-cpu.js'
import { benchSqlite } from './sqlite-section.js'

const tasks = Number(process.env.DURABLE_BENCH_TASKS ?? 2_000)
const wanted = new Set(
  (process.env.DURABLE_BENCH_STORES ?? 'sqlite,postgres').split(',').map((name) => name.trim()),
)

interface PostgresSection {
  benchPostgres(tasks?: number): Promise<Parameters<typeof printResult>[0]>
  printPostgresResult(result: Parameters<typeof printResult>[0]): boolean
}

let allOk = true
if (wanted.has('sqlite')) {
  allOk = printResult(await benchSqlite(tasks)) && allOk
  printCpuRounds(await benchSqliteCpu(tasks))
}
if (wanted.has('postgres') && existsSync(join(import.meta.dirname, 'postgres.ts'))) {
  const postgres = (await import('./postgres.js')) as PostgresSection
  allOk = postgres.printPostgresResult(await postgres.benchPostgres(tasks)) && allOk
}
if (!allOk) process.exitCode = 1
