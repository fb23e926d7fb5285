/**
 * The SQLite store of durable tasks (better-sqlite3): the embedded default for Apps and examples. One file
 * holds the checkpoints and the lease rows, so several processes on one machine can share tasks safely.
 * The same file can hold the loop kit's suspension claims ({@link createSqliteSuspensionLedger}), so that
 * processes sharing it resume each suspended agent run once. This is the only subpath that loads
 * better-sqlite3.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * import { defineDurableTask } from '@agent-core/kits/durable'
 * import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
 *
 * const store = createSqliteDurableStore(join(mkdtempSync(join(tmpdir(), 'durable-')), 'tasks.db'))
 * const task = defineDurableTask(
 *   {
 *     id: 'double',
 *     revision: '1',
 *     isState: (value): value is number => typeof value === 'number',
 *     steps: [{ id: 'double', replayPolicy: 'safe', run: (n) => n * 2 }],
 *   },
 *   { store },
 * )
 * await task.run({ taskId: 'd1', input: 21 }) // 42
 * store.close()
 * ```
 *
 * @module
 */
export {
  createSqliteDurableStore,
  type SqliteDatabase,
  SqliteDurableStore,
  type SqliteDurableStoreOptions,
} from './sqlite-store.js'
export {
  createSqliteSuspensionLedger,
  SqliteSuspensionLedger,
  type SqliteSuspensionLedgerOptions,
} from './sqlite-suspension-ledger.js'
