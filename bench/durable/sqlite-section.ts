/** The SQLite section of the durable benchmark: a fresh file in a temp directory, default options. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import { type BenchStoreHandle, benchDurableStore, type DurableBenchResult } from './durable-bench.js'

/** Opens a SQLite store on a new temp file; writes are counted with SQLite's `total_changes()`. */
export async function openSqliteBenchStore(): Promise<BenchStoreHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-durable-'))
  const store = createSqliteDurableStore(join(dir, 'tasks.db'))
  const totalChanges = store.database.prepare<[], { n: number }>('SELECT total_changes() AS n')
  return {
    store,
    countWrites: () => totalChanges.get()?.n ?? 0,
    close: () => {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export function benchSqlite(tasks?: number): Promise<DurableBenchResult> {
  return benchDurableStore(
    'SQLite (WAL, synchronous=FULL)',
    openSqliteBenchStore,
    tasks === undefined ? {} : { tasks },
  )
}
