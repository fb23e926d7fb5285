import {
  AbortedError,
  BudgetExhaustedError,
  createDiagnostics,
  createOperationContext,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  MemoryDiagnosticSink,
  RejectedThenableError,
  TimeoutError,
  UnauthorizedError,
  UnknownIdError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { type DurableStepContext, defineDurableTask } from './durable-task.js'
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
import type { CheckpointV2, DurableStore } from './store.js'

function threeSteps(counts: Record<string, number> = {}) {
  const count = (id: string) => () => {
    counts[id] = (counts[id] ?? 0) + 1
  }
  return defineDurableTask({
    id: 'three',
    revision: '1',
    isState: isTrail,
    steps: [
      trailStep('a', 'safe', count('a')),
      trailStep('b', 'safe', count('b')),
      trailStep('c', 'safe', count('c')),
    ],
  })
}

describe('defineDurableTask: running', () => {
  it('creates a task from input, runs every step and stores a completed version-2 checkpoint', async () => {
    const store = createMemoryDurableStore()
    const result = await threeSteps().run({ taskId: 't1', store, input: { trail: [] } })
    expect(result).toEqual({ trail: ['a', 'b', 'c'] })
    expect(storedCheckpoint(store, 't1')).toEqual({
      version: 2,
      definitionId: 'three',
      revision: '1',
      nextStepIndex: 3,
      attemptCount: 1,
      maxAttempts: 3,
      deadlineAtMs: null,
      status: 'completed',
      state: { trail: ['a', 'b', 'c'] },
    })
    // one save to create the task (with its first attempt) and one per step
    expect(recordOf(store, 't1')?.version).toBe(4)
  })

  it('returns a completed task without running a step or writing', async () => {
    const store = createMemoryDurableStore()
    const counts: Record<string, number> = {}
    const task = threeSteps(counts)
    await task.run({ taskId: 't1', store, input: { trail: [] } })
    const before = recordOf(store, 't1')
    expect(await task.run({ taskId: 't1', store, input: { trail: ['ignored'] } })).toEqual({
      trail: ['a', 'b', 'c'],
    })
    expect(counts).toEqual({ a: 1, b: 1, c: 1 })
    expect(recordOf(store, 't1')).toEqual(before)
  })

  it('refuses an unknown task without input', async () => {
    const store = createMemoryDurableStore()
    await expect(threeSteps().run({ taskId: 'nope', store })).rejects.toSatisfy((error) =>
      UnknownIdError.isInstance(error),
    )
    expect(store.records.size).toBe(0)
  })

  it('hands steps a clone of the state and a scoped context', async () => {
    const store = createMemoryDurableStore()
    const sink = new MemoryDiagnosticSink()
    const seen: DurableStepContext<{ user: string }>[] = []
    const task = defineDurableTask<Trail, { user: string }>({
      id: 'ctx',
      revision: '1',
      isState: isTrail,
      steps: [
        {
          id: 'mutate',
          replayPolicy: 'safe',
          run: (state, context) => {
            seen.push(context)
            ;(state.trail as string[]).push('mutated-in-place')
            return { trail: ['returned'] }
          },
        },
      ],
    })
    const context = createOperationContext({
      app: { user: 'u1' },
      diagnostics: createDiagnostics({ sink: sink.sink, scope: ['app'] }),
    })
    const input = { trail: [] as string[] }
    await task.run({ taskId: 'task-9', store, input }, context)
    expect(input.trail).toEqual([])
    const [stepContext] = seen
    expect(stepContext?.diagnostics.scope).toEqual([
      'app',
      'durable',
      'task-9',
      'task',
      'attempt',
      'step',
      'mutate',
    ])
    expect(stepContext?.app).toEqual({ user: 'u1' })
    expect(stepContext).toMatchObject({
      taskId: 'task-9',
      stepId: 'mutate',
      stepIndex: 0,
      attempt: 1,
      mode: 'run',
      resuming: false,
      maxModelCalls: undefined,
    })
    expect(typeof stepContext?.checkpoint).toBe('function')
    expect(sink.kinds(['app', 'durable', 'task-9'])).toEqual([
      'task-start',
      'checkpoint-saved',
      'task-created',
      'attempt-start',
      'step-start',
      'checkpoint-saved',
      'step-end',
      'attempt-end',
      'task-end',
    ])
    expect(spanProblems(sink.events)).toEqual([])
    const [taskStart] = sink.ofKind('task-start')
    const [stepStart] = sink.ofKind('step-start')
    const [attemptStart] = sink.ofKind('attempt-start')
    expect(attemptStart?.parentSpanId).toBe(taskStart?.spanId)
    expect(stepStart?.parentSpanId).toBe(attemptStart?.spanId)
    expect(sink.ofKind('task-end')[0]?.data).toMatchObject({ outcome: 'ok', status: 'completed' })
    expect(storedCheckpoint(store, 'task-9').state).toEqual({ trail: ['returned'] })
  })

  it('uses the bound store unless the request names one', async () => {
    const bound = createMemoryDurableStore()
    const perRun = createMemoryDurableStore()
    const task = defineDurableTask(
      { id: 'stores', revision: '1', isState: isTrail, steps: [trailStep('a')] },
      { store: bound },
    )
    await task.run({ taskId: 'x', input: { trail: [] } })
    await task.run({ taskId: 'y', store: perRun, input: { trail: [] } })
    expect([...bound.records.keys()]).toEqual(['x'])
    expect([...perRun.records.keys()]).toEqual(['y'])
  })

  it('resumes after a failed step without repeating completed steps, one attempt per run', async () => {
    const store = createMemoryDurableStore()
    const counts: Record<string, number> = {}
    let failB = true
    const task = defineDurableTask({
      id: 'resume',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('a', 'safe', () => {
          counts.a = (counts.a ?? 0) + 1
        }),
        trailStep('b', 'safe', () => {
          counts.b = (counts.b ?? 0) + 1
          if (failB) throw new Error('b failed')
        }),
      ],
    })
    await expect(task.run({ taskId: 't', store, input: { trail: [] } })).rejects.toThrow('b failed')
    expect(storedCheckpoint(store, 't')).toMatchObject({
      nextStepIndex: 1,
      attemptCount: 1,
      status: 'running',
      state: { trail: ['a'] },
    })
    failB = false
    expect(await task.run({ taskId: 't', store })).toEqual({ trail: ['a', 'b'] })
    expect(counts).toEqual({ a: 1, b: 2 })
    expect(storedCheckpoint(store, 't')).toMatchObject({ attemptCount: 2, status: 'completed' })
  })

  it('marks the task failed when the last allowed attempt fails, then refuses to run it', async () => {
    const store = createMemoryDurableStore()
    let runs = 0
    const task = defineDurableTask(
      {
        id: 'fails',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('boom', 'safe', () => {
            runs++
            throw new Error('boom')
          }),
        ],
      },
      { maxAttempts: 2 },
    )
    await expect(task.run({ taskId: 't', store, input: { trail: [] } })).rejects.toThrow('boom')
    expect(storedCheckpoint(store, 't')).toMatchObject({ attemptCount: 1, status: 'running' })
    await expect(task.run({ taskId: 't', store })).rejects.toThrow('boom')
    expect(storedCheckpoint(store, 't')).toMatchObject({ attemptCount: 2, status: 'failed' })
    const before = recordOf(store, 't')
    await expect(task.run({ taskId: 't', store })).rejects.toSatisfy(
      (error) => BudgetExhaustedError.isInstance(error) && error.details.status === 'failed',
    )
    expect(runs).toBe(2)
    expect(recordOf(store, 't')).toEqual(before)
  })

  it('keeps creation settings on resume: a request cannot add attempts or move the deadline', async () => {
    const store = createMemoryDurableStore()
    let fail = true
    const task = defineDurableTask({
      id: 'fixed',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('a', 'safe', () => {
          if (fail) throw new Error('fail')
        }),
      ],
    })
    await expect(
      task.run({ taskId: 't', store, input: { trail: [] }, maxAttempts: 2, deadlineAtMs: 8_000_000_000_000 }),
    ).rejects.toThrow('fail')
    fail = false
    await task.run({ taskId: 't', store, maxAttempts: 50, deadlineAtMs: 9_000_000_000_000 })
    expect(storedCheckpoint(store, 't')).toMatchObject({
      maxAttempts: 2,
      deadlineAtMs: 8_000_000_000_000,
      attemptCount: 2,
    })
  })
})

