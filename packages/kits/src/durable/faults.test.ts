import { ConflictError, MemoryDiagnosticSink } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DurableStep, type DurableStepContext, defineDurableTask } from './durable-task.js'
import { type FaultBoundary, FaultyStore, isInjected } from './internal/testing/faulty-store.js'
import {
  gate,
  isTrail,
  recordOf,
  spanProblems,
  storedCheckpoint,
  type Trail,
  trailStep,
} from './internal/testing/fixtures.js'
import { createMemoryDurableStore, type MemoryDurableStore } from './memory-store.js'
import { createSqliteDurableStore } from './sqlite/sqlite-store.js'
import type { CheckpointV2, DurableStore } from './store.js'
import { DurableStoreError } from './store-error.js'

/** A task whose middle step has an external effect recorded in `ledger`, reconciled by looking it up. */
function paymentTask(ledger: Map<string, number>, maxAttempts = 1000) {
  const charge: DurableStep<Trail> = {
    id: 'charge',
    replayPolicy: 'reconcile',
    run: (state, context) => {
      ledger.set(context.taskId, (ledger.get(context.taskId) ?? 0) + 1)
      return { trail: [...state.trail, 'charge'] }
    },
    reconcile: (state, context) => {
      if (!ledger.has(context.taskId)) ledger.set(context.taskId, 1)
      return { trail: [...state.trail, 'charge'] }
    },
  }
  return defineDurableTask(
    {
      id: 'payment',
      revision: '1',
      isState: isTrail,
      steps: [trailStep('prepare'), charge, trailStep('ship')],
    },
    { maxAttempts },
  )
}

/** Runs until the task completes, retrying after injected store failures. */
async function runToCompletion(
  run: () => Promise<Trail>,
  maxRuns = 200,
): Promise<{ result: Trail; runs: number }> {
  for (let runs = 1; runs <= maxRuns; runs++) {
    try {
      return { result: await run(), runs }
    } catch (error) {
      if (!isInjected(error) && !DurableStoreError.isInstance(error)) throw error
    }
  }
  throw new Error(`the task did not complete in ${maxRuns} runs`)
}

