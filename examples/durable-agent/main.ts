/**
 * One worker: opens the SQLite store, runs (or resumes) the refund agent's task and prints what happens as
 * JSON lines. Run it again after killing it: it continues where the last saved progress left off.
 *
 *   node --conditions=@agent-core/source --import tsx main.ts [dbPath] [executionLog]
 */

import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import { createAgentRunState } from '@agent-core/kits/loop'
import { prepareDatabase, refundTask } from './agent.js'

const dbPath = process.argv[2] ?? join(tmpdir(), 'durable-agent-example.db')
const executionLog = process.argv[3] ?? join(tmpdir(), 'durable-agent-example.log')
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`)

const store = createSqliteDurableStore(dbPath, { leaseMs: 2_000 })
try {
  prepareDatabase(store)
  const task = refundTask(store, { executionLog, milestone: print })
  const input = createAgentRunState({ prompt: 'Refund orders A-1, A-2 and A-3.', runId: 'refund-run-1' })
  const state = await task.run({ taskId: 'refund-1', input })
  const refunds = store.database
    .prepare('SELECT order_id AS orderId, amount FROM refunds ORDER BY order_id')
    .all()
  print({ event: 'done', reason: state.reason, text: state.text, refunds })
} finally {
  store.close()
}