describe('defineDurableTask: replay policies', () => {
  function chargeTask(charges: string[], reconciles: string[], withReconcile = true) {
    return defineDurableTask({
      id: 'charge',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('prepare'),
        {
          id: 'charge',
          replayPolicy: 'reconcile',
          run: (state: Trail, context: DurableStepContext) => {
            charges.push(context.mode)
            if (state.trail.includes('crash-after-charge')) throw new Error('crashed after the effect')
            return { trail: [...state.trail, 'charge'] }
          },
          ...(withReconcile
            ? {
                reconcile: (state: Trail, context: DurableStepContext) => {
                  reconciles.push(context.mode)
                  return { trail: [...state.trail.filter((item) => item !== 'crash-after-charge'), 'charge'] }
                },
              }
            : {}),
        },
        trailStep('finish'),
      ],
    })
  }

  it('never reconciles on an uninterrupted run', async () => {
    const charges: string[] = []
    const reconciles: string[] = []
    await chargeTask(charges, reconciles).run({
      taskId: 't',
      store: createMemoryDurableStore(),
      input: { trail: [] },
    })
    expect(charges).toEqual(['run'])
    expect(reconciles).toEqual([])
  })

  it('resumes an interrupted reconcile step only through reconcile, and later steps normally', async () => {
    const store = createMemoryDurableStore()
    const charges: string[] = []
    const reconciles: string[] = []
    const task = chargeTask(charges, reconciles)
    await expect(task.run({ taskId: 't', store, input: { trail: ['crash-after-charge'] } })).rejects.toThrow(
      'crashed after the effect',
    )
    expect(await task.run({ taskId: 't', store })).toEqual({ trail: ['prepare', 'charge', 'finish'] })
    expect(charges).toEqual(['run'])
    expect(reconciles).toEqual(['reconcile'])
  })

  it('refuses to resume at a reconcile step without reconcile, writing nothing', async () => {
    const store = createMemoryDurableStore()
    const charges: string[] = []
    const task = chargeTask(charges, [], false)
    await expect(task.run({ taskId: 't', store, input: { trail: ['crash-after-charge'] } })).rejects.toThrow(
      'crashed after the effect',
    )
    const before = recordOf(store, 't')
    await expect(task.run({ taskId: 't', store })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'reconcile-missing',
    )
    expect(recordOf(store, 't')).toEqual(before)
    expect(charges).toEqual(['run'])
  })

  it('resumes once reconcile is added under the same revision, as the refusal says', async () => {
    const store = createMemoryDurableStore()
    const charges: string[] = []
    const reconciles: string[] = []
    await expect(
      chargeTask(charges, [], false).run({ taskId: 't', store, input: { trail: ['crash-after-charge'] } }),
    ).rejects.toThrow('crashed after the effect')
    const refusal = await chargeTask(charges, [], false)
      .run({ taskId: 't', store })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(InvalidStateError.isInstance(refusal) && refusal.details).toMatchObject({
      reason: 'reconcile-missing',
      stepId: 'charge',
      revision: '1',
    })
    expect((refusal as Error).message).toContain('keep revision "1"')
    // The path the message gives works: the same revision, now with reconcile, resumes the task.
    expect(await chargeTask(charges, reconciles).run({ taskId: 't', store })).toEqual({
      trail: ['prepare', 'charge', 'finish'],
    })
    expect(charges).toEqual(['run'])
    expect(reconciles).toEqual(['reconcile'])
  })
})

