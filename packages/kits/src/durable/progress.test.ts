import {
  AbortedError,
  AttemptBudget,
  ConflictError,
  InvalidInputError,
  InvalidStateError,
  MemoryDiagnosticSink,
  TimeoutError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DurableStepContext, defineDurableTask } from './durable-task.js'
import { contractStore, gate, spanProblems, storedCheckpoint } from './internal/testing/fixtures.js'
import { createMemoryDurableStore } from './memory-store.js'

interface Batch {
  readonly items: readonly string[]
  readonly done: readonly string[]
}

const isBatch = (value: unknown): value is Batch =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as Batch).items) &&
  Array.isArray((value as Batch).done) &&
  (value as Batch).done.every((item) => typeof item === 'string')

/**
 * One step that works through `items`, saving progress after each. `crashAt` (shared, so a test can move
 * it) names the item at which the process "dies" (the step throws before doing it); `work` sees each item.
 */
function batchTask(
  work: (item: string, context: DurableStepContext<unknown, Batch>) => void | Promise<void>,
  crash: { at: string | undefined },
  maxAttempts = 10,
) {
  return defineDurableTask(
    {
      id: 'batch',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'process',
          replayPolicy: 'safe',
          run: async (batch, context) => {
            let state = batch
            for (const item of batch.items.filter((i) => !batch.done.includes(i))) {
              if (crash.at === item) throw new Error(`crashed before ${item}`)
              await work(item, context)
              state = { ...state, done: [...state.done, item] }
              await context.checkpoint(state)
            }
            return state
          },
        },
        { id: 'report', replayPolicy: 'safe', run: (batch) => batch },
      ],
    },
    { maxAttempts },
  )
}

