/**
 * A PostgreSQL {@link DurableStore} for durable tasks (`@agent-core/kits/durable`), on the `pg` driver:
 * many workers on many machines share one database, each task is held by one worker at a time through a
 * session-level advisory lock, and every save is a compare-and-set on a version column, so a superseded
 * owner can never overwrite a newer checkpoint.
 *
 * {@link createPostgresSuspensionLedger} keeps the loop kit's suspension claims in the same database, so
 * workers on many machines resume each suspended agent run once.
 *
 * Importing this subpath loads `pg` (an optional peer dependency of `@agent-core/kits`); no other subpath
 * does.
 *
 * @example
 * ```ts no-run
 * import { defineDurableTask } from '@agent-core/kits/durable'
 * import { createPostgresDurableStore } from '@agent-core/kits/durable/postgres'
 *
 * const store = createPostgresDurableStore({ connectionString: process.env.DATABASE_URL })
 * await store.ensureSchema()
 * const task = defineDurableTask({
 *   id: 'count',
 *   revision: '1',
 *   isState: (value): value is number => typeof value === 'number',
 *   steps: [{ id: 'add', replayPolicy: 'safe', run: (n) => n + 1 }],
 * })
 * await task.run({ taskId: 'count-1', store, input: 1 })
 * await store.close()
 * ```
 *
 * @module
 */
export {
  createPostgresDurableStore,
  PostgresDurableStore,
  type PostgresDurableStoreOptions,
} from './postgres-durable-store.js'
export {
  createPostgresSuspensionLedger,
  PostgresSuspensionLedger,
  type PostgresSuspensionLedgerOptions,
} from './postgres-suspension-ledger.js'
export { postgresDurableTableSql } from './schema.js'