describe('defineDurableTask: deadlines', () => {
  it('ends a task whose deadline passed while no worker ran, without running a step', async () => {
    const store = createMemoryDurableStore()
    let clock = 1_000
    let runs = 0
    let fail = true
    const task = defineDurableTask(
      {
        id: 'deadline',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('a', 'safe', () => {
            runs++
            if (fail) throw new Error('transient')
          }),
        ],
      },
      { now: () => clock, timeoutMs: 500 },
    )
    await expect(task.run({ taskId: 't', store, input: { trail: [] } })).rejects.toThrow('transient')
    expect(storedCheckpoint(store, 't')).toMatchObject({ deadlineAtMs: 1_500, attemptCount: 1 })
    fail = false
    clock = 1_500
    await expect(task.run({ taskId: 't', store })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error) && error.details.status === 'expired',
    )
    expect(runs).toBe(1)
    expect(storedCheckpoint(store, 't')).toMatchObject({
      status: 'expired',
      attemptCount: 1,
      nextStepIndex: 0,
      deadlineAtMs: 1_500,
    })
    const before = recordOf(store, 't')
    await expect(task.run({ taskId: 't', store })).rejects.toSatisfy((error) =>
      TimeoutError.isInstance(error),
    )
    expect(recordOf(store, 't')).toEqual(before)
  })

  it('does not create a task whose deadline has already passed', async () => {
    const store = createMemoryDurableStore()
    const task = defineDurableTask(
      { id: 'late', revision: '1', isState: isTrail, steps: [trailStep('a')] },
      { now: () => 5_000 },
    )
    await expect(
      task.run({ taskId: 't', store, input: { trail: [] }, deadlineAtMs: 4_000 }),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error))
    expect(store.records.size).toBe(0)
  })

  it('discards the result of a step that finished after the deadline and expires the task', async () => {
    const store = createMemoryDurableStore()
    let clock = 0
    const task = defineDurableTask(
      {
        id: 'slow',
        revision: '1',
        isState: isTrail,
        steps: [trailStep('a'), trailStep('b', 'safe', () => void (clock = 200)), trailStep('c')],
      },
      { now: () => clock },
    )
    await expect(task.run({ taskId: 't', store, input: { trail: [] }, deadlineAtMs: 100 })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error),
    )
    expect(storedCheckpoint(store, 't')).toMatchObject({
      status: 'expired',
      nextStepIndex: 1,
      state: { trail: ['a'] },
    })
  })
})

