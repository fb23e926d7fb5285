/**
 * A child process for the crash tests: runs one durable task on a SQLite file and prints JSON lines
 * (`in-step`, `signal-aborted`, `done` with the result, or `error` with the error code). Run with
 * `node --import tsx --conditions=@agent-core/source crash-worker.ts '<CrashWorkerConfig JSON>'`.
 */
import { AgentCoreError } from '@agent-core/core'
import { createSqliteDurableStore } from '../../sqlite/sqlite-store.js'
import {
  type CrashWorkerConfig,
  crashLoopTask,
  guardedPaymentTask,
  paymentTask,
  print,
  progressTask,
  supersededTask,
} from './crash-tasks.js'

const config = JSON.parse(process.argv[2] ?? '{}') as CrashWorkerConfig
const store = createSqliteDurableStore(config.dbPath, {
  leaseMs: config.leaseMs,
  renewIntervalMs: Math.max(1, Math.floor(config.leaseMs / 3)),
})
try {
  const request = { taskId: config.taskId, store, input: { trail: [] as string[] }, timeoutMs: 600_000 }
  const result =
    config.scenario === 'payment'
      ? await paymentTask(config).run(request)
      : config.scenario === 'crash-loop'
        ? await crashLoopTask(config).run(request)
        : config.scenario === 'progress'
          ? await progressTask(config).run(request)
          : config.scenario === 'guarded-payment'
            ? await guardedPaymentTask(config).run(request, { app: { worker: 'A' } })
            : await supersededTask().run(request, { app: { worker: 'A' } })
  print({ event: 'done', result })
} catch (error) {
  print({
    event: 'error',
    code: AgentCoreError.isInstance(error) ? error.code : 'unknown',
    message: String(error),
  })
} finally {
  store.close()
}
