/**
 * What the crash tests share: starting the session worker as a real child process (and killing what is
 * left of them after a test), and the check that a session is whole runs, in order, with no `seq` twice.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import type { SessionSnapshot } from '../../session-store.js'

const WORKER = fileURLToPath(new URL('./session-worker.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../../../', import.meta.url))
const children = new Set<ChildProcess>()

/** What the worker is told: its storage, how many runs, whether to idle after them, the first run's number. */
export interface WorkerConfig {
  readonly file?: string
  readonly postgres?: { readonly connectionString: string; readonly tablePrefix: string }
  readonly runs: number
  readonly idle: boolean
  readonly first: number
  readonly entry?: 'runSession' | 'agent'
}

/** Kills every worker still running (for `afterEach`). */
export async function killWorkers(): Promise<void> {
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
}

/** Starts the worker; `onLine` gets each JSON line it prints; resolves when it ends. */
export function startWorker(
  config: WorkerConfig,
  onLine: (line: Record<string, unknown>, child: ChildProcess) => void,
): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', WORKER, JSON.stringify(config)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.add(child)
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  createInterface({ input: child.stdout }).on('line', (text) =>
    onLine(JSON.parse(text) as Record<string, unknown>, child),
  )
  return new Promise((resolve) =>
    child.on('close', (_code, signal) => {
      children.delete(child)
      resolve({ signal, stderr })
    }),
  )
}

/** The session as whole runs: each run is user `run n`, its call, its result, `answer n`; returns the n's. */
export function wholeRuns(snapshot: SessionSnapshot): number[] {
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