describe('defineDurableTask: model budget', () => {
  it('persists each attempt reservation before the step runs and never refunds it', async () => {
    const store = createMemoryDurableStore()
    const grants: { maxModelCalls: number | undefined; reservedInStore: number | undefined }[] = []
    const task = defineDurableTask(
      {
        id: 'budget',
        revision: '1',
        isState: isTrail,
        steps: [
          {
            id: 'model',
            replayPolicy: 'safe',
            run: async (_state, context) => {
              grants.push({
                maxModelCalls: context.maxModelCalls,
                reservedInStore: storedCheckpoint(store, 't').modelBudget?.reservedCalls,
              })
              throw new Error('model step failed')
            },
          },
        ],
      },
      { maxAttempts: 4, modelBudget: { maxCalls: 5, maxCallsPerAttempt: 2 } },
    )
    await expect(task.run({ taskId: 't', store, input: { trail: [] } })).rejects.toThrow('model step failed')
    for (let i = 0; i < 3; i++)
      await expect(
        task.run({ taskId: 't', store, modelBudget: { maxCalls: 100, maxCallsPerAttempt: 100 } }),
      ).rejects.toThrow()
    expect(grants).toEqual([
      { maxModelCalls: 2, reservedInStore: 2 },
      { maxModelCalls: 2, reservedInStore: 4 },
      { maxModelCalls: 1, reservedInStore: 5 },
      { maxModelCalls: 0, reservedInStore: 5 },
    ])
    expect(storedCheckpoint(store, 't')).toMatchObject({
      status: 'failed',
      modelBudget: { maxCalls: 5, reservedCalls: 5, maxCallsPerAttempt: 2 },
    })
  })
})

