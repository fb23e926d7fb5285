/**
 * A session on SQLite survives a SIGKILL of the process that runs on it: a real child process
 * (`internal/testing/session-worker.ts`) runs session runs and is killed between two runs, or at a random
 * point while it runs; the parent then opens the file and checks that no message is lost or duplicated
 * (the session is whole runs, in order) and that the next run appends after them.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { crashModel } from '../internal/testing/crash-model.js'
import { runSession } from '../run-session.js'
import type { SessionSnapshot } from '../session-store.js'
import { createSqliteSessionStore } from './index.js'

const WORKER = fileURLToPath(new URL('../internal/testing/session-worker.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url))
const children = new Set<ChildProcess>()
const folders: string[] = []

afterEach(async () => {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('close', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function start(
  config: { file: string; runs: number; idle: boolean; first: number },
  onLine: (line: Record<string, unknown>, child: ChildProcess) => void,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', WORKER, JSON.stringify(config)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.add(child)
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  createInterface({ input: child.stdout }).on('line', (text) =>
    onLine(JSON.parse(text) as Record<string, unknown>, child),
  )
  return new Promise<{ signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (_code, signal) => {
      children.delete(child)
      resolve({ signal, stderr })
    }),
  )
}

/** The session as whole runs: each run is user `run n`, its call, its result, `answer n`; returns the n's. */
function wholeRuns(snapshot: SessionSnapshot): number[] {
  const messages = snapshot.messages.map((entry) => entry.message)
  expect(messages.length % 4).toBe(0)
  const runs: number[] = []
  for (let at = 0; at < messages.length; at += 4) {
    const [user, call, result, answer] = messages.slice(at, at + 4)
    const n = Number(String(user!.content).replace('run ', ''))
    expect(user).toEqual({ role: 'user', content: `run ${n}` })
    expect(call).toMatchObject({ role: 'assistant', toolCalls: [{ id: `call_${n}`, name: 'lookup' }] })
    expect(result).toMatchObject({ role: 'tool', toolCallId: `call_${n}` })
    expect(answer).toEqual({ role: 'assistant', content: `answer ${n}` })
    runs.push(n)
  }
  // seqs grow by one: nothing was written twice or half
  expect(snapshot.messages.map((entry) => entry.seq)).toEqual(snapshot.messages.map((_, index) => index + 1))
  return runs
}

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
