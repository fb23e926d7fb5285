import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createDiagnostics, MemoryDiagnosticSink } from '@agent-core/core'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type CrashWorkerConfig,
  guardedPaymentTask,
  linesOf,
  supersededTask,
} from '../internal/testing/crash-tasks.js'
import { spanProblems } from '../internal/testing/fixtures.js'
import { tempDir } from '../internal/testing/temp-dir.js'
import type { CheckpointV2 } from '../store.js'
import { createSqliteDurableStore } from './sqlite-store.js'

const WORKER = fileURLToPath(new URL('../internal/testing/crash-worker.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url))

interface WorkerOutcome {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly lines: Record<string, unknown>[]
  readonly stderr: string
}

/** Workers still running; a test that failed or timed out must not leave one behind (stopped or not). */
const children = new Set<ChildProcess>()

function startWorker(
  config: CrashWorkerConfig,
  onLine?: (line: Record<string, unknown>, child: ChildProcess) => void,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', WORKER, JSON.stringify(config)],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  children.add(child)
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>
    lines.push(line)
    onLine?.(line, child)
  })
  const done = new Promise<WorkerOutcome>((resolve) => {
    child.on('close', (exitCode, signal) => {
      children.delete(child)
      resolve({ exitCode, signal, lines, stderr })
    })
  })
  return { child, done }
}

const runWorker = (config: CrashWorkerConfig) => startWorker(config).done

