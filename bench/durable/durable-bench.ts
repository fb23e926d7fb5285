/**
 * The store-independent part of the durable benchmark: steps per second of a 3-step no-op task on a store,
 * against the same store doing the same number of plain `save` writes in the same run. A store section
 * (SQLite here, PostgreSQL in its own file) calls {@link benchDurableStore} with a factory.
 */
import { performance } from 'node:perf_hooks'
import { type CheckpointV2, type DurableStore, defineDurableTask } from '@agent-core/kits/durable'

/** What a store section hands to {@link benchDurableStore}. */
export interface BenchStoreHandle {
  readonly store: DurableStore
  /** Rows the store has written so far (e.g. SQLite `total_changes()`); omit to count `save` calls only. */
  countWrites?(): number | Promise<number>
  close(): void | Promise<void>
}

/** One section's figures. */
export interface DurableBenchResult {
  readonly name: string
  readonly tasks: number
  readonly steps: number
  readonly stepsPerSecond: number
  /** Physical writes (or saves, when the store cannot count writes) per executed step. */
  readonly writesPerStep: number
  readonly durableWritesPerSecond: number
  readonly rawWritesPerSecond: number
  /** durableWritesPerSecond / rawWritesPerSecond: how close the runner gets to the store's own write rate. */
  readonly writeRateRatio: number
}

/** Targets the benchmark reports against. */
export const TARGETS = { maxWritesPerStep: 2, minWriteRateRatio: 0.5 } as const

const STEP_COUNT = 3

function noOpTask() {
  return defineDurableTask({
    id: 'bench-noop',
    revision: '1',
    isState: (value): value is { readonly n: number } =>
      typeof value === 'object' && value !== null && typeof (value as { n?: unknown }).n === 'number',
    steps: Array.from({ length: STEP_COUNT }, (_, index) => ({
      id: `step-${index}`,
      replayPolicy: 'safe' as const,
      run: (state: { readonly n: number }) => state,
    })),
  })
}

function checkpoint(n: number): CheckpointV2<{ readonly n: number }> {
  return {
    version: 2,
    definitionId: 'bench-raw',
    revision: '1',
    nextStepIndex: 0,
    attemptCount: 1,
    maxAttempts: 3,
    deadlineAtMs: null,
    status: 'running',
    state: { n },
  }
}

async function countingStore(
  handle: BenchStoreHandle,
): Promise<{ store: DurableStore; writes(): Promise<number> }> {
  let saves = 0
  const inner = handle.store
  const fencing = inner.fencing
  const store: DurableStore = {
    exclusive: (taskId, operation, options) => inner.exclusive(taskId, operation, options),
    load: (taskId) => inner.load(taskId),
    save: (taskId, value) => {
      saves++
      return inner.save(taskId, value)
    },
    reportsLeaseWaits: inner.reportsLeaseWaits,
    fencing: fencing && {
      load: (taskId) => fencing.load(taskId),
      save: (taskId, value, options) => {
        saves++
        return fencing.save(taskId, value, options)
      },
    },
  }
  return { store, writes: async () => (handle.countWrites ? await handle.countWrites() : saves) }
}

/**
 * Measures one store. `open` is called once; the task runs `tasks` times (after a warm-up), then the raw
 * store does the same number of writes the runner made.
 */
export async function benchDurableStore(
  name: string,
  open: () => Promise<BenchStoreHandle>,
  options: { readonly tasks?: number } = {},
): Promise<DurableBenchResult> {
  const tasks = options.tasks ?? 2_000
  const handle = await open()
  try {
    const { store, writes } = await countingStore(handle)
    const raw = handle.store.fencing
    if (raw === undefined)
      throw new Error(`${name}: the benchmark compares fenced saves; the store declares no fencing`)
    const task = noOpTask()
    for (let i = 0; i < 100; i++) await task.run({ taskId: `warm-${i}`, store, input: { n: i } })

    // Two rounds of (runner, then the same number of raw writes), so that neither side gets all the
    // WAL/cache growth of the run.
    let durableMs = 0
    let durableWrites = 0
    let rawMs = 0
    let rawTask = 0
    for (const [from, to] of [
      [0, Math.floor(tasks / 2)],
      [Math.floor(tasks / 2), tasks],
    ] as const) {
      const writesBefore = await writes()
      const durableStart = performance.now()
      for (let i = from; i < to; i++) await task.run({ taskId: `task-${i}`, store, input: { n: i } })
      durableMs += performance.now() - durableStart
      const roundWrites = (await writes()) - writesBefore
      durableWrites += roundWrites

      const rawStart = performance.now()
      let version: number | undefined
      for (let i = 0; i < roundWrites; i++) {
        if (i % (STEP_COUNT + 1) === 0) {
          version = undefined
          rawTask++
        }
        version = (await raw.save(`raw-${rawTask}`, checkpoint(i), { expectedVersion: version })).version
      }
      rawMs += performance.now() - rawStart
    }

    const steps = tasks * STEP_COUNT
    const durableWritesPerSecond = durableWrites / (durableMs / 1000)
    const rawWritesPerSecond = durableWrites / (rawMs / 1000)
    return {
      name,
      tasks,
      steps,
      stepsPerSecond: steps / (durableMs / 1000),
      writesPerStep: durableWrites / steps,
      durableWritesPerSecond,
      rawWritesPerSecond,
      writeRateRatio: durableWritesPerSecond / rawWritesPerSecond,
    }
  } finally {
    await handle.close()
  }
}

/** Prints one section's figures and whether they meet {@link TARGETS}; returns false when one is missed. */
export function printResult(result: DurableBenchResult): boolean {
  const writesOk = result.writesPerStep <= TARGETS.maxWritesPerStep
  const ratioOk = result.writeRateRatio >= TARGETS.minWriteRateRatio
  const round = (value: number) => Math.round(value).toLocaleString('en-US')
  console.log(`${result.name}: ${result.tasks} tasks x ${STEP_COUNT} no-op steps`)
  console.log(`  steps/s                ${round(result.stepsPerSecond)}`)
  console.log(
    `  writes/step            ${result.writesPerStep.toFixed(2)}  (target <= ${TARGETS.maxWritesPerStep}: ${writesOk ? 'ok' : 'MISSED'})`,
  )
  console.log(`  runner writes/s        ${round(result.durableWritesPerSecond)}`)
  console.log(`  raw store writes/s     ${round(result.rawWritesPerSecond)}`)
  console.log(
    `  runner / raw rate      ${(result.writeRateRatio * 100).toFixed(1)}%  (target >= ${TARGETS.minWriteRateRatio * 100}%: ${ratioOk ? 'ok' : 'MISSED'})`,
  )
  return writesOk && ratioOk
}