describe('progress inside a step: context.checkpoint', () => {
  it('saves progress under the same index, and a resumed attempt re-enters the step with it, never redoing a saved item', async () => {
    const store = createMemoryDurableStore()
    const seen: { item: string; attempt: number; resuming: boolean }[] = []
    const crash = { at: 'c' as string | undefined }
    const task = batchTask((item, context) => {
      seen.push({ item, attempt: context.attempt, resuming: context.resuming })
    }, crash)
    const input = { items: ['a', 'b', 'c', 'd'], done: [] }
    await expect(task.run({ taskId: 't', store, input })).rejects.toThrow('crashed before c')
    expect(storedCheckpoint(store, 't')).toMatchObject({
      nextStepIndex: 0,
      attemptCount: 1,
      status: 'running',
      state: { done: ['a', 'b'] },
    })
    crash.at = undefined
    expect(await task.run({ taskId: 't', store })).toEqual({
      items: ['a', 'b', 'c', 'd'],
      done: ['a', 'b', 'c', 'd'],
    })
    expect(seen).toEqual([
      { item: 'a', attempt: 1, resuming: false },
      { item: 'b', attempt: 1, resuming: false },
      { item: 'c', attempt: 2, resuming: true },
      { item: 'd', attempt: 2, resuming: true },
    ])
  })

  it('works on a contract-shaped store without fencing too', async () => {
    const store = contractStore()
    const crash = { at: 'b' as string | undefined }
    const done: string[] = []
    const task = batchTask((item) => void done.push(item), crash)
    await expect(
      task.run({ taskId: 't', store, input: { items: ['a', 'b', 'c'], done: [] } }),
    ).rejects.toThrow()
    crash.at = undefined
    expect((await task.run({ taskId: 't', store })).done).toEqual(['a', 'b', 'c'])
    expect(done).toEqual(['a', 'b', 'c'])
  })

  it('property: whatever the crash points, every item is done exactly once and the result equals an uninterrupted run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat({ max: 7 }), { maxLength: 6 }),
        async (items, crashes) => {
          const store = createMemoryDurableStore()
          const counts = new Map<string, number>()
          const pending = crashes.map((index) => items[index % items.length] as string)
          const crash = { at: pending.shift() }
          const task = batchTask((item) => void counts.set(item, (counts.get(item) ?? 0) + 1), crash, 100)
          let result: Batch | undefined
          for (let runs = 0; result === undefined; runs++) {
            expect(runs).toBeLessThan(20)
            result = await task.run({ taskId: 'p', store, input: { items, done: [] } }).catch(() => {
              crash.at = pending.shift()
              return undefined
            })
          }
          expect(result).toEqual({ items, done: items })
          expect([...counts.entries()].sort()).toEqual(items.map((item) => [item, 1]).sort())
        },
      ),
      { seed: 909, numRuns: 120 },
    )
  })

  it('reconciles a reconcile step with its last progress state', async () => {
    const store = createMemoryDurableStore()
    const modes: { mode: string; resuming: boolean; done: readonly string[] }[] = []
    let fail = true
    const task = defineDurableTask({
      id: 'sync',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'push',
          replayPolicy: 'reconcile',
          run: async (batch, context) => {
            modes.push({ mode: context.mode, resuming: context.resuming, done: batch.done })
            await context.checkpoint({ ...batch, done: ['first'] })
            if (fail) throw new Error('lost the connection')
            return { ...batch, done: ['first', 'second'] }
          },
          reconcile: (batch, context) => {
            modes.push({ mode: context.mode, resuming: context.resuming, done: batch.done })
            return { ...batch, done: [...batch.done, 'second (reconciled)'] }
          },
        },
      ],
    })
    await expect(task.run({ taskId: 't', store, input: { items: [], done: [] } })).rejects.toThrow()
    fail = false
    expect((await task.run({ taskId: 't', store })).done).toEqual(['first', 'second (reconciled)'])
    expect(modes).toEqual([
      { mode: 'run', resuming: false, done: [] },
      { mode: 'reconcile', resuming: true, done: ['first'] },
    ])
  })

  it('checks a progress state like a step result: a state isState rejects or that cannot be cloned is refused, nothing saved', async () => {
    const store = createMemoryDurableStore()
    const refusals: unknown[] = []
    const task = defineDurableTask({
      id: 'bad-progress',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'x',
          replayPolicy: 'safe',
          run: async (batch, context) => {
            for (const bad of [{ items: 'no' }, { items: [], done: [() => 1] }, null]) {
              refusals.push(await context.checkpoint(bad as never).catch((error: unknown) => error))
            }
            return batch
          },
        },
      ],
    })
    await task.run({ taskId: 't', store, input: { items: [], done: [] } })
    expect(refusals).toHaveLength(3)
    for (const refusal of refusals) {
      expect(InvalidInputError.isInstance(refusal)).toBe(true)
      expect((refusal as InvalidInputError).details).toMatchObject({ field: 'state', stepId: 'x' })
    }
    // create, then the step result: no progress save went through
    expect(store.records.get('t')?.version).toBe(2)
  })

  it('saves in call order even when the step does not await, and before the step result', async () => {
    const store = createMemoryDurableStore()
    const saved: unknown[] = []
    const inner = store.fencing
    const spy = {
      exclusive: store.exclusive.bind(store),
      load: store.load.bind(store),
      save: store.save.bind(store),
      fencing: {
        load: inner.load,
        save: async (taskId: string, checkpoint: never, options: never) => {
          saved.push((checkpoint as { state: Batch }).state.done)
          return inner.save(taskId, checkpoint, options)
        },
      },
    }
    const task = defineDurableTask({
      id: 'unawaited',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'fire',
          replayPolicy: 'safe',
          run: (batch, context) => {
            void context.checkpoint({ ...batch, done: ['1'] })
            void context.checkpoint({ ...batch, done: ['1', '2'] })
            return { ...batch, done: ['1', '2', '3'] }
          },
        },
      ],
    })
    await task.run({ taskId: 't', store: spy, input: { items: [], done: [] } })
    expect(saved).toEqual([[], ['1'], ['1', '2'], ['1', '2', '3']])
  })

  it('refuses a save after the step returned', async () => {
    const store = createMemoryDurableStore()
    let late: DurableStepContext<unknown, Batch> | undefined
    const task = defineDurableTask({
      id: 'late',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'keep',
          replayPolicy: 'safe',
          run: (batch, context) => {
            late = context
            return batch
          },
        },
      ],
    })
    await task.run({ taskId: 't', store, input: { items: [], done: [] } })
    const before = store.records.get('t')
    await expect(late?.checkpoint({ items: [], done: ['late'] })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'step-finished',
    )
    expect(store.records.get('t')).toEqual(before)
  })

  it('refuses a save once the run is cancelled, or past the deadline (the task then expires)', async () => {
    const store = createMemoryDurableStore()
    const controller = new AbortController()
    let clock = 1_000
    const refusals: unknown[] = []
    const task = defineDurableTask(
      {
        id: 'stopped',
        revision: '1',
        isState: isBatch,
        steps: [
          {
            id: 'work',
            replayPolicy: 'safe',
            run: async (batch, context) => {
              const which = batch.items[0]
              if (which === 'cancel') controller.abort()
              if (which === 'deadline') clock = 10_000
              refusals.push(
                await context.checkpoint({ ...batch, done: ['x'] }).catch((error: unknown) => error),
              )
              return batch
            },
          },
        ],
      },
      { now: () => clock },
    )
    await expect(
      task.run({ taskId: 'c', store, input: { items: ['cancel'], done: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    await expect(
      task.run({ taskId: 'd', store, input: { items: ['deadline'], done: [] }, deadlineAtMs: 5_000 }),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error))
    expect(AbortedError.isInstance(refusals[0])).toBe(true)
    expect(TimeoutError.isInstance(refusals[1])).toBe(true)
    expect(storedCheckpoint(store, 'c')).toMatchObject({ status: 'running', state: { done: [] } })
    expect(storedCheckpoint(store, 'd')).toMatchObject({ status: 'expired', state: { done: [] } })
  })

  it('hands every attempt its model-call reservation, from which an agent run builds its AttemptBudget', async () => {
    const store = createMemoryDurableStore()
    const budgets: number[] = []
    const crash = { at: 'b' as string | undefined }
    const task = defineDurableTask(
      {
        id: 'agent',
        revision: '1',
        isState: isBatch,
        steps: [
          {
            id: 'run',
            replayPolicy: 'safe',
            run: async (batch, context) => {
              const budget = new AttemptBudget(context.maxModelCalls ?? 0)
              budgets.push(budget.remaining)
              let state = batch
              for (const item of batch.items.filter((i) => !batch.done.includes(i))) {
                if (crash.at === item) throw new Error('crash')
                budget.take()
                state = { ...state, done: [...state.done, item] }
                await context.checkpoint(state)
              }
              return state
            },
          },
        ],
      },
      { modelBudget: { maxCalls: 5, maxCallsPerAttempt: 3 } },
    )
    await expect(
      task.run({ taskId: 't', store, input: { items: ['a', 'b', 'c'], done: [] } }),
    ).rejects.toThrow()
    crash.at = undefined
    expect((await task.run({ taskId: 't', store })).done).toEqual(['a', 'b', 'c'])
    expect(budgets).toEqual([3, 2])
    expect(storedCheckpoint(store, 't').modelBudget).toEqual({
      maxCalls: 5,
      reservedCalls: 5,
      maxCallsPerAttempt: 3,
    })
  })

  it('a step whose lease lapses sees its signal abort, and neither its progress nor its result is saved', async () => {
    const store = createMemoryDurableStore({ leaseMs: 30 })
    const sink = new MemoryDiagnosticSink()
    const lapsed = gate()
    const refusals: unknown[] = []
    const task = defineDurableTask({
      id: 'lapse',
      revision: '1',
      isState: isBatch,
      steps: [
        {
          id: 'slow',
          replayPolicy: 'safe',
          run: async (batch, context) => {
            await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()))
            refusals.push(context.signal.reason)
            refusals.push(
              await context.checkpoint({ ...batch, done: ['x'] }).catch((error: unknown) => error),
            )
            lapsed.open()
            return { ...batch, done: ['result'] }
          },
        },
      ],
    })
    const run = task.run({ taskId: 't', store, input: { items: [], done: [] } }, { diagnostics: sink.sink })
    await lapsed.promise
    await expect(run).rejects.toSatisfy(
      (error) => ConflictError.isInstance(error) && error.details.reason === 'lease-lost',
    )
    expect(refusals.map((error) => (error as ConflictError).details.reason)).toEqual([
      'lease-lost',
      'lease-lost',
    ])
    expect(storedCheckpoint(store, 't')).toMatchObject({ nextStepIndex: 0, state: { done: [] } })
    expect(spanProblems(sink.events)).toEqual([])
    expect(sink.ofKind('step-end')[0]?.data).toMatchObject({ outcome: 'error', errorCode: 'conflict' })
  })
})