describe('fault: a save that commits but reports failure', () => {
  it('is confirmed by reading back: the run goes on, one effect, one attempt', async () => {
    const inner = createMemoryDurableStore()
    const ledger = new Map<string, number>()
    let saves = 0
    const store = new FaultyStore(inner, (boundary) => boundary === 'save-after' && ++saves === 3)
    expect(await paymentTask(ledger).run({ taskId: 't', store, input: { trail: [] } })).toEqual({
      trail: ['prepare', 'charge', 'ship'],
    })
    expect(store.injected).toEqual(['save-after'])
    expect(ledger.get('t')).toBe(1)
    expect(storedCheckpoint(inner, 't')).toMatchObject({ status: 'completed', attemptCount: 1 })
  })

  it('when the read-back fails too, the next run continues from the committed checkpoint with no second effect', async () => {
    const inner = createMemoryDurableStore()
    const ledger = new Map<string, number>()
    let saves = 0
    let failNextLoad = false
    const store = new FaultyStore(inner, (boundary) => {
      if (boundary === 'save-after' && ++saves === 3) {
        failNextLoad = true
        return true
      }
      if (boundary === 'load-before' && failNextLoad) {
        failNextLoad = false
        return true
      }
      return false
    })
    const task = paymentTask(ledger)
    await expect(task.run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy(isInjected)
    expect(storedCheckpoint(inner, 't')).toMatchObject({
      nextStepIndex: 2,
      attemptCount: 1,
      state: { trail: ['prepare', 'charge'] },
    })
    expect(await task.run({ taskId: 't', store })).toEqual({ trail: ['prepare', 'charge', 'ship'] })
    expect(ledger.get('t')).toBe(1)
    // the second run is the only other attempt; the failed save added none
    expect(storedCheckpoint(inner, 't')).toMatchObject({ status: 'completed', attemptCount: 2 })
  })
})

describe('fault: a superseded owner', () => {
  it('cannot save over the checkpoint of the worker that took over its lapsed lease (memory store)', async () => {
    const store = createMemoryDurableStore({ leaseMs: 25 })
    const inStep = gate()
    const resume = gate()
    const task = defineDurableTask<Trail, { worker: string }>({
      id: 'superseded',
      revision: '1',
      isState: isTrail,
      steps: [
        {
          id: 'slow',
          replayPolicy: 'safe',
          run: async (state, context: DurableStepContext<{ worker: string }>) => {
            if (context.app.worker === 'A') {
              inStep.open()
              await resume.promise
            }
            return { trail: [...state.trail, `slow by ${context.app.worker}`] }
          },
        },
        trailStep('next'),
      ],
    })
    const workerA = task.run({ taskId: 't', store, input: { trail: [] } }, { app: { worker: 'A' } })
    await inStep.promise
    const workerB = await task.run({ taskId: 't', store }, { app: { worker: 'B' } })
    expect(workerB).toEqual({ trail: ['slow by B', 'next'] })
    const newer = recordOf(store, 't')
    resume.open()
    await expect(workerA).rejects.toSatisfy((error) => ConflictError.isInstance(error))
    expect(recordOf(store, 't')).toEqual(newer)
    expect(storedCheckpoint(store, 't')).toMatchObject({ status: 'completed', attemptCount: 2 })
  })
})

describe.each([
  {
    name: 'memory store',
    open: () => ({ store: createMemoryDurableStore() as DurableStore, close: () => {} }),
    runs: 200,
    fenced: true,
  },
  {
    name: 'sqlite store',
    open: () => {
      const store = createSqliteDurableStore(':memory:')
      return { store: store as DurableStore, close: () => store.close() }
    },
    runs: 60,
    fenced: true,
  },
  {
    name: 'memory store seen as a contract-shaped store, without fencing',
    open: () => ({ store: createMemoryDurableStore() as DurableStore, close: () => {} }),
    runs: 150,
    fenced: false,
  },
])('fault: store errors at every boundary on a seeded schedule ($name)', ({ open, runs, fenced }) => {
  it('ends in the same state as the fault-free run, with the effect applied once', async () => {
    const reference = await paymentTask(new Map()).run({
      taskId: 'ref',
      store: createMemoryDurableStore(),
      input: { trail: [] },
    })
    const boundaries: FaultBoundary[] = [
      'exclusive',
      'load-before',
      'load-after',
      'save-before',
      'save-after',
    ]
    const injectedAt = new Set<FaultBoundary>()
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 12 }),
        fc.subarray(boundaries, { minLength: 1 }),
        async (failingCalls, failingBoundaries) => {
          const { store: inner, close } = open()
          try {
            const ledger = new Map<string, number>()
            const failing = new Set(failingCalls)
            const store = new FaultyStore(
              inner,
              (boundary, call) => failingBoundaries.includes(boundary) && failing.has(call),
              { fenced },
            )
            const task = paymentTask(ledger)
            const sink = new MemoryDiagnosticSink()
            const { result } = await runToCompletion(() =>
              task.run({ taskId: 't', store, input: { trail: [] } }, { diagnostics: sink.sink }),
            )
            // Whatever failed where, every task, attempt and step span that started also ended.
            expect(spanProblems(sink.events)).toEqual([])
            expect(result).toEqual(reference)
            expect(ledger.get('t')).toBe(1)
            expect((await task.inspect({ taskId: 't', store: inner }))?.status).toBe('completed')
            expectMonotonic(store.history)
            for (const boundary of store.injected) injectedAt.add(boundary)
          } finally {
            close()
          }
        },
      ),
      { seed: 4242, numRuns: runs },
    )
    expect([...injectedAt].sort()).toEqual([...boundaries].sort())
  })
})