describe('crash faults (child processes on a shared SQLite file)', () => {
  const dirs: { remove(): void }[] = []
  afterEach(async () => {
    const leftovers = [...children]
    await Promise.all(
      leftovers.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once('close', () => resolve())
            child.kill('SIGKILL')
          }),
      ),
    )
    for (const dir of dirs.splice(0)) dir.remove()
  })
  function setup(scenario: CrashWorkerConfig['scenario']): CrashWorkerConfig {
    const dir = tempDir()
    dirs.push(dir)
    return {
      scenario,
      dbPath: join(dir.path, 'tasks.db'),
      effectFile: join(dir.path, 'effects.log'),
      taskId: 'task-1',
      leaseMs: 300,
    }
  }
  async function checkpointOf(config: CrashWorkerConfig): Promise<CheckpointV2<{ trail: string[] }>> {
    const store = createSqliteDurableStore(config.dbPath)
    try {
      return (await store.load(config.taskId)) as CheckpointV2<{ trail: string[] }>
    } finally {
      store.close()
    }
  }

  it('SIGKILL after a reconcile step effect, before its save: the restart reconciles, the effect happened once', async () => {
    const config = setup('payment')
    const crashed = await runWorker({ ...config, crashAfterEffect: true })
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL')
    const before = await checkpointOf(config)
    expect(before).toMatchObject({
      status: 'running',
      nextStepIndex: 1,
      attemptCount: 1,
      state: { trail: ['prepare'] },
    })
    expect(linesOf(config.effectFile)).toEqual(['charge'])

    const restarted = await runWorker(config)
    expect(restarted.exitCode, restarted.stderr).toBe(0)
    expect(restarted.lines).toEqual([
      { event: 'done', result: { trail: ['prepare', 'charge (reconciled)', 'finish'] } },
    ])
    expect(linesOf(config.effectFile)).toEqual(['charge', 'reconcile'])
    const after = await checkpointOf(config)
    expect(after).toMatchObject({
      status: 'completed',
      attemptCount: before.attemptCount + 1,
      deadlineAtMs: before.deadlineAtMs,
    })
    expect(after.deadlineAtMs).toEqual(expect.any(Number))
  })

  it('SIGKILL inside a long step after a progress save: the restart re-enters the step and redoes no saved item', async () => {
    const config = setup('progress')
    const crashed = await runWorker({ ...config, crashAfterEffect: true })
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL')
    expect(await checkpointOf(config)).toMatchObject({
      status: 'running',
      nextStepIndex: 0,
      attemptCount: 1,
      state: { trail: ['a', 'b', 'c'] },
    })
    const restarted = await runWorker(config)
    expect(restarted.exitCode, restarted.stderr).toBe(0)
    expect(restarted.lines).toEqual([{ event: 'done', result: { trail: ['a', 'b', 'c', 'd', 'e'] } }])
    expect(linesOf(config.effectFile)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(await checkpointOf(config)).toMatchObject({ status: 'completed', attemptCount: 2 })
  })

  it('a crash loop with maxAttempts 3 ends as failed after the third attempt, without a fourth execution', async () => {
    const config = setup('crash-loop')
    for (let attempt = 1; attempt <= 3; attempt++) {
      const outcome = await runWorker(config)
      expect(outcome.signal, outcome.stderr).toBe('SIGKILL')
      expect(await checkpointOf(config)).toMatchObject({
        status: 'running',
        attemptCount: attempt,
        maxAttempts: 3,
      })
    }
    const last = await runWorker(config)
    expect(last.exitCode, last.stderr).toBe(0)
    expect(last.lines).toEqual([expect.objectContaining({ event: 'error', code: 'budget-exhausted' })])
    expect(await checkpointOf(config)).toMatchObject({ status: 'failed', attemptCount: 3, nextStepIndex: 0 })
    expect(linesOf(config.effectFile)).toEqual(['boom', 'boom', 'boom'])
  })

  it('a superseded owner (stopped past its lease while another worker finished the task) cannot save over it', async () => {
    const config = setup('superseded')
    const store = createSqliteDurableStore(config.dbPath, { leaseMs: config.leaseMs })
    try {
      let takeover: Promise<unknown> | undefined
      const workerA = startWorker(config, (line, child) => {
        if (line.event !== 'in-step') return
        child.kill('SIGSTOP')
        // Worker B waits until A's unrenewed lease expires, then resumes and completes the task.
        takeover = supersededTask()
          .run({ taskId: config.taskId, store }, { app: { worker: 'B' } })
          .finally(() => {
            child.kill('SIGCONT')
            child.stdin?.write('go\n')
          })
      })
      const outcome = await workerA.done
      expect(await takeover).toEqual({ trail: ['slow by B', 'next'] })
      expect(outcome.exitCode, outcome.stderr).toBe(0)
      expect(outcome.lines).toEqual([
        { event: 'in-step' },
        expect.objectContaining({ event: 'error', code: 'conflict' }),
      ])
      expect(await store.fencing.load(config.taskId)).toMatchObject({
        checkpoint: { status: 'completed', attemptCount: 2, state: { trail: ['slow by B', 'next'] } },
        version: 4,
      })
    } finally {
      store.close()
    }
  })

  it('a holder stopped past its lease learns it lost the lease through its signal and skips its check-then-act effect', async () => {
    const config = setup('guarded-payment')
    const store = createSqliteDurableStore(config.dbPath, { leaseMs: config.leaseMs })
    const memory = new MemoryDiagnosticSink()
    try {
      let takeover: Promise<unknown> | undefined
      const workerA = startWorker(config, (line, child) => {
        if (line.event === 'in-step') {
          // A has looked for a charge (none yet) and is about to charge; it stops here, past its lease.
          child.kill('SIGSTOP')
          takeover = guardedPaymentTask(config)
            .run(
              { taskId: config.taskId, store },
              { app: { worker: 'B' }, diagnostics: createDiagnostics({ sink: memory.sink }) },
            )
            .finally(() => child.kill('SIGCONT'))
        }
        // A resumed: its lease renewal found the lease taken, so its step signal aborted. Only now does
        // the step go on, to act on what it checked before it stopped.
        if (line.event === 'signal-aborted') child.stdin?.write('go\n')
      })
      const outcome = await workerA.done
      expect(await takeover).toEqual({ trail: ['prepare', 'charge (reconcile by B)', 'finish'] })
      expect(outcome.exitCode, outcome.stderr).toBe(0)
      expect(outcome.lines).toEqual([
        { event: 'in-step' },
        { event: 'signal-aborted', code: 'conflict' },
        expect.objectContaining({ event: 'error', code: 'conflict' }),
      ])
      // The effect happened once, by the worker that held the lease.
      expect(linesOf(config.effectFile)).toEqual(['charge by B'])
      // B waited for A's lease (A was alive, only stopped) and took it over once it expired.
      const [wait] = memory.ofKind('lease-wait-start')
      expect(wait?.data).toMatchObject({ pid: workerA.child.pid, holder: expect.stringMatching(/^sqlite:/) })
      expect(memory.ofKind('lease-wait-end')[0]?.data).toMatchObject({ outcome: 'ok', takenOver: 'expired' })
      expect(memory.ofKind('lease-taken-over')[0]?.data).toMatchObject({
        reason: 'expired',
        pid: workerA.child.pid,
      })
      expect(spanProblems(memory.events)).toEqual([])
    } finally {
      store.close()
    }
  })

  it('after a SIGKILL the next run takes the lease over at once: the holder was a process of this host', async () => {
    const config = { ...setup('superseded'), leaseMs: 30_000 }
    const workerA = startWorker(config, (line, child) => {
      if (line.event === 'in-step') child.kill('SIGKILL')
    })
    const killed = await workerA.done
    expect(killed.signal, killed.stderr).toBe('SIGKILL')
    // A default store: leases of 30 s, which the run must not wait out.
    const store = createSqliteDurableStore(config.dbPath)
    const memory = new MemoryDiagnosticSink()
    try {
      const result = await supersededTask().run(
        { taskId: config.taskId, store },
        { app: { worker: 'B' }, diagnostics: memory.sink, signal: AbortSignal.timeout(20_000) },
      )
      expect(result).toEqual({ trail: ['slow by B', 'next'] })
      expect(memory.ofKind('lease-wait-start')).toEqual([])
      expect(memory.ofKind('lease-taken-over').map((event) => event.data)).toEqual([
        expect.objectContaining({
          reason: 'holder-gone',
          pid: workerA.child.pid,
          holder: expect.stringMatching(/^sqlite:/),
        }),
      ])
      expect(await store.fencing.load(config.taskId)).toMatchObject({
        checkpoint: { status: 'completed', attemptCount: 2 },
      })
    } finally {
      store.close()
    }
  })
})
