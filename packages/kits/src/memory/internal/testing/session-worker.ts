/**
 * A child process for the crash tests: runs session runs on a SQLite file or a PostgreSQL database, one
 * after another, and prints one JSON line after each run is recorded. `idle: true` makes it wait (alive)
 * after its runs, so the parent can kill it between two runs; otherwise it keeps running until killed.
 * `entry: 'agent'` runs through `agent.run({ session })` instead of `runSession`.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import pg from 'pg'
import { createPostgresSessionStore } from '../../postgres/index.js'
import { runSession } from '../../run-session.js'
import type { SessionStore } from '../../session-store.js'
import { createSqliteSessionStore } from '../../sqlite/index.js'
import { crashModel } from './crash-model.js'

const config = JSON.parse(process.argv[2]!) as {
  file?: string
  postgres?: { connectionString: string; tablePrefix: string }
  runs: number
  idle: boolean
  first: number
  entry?: 'runSession' | 'agent'
}
let store: SessionStore
if (config.postgres) {
  const pool = new pg.Pool({ connectionString: config.postgres.connectionString, max: 2 })
  store = createPostgresSessionStore(pool, { tablePrefix: config.postgres.tablePrefix })
} else {
  const database = new Database(config.file!)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  database.pragma('busy_timeout = 5000')
  store = createSqliteSessionStore(database)
}
const lookup = defineModelTool({
  id: 'lookup',
  description: 'Looks something up',
  inputSchema: { type: 'object' },
  execute: async () => {
    await sleep(1)
    return 'found'
  },
})
const agent = defineAgent({ model: crashModel(), tools: [lookup] })
const session = { store, id: 'chat' }
for (let run = config.first; config.idle ? run < config.first + config.runs : true; run++) {
  if (config.entry === 'agent') {
    await agent.run({ session, prompt: `run ${run}` })
    process.stdout.write(`${JSON.stringify({ ran: run, revision: (await store.read('chat')).revision })}\n`)
  } else {
    const result = await runSession(agent, { session, prompt: `run ${run}` })
    process.stdout.write(`${JSON.stringify({ ran: run, revision: result.session.revision })}\n`)
  }
}
process.stdout.write(`${JSON.stringify({ idle: true })}\n`)
await new Promise(() => setInterval(() => {}, 1000))
