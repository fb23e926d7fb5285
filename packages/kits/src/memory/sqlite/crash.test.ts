/**
 * A session on SQLite survives a SIGKILL of the process that runs on it: a real child process
 * (`internal/testing/session-worker.ts`) runs session runs and is killed between two runs, or at a random
 * point while it runs; the parent then opens the file and checks that no message is lost or duplicated
 * (the session is whole runs, in order) and that the next run appends after them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { killWorkers, startWorker as start, wholeRuns } from '../internal/testing/crash-harness.js'
import { crashModel } from '../internal/testing/crash-model.js'
import { runSession } from '../run-session.js'
import { createSqliteSessionStore } from './index.js'

const folders: string[] = []

afterEach(async () => {
  await killWorkers()
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

async function runHere(file: string, n: number) {
  const database = new Database(file)
  const store = createSqliteSessionStore(database)
  const lookup = defineModelTool({
    id: 'lookup',
    description: 'Looks up',
    inputSchema: { type: 'object' },
    execute: () => 'found',
  })
  await runSession(defineAgent({ model: crashModel(), tools: [lookup] }), {
    session: { store, id: 'chat' },
    prompt: `run ${n}`,
  })
  const snapshot = await store.read('chat')
  database.close()
  return snapshot
}

describe('a session on SQLite across a SIGKILL (real child process)', () => {
  it('killed between two runs: the next process appends after the first run, nothing lost or doubled', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'memory-crash-'))
    folders.push(folder)
    const file = join(folder, 'chat.db')
    const outcome = await start({ file, runs: 1, idle: true, first: 1 }, (line, child) => {
      if (line.idle) child.kill('SIGKILL')
    })
    expect(outcome.signal, outcome.stderr).toBe('SIGKILL')
    const snapshot = await runHere(file, 2)
    expect(wholeRuns(snapshot)).toEqual([1, 2])
    expect(snapshot.revision).toBe(2)
  }, 60_000)

  it('killed at random points while it runs: the session holds whole runs only, and goes on', async () => {
    for (const killAfter of [1, 3, 6]) {
      const folder = mkdtempSync(join(tmpdir(), 'memory-crash-'))
      folders.push(folder)
      const file = join(folder, 'chat.db')
      let seen = 0
      const outcome = await start({ file, runs: 0, idle: false, first: 1 }, (line, child) => {
        if (line.ran !== undefined && ++seen === killAfter)
          // kill at a point inside a later run (model call, tool call or the append itself)
          setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 6))
      })
      expect(outcome.signal, outcome.stderr).toBe('SIGKILL')
      const database = new Database(file)
      const before = await createSqliteSessionStore(database).read('chat')
      database.close()
      const runs = wholeRuns(before)
      expect(runs.length).toBeGreaterThanOrEqual(killAfter)
      expect(runs).toEqual(runs.map((_, index) => index + 1))
      const after = await runHere(file, runs.length + 1)
      expect(wholeRuns(after)).toEqual([...runs, runs.length + 1])
    }
  }, 120_000)
})