/** Checkpoints only move forward: index, attempts and reservations never go back; the deadline never moves. */
function expectMonotonic(history: readonly CheckpointV2[]): void {
  for (let i = 1; i < history.length; i++) {
    const before = history[i - 1] as CheckpointV2
    const after = history[i] as CheckpointV2
    expect(after.nextStepIndex).toBeGreaterThanOrEqual(before.nextStepIndex)
    expect(after.attemptCount).toBeGreaterThanOrEqual(before.attemptCount)
    expect(after.deadlineAtMs).toBe(before.deadlineAtMs)
    expect(after.maxAttempts).toBe(before.maxAttempts)
  }
}

describe('property: durable replay against the recorded history', () => {
  interface Numbers {
    readonly values: readonly number[]
  }
  const isNumbers = (value: unknown): value is Numbers =>
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Numbers).values) &&
    (value as Numbers).values.every(Number.isSafeInteger)

  type Crash = { readonly step: number; readonly phase: 'before-work' | 'after-work' | 'before-save' }

  it('random crash points in safe steps end in the uninterrupted final state, passing only through recorded checkpoints', async () => {
    let crashes = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ multiply: fc.integer({ min: 1, max: 9 }), add: fc.integer({ min: -50, max: 50 }) }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.array(
          fc.record({
            step: fc.nat({ max: 5 }),
            phase: fc.constantFrom<Crash['phase']>('before-work', 'after-work', 'before-save'),
          }),
          {
            maxLength: 8,
          },
        ),
        fc.integer({ min: -100, max: 100 }),
        async (transforms, crashList, seed) => {
          let pending: Crash[] = []
          const takeCrash = (step: number, phase: Crash['phase']) => {
            const index = pending.findIndex((c) => c.step === step && c.phase === phase)
            if (index === -1) return false
            pending = pending.filter((_, i) => i !== index)
            crashes++
            return true
          }
          const steps: DurableStep<Numbers>[] = transforms.map((t, index) => ({
            id: `s${index}`,
            replayPolicy: 'safe',
            run: (state) => {
              if (takeCrash(index, 'before-work')) throw new Error('crash')
              const last = state.values.at(-1) ?? seed
              const next = { values: [...state.values, last * t.multiply + t.add] }
              if (takeCrash(index, 'after-work')) throw new Error('crash')
              return next
            },
          }))
          const task = defineDurableTask(
            { id: 'replay', revision: '1', isState: isNumbers, steps },
            { maxAttempts: 100 },
          )
          const recording = new FaultyStore(createMemoryDurableStore(), () => false)
          const uninterrupted = await task.run({ taskId: 'r', store: recording, input: { values: [] } })
          const recorded = new Map(recording.history.map((c) => [c.nextStepIndex, JSON.stringify(c.state)]))

          pending = [...crashList]
          const inner: MemoryDurableStore = createMemoryDurableStore()
          let saveCount = 0
          const crashing = new FaultyStore(inner, (boundary) => {
            if (boundary !== 'save-before') return false
            saveCount++
            const step = storedStepIndex(inner)
            return step !== undefined && saveCount > 1 && takeCrash(step, 'before-save')
          })
          let result: Numbers | undefined
          const sink = new MemoryDiagnosticSink()
          for (let runs = 0; result === undefined; runs++) {
            expect(runs).toBeLessThan(50)
            result = await task
              .run({ taskId: 'c', store: crashing, input: { values: [] } }, { diagnostics: sink.sink })
              .catch((error: unknown) => {
                if (error instanceof Error && (error.message === 'crash' || isInjected(error)))
                  return undefined
                throw error
              })
          }
          expect(result).toEqual(uninterrupted)
          expect(spanProblems(sink.events)).toEqual([])
          for (const checkpoint of crashing.history)
            expect(JSON.stringify(checkpoint.state)).toBe(recorded.get(checkpoint.nextStepIndex))
          expectMonotonic(crashing.history)
        },
      ),
      { seed: 777, numRuns: 150 },
    )
    expect(crashes).toBeGreaterThan(100)
  })
})

function storedStepIndex(store: MemoryDurableStore): number | undefined {
  const record = store.records.get('c')
  return record === undefined ? undefined : (JSON.parse(record.text) as CheckpointV2).nextStepIndex
}