describe('defineDurableTask: authorize', () => {
  function guarded(allowed: Set<string>, calls: CheckpointV2<Trail>[], fail = { value: false }) {
    return defineDurableTask<Trail, { user: string }>({
      id: 'guarded',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('a', 'safe', () => {
          if (fail.value) throw new Error('fail')
        }),
      ],
      authorize: (checkpoint, context) => {
        calls.push(checkpoint)
        expect(Object.isFrozen(checkpoint.state)).toBe(true)
        if (!allowed.has(context.app.user)) throw new Error(`user ${context.app.user} may not run this task`)
      },
    })
  }

  it('authorizes creation, every resume and the completed result with the current identity', async () => {
    const store = createMemoryDurableStore()
    const calls: CheckpointV2<Trail>[] = []
    const fail = { value: true }
    const task = guarded(new Set(['alice']), calls, fail)
    await expect(
      task.run({ taskId: 't', store, input: { trail: [] } }, { app: { user: 'alice' } }),
    ).rejects.toThrow('fail')
    expect(calls.map((c) => c.attemptCount)).toEqual([1])
    const before = recordOf(store, 't')
    await expect(task.run({ taskId: 't', store }, { app: { user: 'mallory' } })).rejects.toSatisfy((error) =>
      UnauthorizedError.isInstance(error),
    )
    expect(recordOf(store, 't')).toEqual(before)
    fail.value = false
    await task.run({ taskId: 't', store }, { app: { user: 'alice' } })
    await expect(task.run({ taskId: 't', store }, { app: { user: 'mallory' } })).rejects.toSatisfy((error) =>
      UnauthorizedError.isInstance(error),
    )
    expect(calls.map((c) => c.status)).toEqual(['running', 'running', 'running', 'completed', 'completed'])
  })

  it('refuses an authorize that returns a value instead of nothing', async () => {
    const task = defineDurableTask({
      id: 'returns',
      revision: '1',
      isState: isTrail,
      steps: [trailStep('a')],
      authorize: (() => false) as never,
    })
    await expect(
      task.run({ taskId: 't', store: createMemoryDurableStore(), input: { trail: [] } }),
    ).rejects.toSatisfy((error) => InvalidOutputError.isInstance(error))
  })
})

describe('defineDurableTask: cancellation', () => {
  it('refuses an aborted signal before touching the store', async () => {
    const controller = new AbortController()
    controller.abort()
    let touched = false
    const store = createMemoryDurableStore()
    const spy: DurableStore = {
      exclusive: (taskId, operation, options) => {
        touched = true
        return store.exclusive(taskId, operation, options)
      },
      load: (taskId) => store.load(taskId),
      save: (taskId, checkpoint) => store.save(taskId, checkpoint),
    }
    await expect(
      threeSteps().run({ taskId: 't', store: spy, input: { trail: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(touched).toBe(false)
  })

  it('does not save the result of a step during which the run was cancelled', async () => {
    const store = createMemoryDurableStore()
    const controller = new AbortController()
    const task = defineDurableTask({
      id: 'cancel',
      revision: '1',
      isState: isTrail,
      steps: [trailStep('a'), trailStep('b', 'safe', () => controller.abort()), trailStep('c')],
    })
    await expect(
      task.run({ taskId: 't', store, input: { trail: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy(
      (error) => AbortedError.isInstance(error) && String(error.details.point).includes('after step "b"'),
    )
    expect(storedCheckpoint(store, 't')).toMatchObject({
      nextStepIndex: 1,
      status: 'running',
      state: { trail: ['a'] },
    })
  })

  it('lets a save that was in flight when the run was cancelled complete, and says so', async () => {
    const inner = createMemoryDurableStore()
    const controller = new AbortController()
    let saves = 0
    const store: DurableStore = {
      exclusive: (taskId, operation, options) => inner.exclusive(taskId, operation, options),
      load: (taskId) => inner.load(taskId),
      save: async (taskId, checkpoint) => {
        saves++
        if (saves === 2) controller.abort()
        await new Promise((resolve) => setTimeout(resolve, 0))
        return inner.save(taskId, checkpoint)
      },
    }
    await expect(
      threeSteps().run({ taskId: 't', store, input: { trail: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy(
      (error) => AbortedError.isInstance(error) && String(error.details.point).includes('committed'),
    )
    expect(storedCheckpoint(inner, 't')).toMatchObject({ nextStepIndex: 1, state: { trail: ['a'] } })
  })

  it('stops waiting for a lease held by another run when cancelled', async () => {
    const store = createMemoryDurableStore()
    const controller = new AbortController()
    let release!: () => void
    const held = store.exclusive('t', () => new Promise<void>((resolve) => (release = resolve)))
    const waiting = threeSteps().run(
      { taskId: 't', store, input: { trail: [] } },
      { signal: controller.signal },
    )
    controller.abort()
    await expect(waiting).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    release()
    await held
    expect(store.records.size).toBe(0)
  })

  it('aborts the step signal at the deadline', async () => {
    const store = createMemoryDurableStore()
    // The task's clock stands still until the step's deadline timer fires, so a busy machine cannot make
    // the deadline pass before the step starts; the step then moves the clock past the deadline.
    let clock = 1_000
    const task = defineDurableTask(
      {
        id: 'timer',
        revision: '1',
        isState: isTrail,
        steps: [
          {
            id: 'wait',
            replayPolicy: 'safe',
            run: (_state, context) =>
              new Promise<Trail>((_resolve, reject) => {
                context.signal.addEventListener(
                  'abort',
                  () => {
                    clock += 1_000
                    reject(context.signal.reason)
                  },
                  { once: true },
                )
              }),
          },
        ],
      },
      { now: () => clock },
    )
    await expect(task.run({ taskId: 't', store, input: { trail: [] }, timeoutMs: 20 })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error),
    )
    expect(storedCheckpoint(store, 't').status).toBe('expired')
  })
})

describe('defineDurableTask: bad input', () => {
  const valid = { id: 'ok', revision: '1', isState: isTrail, steps: [trailStep('a')] }

  it('refuses malformed definitions', () => {
    const cases: unknown[] = [
      null,
      'task',
      { ...valid, id: '' },
      { ...valid, id: 7 },
      { ...valid, revision: '' },
      { ...valid, revision: 2 },
      { ...valid, steps: [] },
      { ...valid, steps: 'a' },
      { ...valid, steps: [null] },
      { ...valid, steps: [trailStep('a'), trailStep('a')] },
      { ...valid, steps: [{ ...trailStep('a'), id: '' }] },
      { ...valid, steps: [{ ...trailStep('a'), replayPolicy: 'always' }] },
      { ...valid, steps: [{ ...trailStep('a'), replayPolicy: undefined }] },
      { ...valid, steps: [{ ...trailStep('a'), run: 'run' }] },
      { ...valid, steps: [{ ...trailStep('a'), reconcile: 5 }] },
      { ...valid, isState: undefined },
      { ...valid, authorize: 'yes' },
    ]
    for (const definition of cases) {
      expect(() => defineDurableTask(definition as never), JSON.stringify(definition)).toThrow(
        InvalidDefinitionError,
      )
    }
  })

  it('refuses bad options', () => {
    const cases: unknown[] = [
      null,
      { store: {} },
      { now: 5 },
      { maxAttempts: 0 },
      { maxAttempts: Number.NaN },
      { maxAttempts: -1 },
      { maxAttempts: 1.5 },
      { maxAttempts: 2 ** 60 },
      { timeoutMs: 0 },
      { modelBudget: { maxCalls: -1, maxCallsPerAttempt: 1 } },
      { modelBudget: { maxCalls: 1 } },
    ]
    for (const options of cases) {
      expect(() => defineDurableTask(valid, options as never), JSON.stringify(options)).toThrow(
        InvalidInputError,
      )
    }
  })

  it('refuses bad requests and contexts before touching the store', async () => {
    const store = createMemoryDurableStore()
    const task = defineDurableTask(valid)
    const cases: unknown[] = [
      null,
      'task',
      { taskId: '', store },
      { taskId: 42, store },
      { taskId: 't' },
      { taskId: 't', store: { load() {} } },
      { taskId: 't', store, input: { trail: [] }, maxAttempts: Number.NaN },
      { taskId: 't', store, input: { trail: [] }, deadlineAtMs: -1 },
      { taskId: 't', store, input: { trail: [] }, deadlineAtMs: 1.5 },
      { taskId: 't', store, input: { trail: [] }, deadlineAtMs: 10, timeoutMs: 10 },
      { taskId: 't', store, input: { trail: 'no' } },
      { taskId: 't', store, input: { trail: [1n] } },
    ]
    for (const request of cases) {
      await expect(task.run(request as never), String(request)).rejects.toSatisfy((error) =>
        InvalidInputError.isInstance(error),
      )
    }
    await expect(
      task.run({ taskId: 't', store, input: { trail: [] } }, { signal: 'no' } as never),
    ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
    expect(store.records.size).toBe(0)
  })

  it('refuses a thenable or non-boolean from isState, and a step result isState rejects', async () => {
    const store = createMemoryDurableStore()
    const thenable = defineDurableTask({ ...valid, isState: (() => Promise.resolve(true)) as never })
    await expect(thenable.run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy((error) =>
      RejectedThenableError.isInstance(error),
    )
    const nonBoolean = defineDurableTask({ ...valid, isState: (() => 'yes') as never })
    await expect(nonBoolean.run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy((error) =>
      InvalidOutputError.isInstance(error),
    )
    const badStep = defineDurableTask({
      ...valid,
      steps: [{ id: 'bad', replayPolicy: 'safe', run: () => ({ trail: 'nope' }) as never }],
    })
    await expect(badStep.run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy((error) =>
      InvalidOutputError.isInstance(error),
    )
    expect(storedCheckpoint(store, 't')).toMatchObject({ nextStepIndex: 0, state: { trail: [] } })
  })
})

describe('defineDurableTask: inspect', () => {
  it('reads a validated checkpoint without writing, and undefined for an unknown task', async () => {
    const store: MemoryDurableStore = createMemoryDurableStore()
    const task = threeSteps()
    expect(await task.inspect({ taskId: 't', store })).toBeUndefined()
    await task.run({ taskId: 't', store, input: { trail: [] } })
    const before = recordOf(store, 't')
    expect(await task.inspect({ taskId: 't', store })).toMatchObject({
      status: 'completed',
      state: { trail: ['a', 'b', 'c'] },
    })
    expect(recordOf(store, 't')).toEqual(before)
  })
})

describe('defineDurableTask: diagnostics spans', () => {
  /** Each span's name and outcome, in the order the spans ended. */
  function outcomes(sink: MemoryDiagnosticSink): string[] {
    return sink.events
      .filter((event) => event.kind.endsWith('-end') && event.spanId !== undefined)
      .map((event) => `${event.kind.slice(0, -4)}:${String(event.data.outcome)}`)
  }

  it('ends the step, attempt and task spans as aborted when the run is cancelled inside a step', async () => {
    const sink = new MemoryDiagnosticSink()
    const controller = new AbortController()
    const task = defineDurableTask({
      id: 'spans',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('a'),
        {
          id: 'b',
          replayPolicy: 'safe',
          run: async (_state, context) => {
            controller.abort()
            throw context.signal.reason
          },
        },
      ],
    })
    await expect(
      task.run(
        { taskId: 't', store: createMemoryDurableStore(), input: { trail: [] } },
        { signal: controller.signal, diagnostics: sink.sink },
      ),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(outcomes(sink)).toEqual(['step:ok', 'step:aborted', 'attempt:aborted', 'task:aborted'])
    expect(spanProblems(sink.events)).toEqual([])
  })

  it('ends them as error when the last attempt fails, and as timeout when the task expires', async () => {
    const failing = new MemoryDiagnosticSink()
    const failer = defineDurableTask(
      {
        id: 'fails',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('boom', 'safe', () => {
            throw new Error('boom')
          }),
        ],
      },
      { maxAttempts: 1 },
    )
    const store = createMemoryDurableStore()
    await expect(
      failer.run({ taskId: 'f', store, input: { trail: [] } }, { diagnostics: failing.sink }),
    ).rejects.toThrow('boom')
    expect(outcomes(failing)).toEqual(['step:error', 'attempt:error', 'task:error'])
    expect(failing.ofKind('task-end')[0]?.data).toMatchObject({ status: 'failed', errorMessage: 'boom' })

    const expiring = new MemoryDiagnosticSink()
    let clock = 0
    const slow = defineDurableTask(
      {
        id: 'slow',
        revision: '1',
        isState: isTrail,
        steps: [trailStep('a', 'safe', () => void (clock = 500)), trailStep('b')],
      },
      { now: () => clock },
    )
    await expect(
      slow.run(
        { taskId: 'e', store, input: { trail: [] }, deadlineAtMs: 100 },
        { diagnostics: expiring.sink },
      ),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error))
    expect(outcomes(expiring)).toEqual(['step:timeout', 'attempt:timeout', 'task:timeout'])
    expect(expiring.ofKind('task-end')[0]?.data).toMatchObject({ status: 'expired' })
    expect(spanProblems([...failing.events, ...expiring.events])).toEqual([])
  })

  it('reports a wait for a lease another owner holds as a lease-wait span, naming the holder', async () => {
    const sink = new MemoryDiagnosticSink()
    const store = createMemoryDurableStore()
    const holding = gate()
    const release = gate()
    let holderId = ''
    const holder = store.exclusive('t', async (lease) => {
      holderId = lease.ownerId
      holding.open()
      await release.promise
    })
    await holding.promise
    const run = threeSteps().run({ taskId: 't', store, input: { trail: [] } }, { diagnostics: sink.sink })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(sink.ofKind('lease-wait-start').map((event) => event.data)).toEqual([
      { holder: holderId, expiresAtMs: null },
    ])
    release.open()
    await holder
    await run
    expect(outcomes(sink).slice(0, 1)).toEqual(['lease-wait:ok'])
    expect(spanProblems(sink.events)).toEqual([])
  })

  it('ends a lease wait as aborted when the run is cancelled while waiting', async () => {
    const sink = new MemoryDiagnosticSink()
    const store = createMemoryDurableStore()
    const holding = gate()
    const release = gate()
    const holder = store.exclusive('t', async () => {
      holding.open()
      await release.promise
    })
    await holding.promise
    const controller = new AbortController()
    const run = threeSteps().run(
      { taskId: 't', store, input: { trail: [] } },
      { diagnostics: sink.sink, signal: controller.signal },
    )
    await new Promise((resolve) => setTimeout(resolve, 0))
    controller.abort()
    await expect(run).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    release.open()
    await holder
    expect(outcomes(sink)).toEqual(['lease-wait:aborted', 'task:aborted'])
    expect(spanProblems(sink.events)).toEqual([])
  })
})
