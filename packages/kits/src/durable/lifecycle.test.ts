import {
  AbortedError,
  ConflictError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidStateError,
  TimeoutError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { type DurableTaskDefinition, defineDurableTask } from './durable-task.js'
import {
  gate,
  isTrail,
  recordOf,
  storedCheckpoint,
  type Trail,
  trailStep,
} from './internal/testing/fixtures.js'
import { createMemoryDurableStore, type MemoryDurableStore } from './memory-store.js'
import type { DurableStore } from './store.js'

type Hook = 'exclusive' | 'load' | 'save-start' | 'save'

/**
 * A memory store that logs lock, load and save events in order and runs `onCall` inside the chosen call:
 * `exclusive` runs it inside the lock before the operation, `save-start` as a save begins, `load`/`save`
 * after the inner call settled.
 */
function tracedStore(inner: MemoryDurableStore, onCall: (hook: Hook, call: number) => void = () => {}) {
  const events: string[] = []
  const calls: Record<Hook, number> = { exclusive: 0, load: 0, 'save-start': 0, save: 0 }
  let held = false
  const store: DurableStore = {
    exclusive: (taskId, operation, options) =>
      inner.exclusive(
        taskId,
        async (lease) => {
          held = true
          events.push('lock')
          try {
            onCall('exclusive', ++calls.exclusive)
            return await operation(lease)
          } finally {
            events.push('unlock')
            held = false
          }
        },
        options,
      ),
    load: async (taskId) => {
      const stored = await inner.load(taskId)
      events.push('load')
      onCall('load', ++calls.load)
      return stored
    },
    save: async (taskId, checkpoint) => {
      events.push(`save-start:${checkpoint.status}:${held ? 'locked' : 'unlocked'}`)
      onCall('save-start', ++calls['save-start'])
      // A save that takes a few turns of the event loop, so a cancellation can land while it is in flight.
      await new Promise((resolve) => setImmediate(resolve))
      const result = await inner.save(taskId, checkpoint)
      events.push(`save-end:${checkpoint.status}:${held ? 'locked' : 'unlocked'}`)
      onCall('save', ++calls.save)
      return result
    },
  }
  return { store, events }
}

function isAbortedAt(point: string) {
  return (error: unknown) => AbortedError.isInstance(error) && String(error.details.point).includes(point)
}

function task(definition: Partial<DurableTaskDefinition<Trail>> = {}, ran: string[] = []) {
  return defineDurableTask<Trail>({
    id: 'life',
    revision: '1',
    isState: isTrail,
    steps: [trailStep('a', 'safe', () => ran.push('a')), trailStep('b', 'safe', () => ran.push('b'))],
    ...definition,
  })
}

/** A memory store holding task "t" stopped after a failed attempt of step "a" (attempt 1 of 3). */
async function interrupted(): Promise<MemoryDurableStore> {
  const inner = createMemoryDurableStore()
  const failing = task({
    steps: [
      trailStep('a', 'safe', () => {
        throw new Error('first attempt fails')
      }),
      trailStep('b'),
    ],
  })
  await expect(failing.run({ taskId: 't', store: inner, input: { trail: [] } })).rejects.toThrow(
    'first attempt fails',
  )
  return inner
}

describe('durable lifecycle: where cancellation is checked', () => {
  it('on entering the exclusive section, before reading', async () => {
    const inner = await interrupted()
    const before = recordOf(inner, 't')
    const controller = new AbortController()
    const { store, events } = tracedStore(inner, (hook) => hook === 'exclusive' && controller.abort())
    await expect(task().run({ taskId: 't', store }, { signal: controller.signal })).rejects.toSatisfy(
      isAbortedAt('entering exclusive'),
    )
    expect(events).toEqual(['lock', 'unlock'])
    expect(recordOf(inner, 't')).toEqual(before)
  })

  it('after reading, before validating or writing', async () => {
    const inner = await interrupted()
    const before = recordOf(inner, 't')
    const controller = new AbortController()
    let validated = 0
    const { store, events } = tracedStore(inner, (hook) => hook === 'load' && controller.abort())
    const counting = task({
      isState: (value): value is Trail => {
        validated++
        return isTrail(value)
      },
    })
    await expect(counting.run({ taskId: 't', store }, { signal: controller.signal })).rejects.toSatisfy(
      (error) => AbortedError.isInstance(error) && String(error.details.point).includes('reading'),
    )
    expect(validated).toBe(0)
    expect(events).toEqual(['lock', 'load', 'unlock'])
    expect(recordOf(inner, 't')).toEqual(before)
  })

  it('after validating and cloning the stored state, before authorize or any write', async () => {
    const inner = await interrupted()
    const before = recordOf(inner, 't')
    const controller = new AbortController()
    let authorized = 0
    const { store, events } = tracedStore(inner)
    const aborting = task({
      isState: (value): value is Trail => {
        controller.abort()
        return isTrail(value)
      },
      authorize: () => {
        authorized++
      },
    })
    await expect(aborting.run({ taskId: 't', store }, { signal: controller.signal })).rejects.toSatisfy(
      isAbortedAt('after validating state'),
    )
    expect(authorized).toBe(0)
    expect(events).toEqual(['lock', 'load', 'unlock'])
    expect(recordOf(inner, 't')).toEqual(before)
  })

  it('after validating and cloning the input of a new task, before authorize or any write', async () => {
    const inner = createMemoryDurableStore()
    const controller = new AbortController()
    let authorized = 0
    const aborting = task({
      isState: (value): value is Trail => {
        controller.abort()
        return isTrail(value)
      },
      authorize: () => {
        authorized++
      },
    })
    await expect(
      aborting.run({ taskId: 't', store: inner, input: { trail: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy(isAbortedAt('after validating state'))
    expect(authorized).toBe(0)
    expect(inner.records.size).toBe(0)
  })

  it('before the attempt save, when authorize was cancelled', async () => {
    const inner = await interrupted()
    const before = recordOf(inner, 't')
    const controller = new AbortController()
    const { store, events } = tracedStore(inner)
    const aborting = task({ authorize: () => controller.abort() })
    await expect(aborting.run({ taskId: 't', store }, { signal: controller.signal })).rejects.toSatisfy(
      isAbortedAt('before save (attempt)'),
    )
    expect(events).toEqual(['lock', 'load', 'unlock'])
    expect(recordOf(inner, 't')).toEqual(before)
  })

  it('after each save: a cancelled attempt save still commits inside the lock, and no step runs', async () => {
    const inner = await interrupted()
    const controller = new AbortController()
    const ran: string[] = []
    // Cancel once the attempt save has started: it must finish and be reported as committed.
    const { store, events } = tracedStore(inner, (hook) => hook === 'save-start' && controller.abort())
    await expect(task({}, ran).run({ taskId: 't', store }, { signal: controller.signal })).rejects.toSatisfy(
      isAbortedAt('after save (attempt, committed)'),
    )
    expect(ran).toEqual([])
    expect(events).toEqual(['lock', 'load', 'save-start:running:locked', 'save-end:running:locked', 'unlock'])
    expect(storedCheckpoint(inner, 't')).toMatchObject({
      attemptCount: 2,
      status: 'running',
      nextStepIndex: 0,
    })
  })

  it('every save of a whole run starts and ends inside the lock', async () => {
    const inner = createMemoryDurableStore()
    const { store, events } = tracedStore(inner)
    expect(await task().run({ taskId: 't', store, input: { trail: [] } })).toEqual({ trail: ['a', 'b'] })
    expect(events).toEqual([
      'lock',
      'load',
      'save-start:running:locked',
      'save-end:running:locked',
      'save-start:running:locked',
      'save-end:running:locked',
      'save-start:completed:locked',
      'save-end:completed:locked',
      'unlock',
    ])
  })
})

describe('durable lifecycle: where the deadline is checked', () => {
  /** A clock that the store moves forward by `step` ms at the chosen save. */
  function clockedStore(inner: MemoryDurableStore, clock: { now: number }, atSave: number, jump: number) {
    return tracedStore(inner, (hook, call) => {
      if (hook === 'save' && call === atSave) clock.now += jump
    })
  }

  it('a deadline that passes during the create save stops the task before its first step', async () => {
    const clock = { now: 1_000 }
    const inner = createMemoryDurableStore()
    const ran: string[] = []
    const { store } = clockedStore(inner, clock, 1, 100)
    const clocked = defineDurableTask(
      { id: 'life', revision: '1', isState: isTrail, steps: [trailStep('a', 'safe', () => ran.push('a'))] },
      { now: () => clock.now },
    )
    await expect(clocked.run({ taskId: 't', store, input: { trail: [] }, timeoutMs: 50 })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error) && String(error.message).includes('before step "a"'),
    )
    expect(ran).toEqual([])
    expect(storedCheckpoint(inner, 't')).toMatchObject({
      status: 'expired',
      nextStepIndex: 0,
      deadlineAtMs: 1_050,
    })
  })

  it('a deadline that passes during a step save stops the task before the next step', async () => {
    const clock = { now: 1_000 }
    const inner = createMemoryDurableStore()
    const ran: string[] = []
    const { store } = clockedStore(inner, clock, 2, 100)
    const clocked = defineDurableTask(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [trailStep('a', 'safe', () => ran.push('a')), trailStep('b', 'safe', () => ran.push('b'))],
      },
      { now: () => clock.now },
    )
    await expect(clocked.run({ taskId: 't', store, input: { trail: [] }, timeoutMs: 50 })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error),
    )
    expect(ran).toEqual(['a'])
    expect(storedCheckpoint(inner, 't')).toMatchObject({
      status: 'expired',
      nextStepIndex: 1,
      state: { trail: ['a'] },
    })
  })

  it('a deadline that passes during the attempt save of a resume stops the task before its step', async () => {
    const clock = { now: 1_000 }
    const inner = createMemoryDurableStore()
    const ran: string[] = []
    let fail = true
    const clocked = defineDurableTask(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('a', 'safe', () => {
            ran.push('a')
            if (fail) throw new Error('fail')
          }),
        ],
      },
      { now: () => clock.now },
    )
    await expect(
      clocked.run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: 50 }),
    ).rejects.toThrow('fail')
    fail = false
    const { store } = clockedStore(inner, clock, 1, 100)
    await expect(clocked.run({ taskId: 't', store })).rejects.toSatisfy((error) =>
      TimeoutError.isInstance(error),
    )
    expect(ran).toEqual(['a'])
    expect(storedCheckpoint(inner, 't')).toMatchObject({ status: 'expired', attemptCount: 2 })
  })

  it('a deadline that passes while authorize runs on a resume writes only the expiry, and no attempt', async () => {
    const clock = { now: 1_000 }
    const inner = createMemoryDurableStore()
    let fail = true
    let slowAuthorize = false
    const clocked = defineDurableTask(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('a', 'safe', () => {
            if (fail) throw new Error('fail')
          }),
        ],
        authorize: () => {
          if (slowAuthorize) clock.now += 100
        },
      },
      { now: () => clock.now },
    )
    await expect(
      clocked.run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: 50 }),
    ).rejects.toThrow('fail')
    fail = false
    slowAuthorize = true
    await expect(clocked.run({ taskId: 't', store: inner })).rejects.toSatisfy((error) =>
      TimeoutError.isInstance(error),
    )
    expect(storedCheckpoint(inner, 't')).toMatchObject({ status: 'expired', attemptCount: 1 })
  })

  it('a deadline that passes while authorize runs on creation writes nothing', async () => {
    const clock = { now: 1_000 }
    const inner = createMemoryDurableStore()
    const clocked = defineDurableTask(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [trailStep('a')],
        authorize: () => {
          clock.now += 100
        },
      },
      { now: () => clock.now },
    )
    await expect(
      clocked.run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: 50 }),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error))
    expect(inner.records.size).toBe(0)
  })
})

describe('durable lifecycle: what the runner refuses from its ports', () => {
  it('refuses a clock that returns no epoch milliseconds, writing nothing', async () => {
    for (const value of [Number.NaN, -1, Number.POSITIVE_INFINITY, '1000', undefined]) {
      const inner = createMemoryDurableStore()
      const clocked = defineDurableTask(
        { id: 'life', revision: '1', isState: isTrail, steps: [trailStep('a')] },
        { now: () => value as number },
      )
      await expect(
        clocked.run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: 50 }),
      ).rejects.toSatisfy(
        (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-clock',
      )
      expect(inner.records.size).toBe(0)
    }
  })

  it('floors a fractional clock, so the stored deadline can be read back', async () => {
    const inner = createMemoryDurableStore()
    let fail = true
    const clocked = defineDurableTask(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [
          trailStep('a', 'safe', () => {
            if (fail) throw new Error('fail')
          }),
        ],
      },
      { now: () => 1_000.75 },
    )
    await expect(
      clocked.run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: 50 }),
    ).rejects.toThrow('fail')
    expect(storedCheckpoint(inner, 't').deadlineAtMs).toBe(1_050)
    fail = false
    expect(await clocked.run({ taskId: 't', store: inner })).toEqual({ trail: ['a'] })
  })

  it('refuses a timeoutMs whose deadline is not a safe integer, writing nothing', async () => {
    const inner = createMemoryDurableStore()
    await expect(
      task().run({ taskId: 't', store: inner, input: { trail: [] }, timeoutMs: Number.MAX_SAFE_INTEGER }),
    ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
    expect(inner.records.size).toBe(0)
  })

  it('refuses a fenced load result that is not undefined or { checkpoint, version }, writing nothing', async () => {
    const inner = createMemoryDurableStore()
    const answers: [unknown, string][] = [
      [null, 'bad-load-result'],
      [0, 'bad-load-result'],
      ['x', 'bad-load-result'],
      [{}, 'bad-load-result'],
      [{ checkpoint: {} }, 'corrupt'],
      [{ checkpoint: {}, version: 1.5 }, 'corrupt'],
      [{ checkpoint: {}, version: 0 }, 'corrupt'],
      [{ checkpoint: {}, version: -3 }, 'corrupt'],
    ]
    for (const [answer, reason] of answers) {
      let saves = 0
      const store: DurableStore = {
        exclusive: (taskId, operation, options) => inner.exclusive(taskId, operation, options),
        load: (taskId) => inner.load(taskId),
        save: async () => {
          saves++
        },
        fencing: {
          load: async () => answer as never,
          save: async () => {
            saves++
            return { version: 1 }
          },
        },
      }
      await expect(task().run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy(
        (error) => InvalidStateError.isInstance(error) && error.details.reason === reason,
      )
      await expect(task().inspect({ taskId: 't', store })).rejects.toSatisfy((error) =>
        InvalidStateError.isInstance(error),
      )
      expect(saves).toBe(0)
    }
  })

  it('refuses a contract load of null (not undefined) or of a value that is no checkpoint, writing nothing', async () => {
    for (const [answer, reason] of [
      [null, 'bad-load-result'],
      [0, 'not-an-object'],
      ['x', 'not-an-object'],
      [{ checkpoint: {}, version: 1 }, 'unknown-version'],
    ] as const) {
      let saves = 0
      const store: DurableStore = {
        exclusive: (_taskId, operation) => operation(),
        load: async () => answer,
        save: async () => {
          saves++
        },
      }
      await expect(task().run({ taskId: 't', store, input: { trail: [] } })).rejects.toSatisfy(
        (error) => InvalidStateError.isInstance(error) && error.details.reason === reason,
      )
      expect(saves).toBe(0)
    }
  })

  it('refuses a fenced save result without a positive version, unless reading back shows the write committed', async () => {
    for (const commits of [false, true]) {
      for (const result of [undefined, { version: 0 }, { version: '2' }]) {
        const inner = createMemoryDurableStore()
        const store: DurableStore = {
          exclusive: (taskId, operation, options) => inner.exclusive(taskId, operation, options),
          load: (taskId) => inner.load(taskId),
          save: (taskId, checkpoint) => inner.save(taskId, checkpoint),
          fencing: {
            load: (taskId) => inner.fencing.load(taskId),
            save: async (taskId, checkpoint, options) => {
              if (commits) await inner.fencing.save(taskId, checkpoint, options)
              return result as never
            },
          },
        }
        const run = task().run({ taskId: 't', store, input: { trail: [] } })
        if (commits) expect(await run).toEqual({ trail: ['a', 'b'] })
        else
          await expect(run).rejects.toSatisfy(
            (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-save-result',
          )
      }
    }
  })

  it('refuses a store whose shape is wrong before reading or writing anything', async () => {
    const inner = createMemoryDurableStore()
    let touched = 0
    const base = {
      exclusive: (taskId: string, operation: () => Promise<unknown>) => {
        touched++
        return inner.exclusive(taskId, operation)
      },
      load: async () => {
        touched++
      },
      save: async () => {
        touched++
      },
    }
    const wrong: [unknown, string][] = [
      [{ ...base, exclusive: undefined }, 'request.store'],
      [{ ...base, save: 'save' }, 'request.store'],
      [{ ...base, fencing: {} }, 'request.store.fencing'],
      [{ ...base, fencing: { load: async () => undefined } }, 'request.store.fencing'],
      [{ ...base, fencing: 'yes' }, 'request.store.fencing'],
      [{ ...base, reportsLeaseWaits: 'yes' }, 'request.store.reportsLeaseWaits'],
    ]
    for (const [store, field] of wrong) {
      await expect(
        task().run({ taskId: 't', store: store as never, input: { trail: [] } }),
      ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error) && error.details.field === field)
    }
    expect(touched).toBe(0)
    expect(inner.records.size).toBe(0)
  })

  it('refuses a store whose exclusive does not run the operation, or hands it a malformed lease', async () => {
    const inner = createMemoryDurableStore()
    const base = {
      load: (taskId: string) => inner.load(taskId),
      save: (taskId: string, checkpoint: never) => inner.save(taskId, checkpoint),
    }
    const skips: DurableStore = { ...base, exclusive: async () => 'not run' as never }
    await expect(task().run({ taskId: 't', store: skips, input: { trail: [] } })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-exclusive',
    )
    const twice: DurableStore = {
      ...base,
      exclusive: async (_taskId, operation) => {
        await operation()
        return operation()
      },
    }
    await expect(task().run({ taskId: 't2', store: twice, input: { trail: [] } })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-exclusive',
    )
    const badLease: DurableStore = {
      ...base,
      exclusive: (_taskId, operation) => operation({ taskId: 't3', ownerId: 'o', signal: 'no' } as never),
    }
    await expect(task().run({ taskId: 't3', store: badLease, input: { trail: [] } })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-lease',
    )
    expect(inner.records.has('t3')).toBe(false)
  })

  it('stops writing when the store settles exclusive before the operation finished', async () => {
    const inner = createMemoryDurableStore()
    const stepEntered = gate()
    const stepMayFinish = gate()
    let outcome: Promise<unknown> | undefined
    const leaky: DurableStore = {
      load: (taskId) => inner.load(taskId),
      save: (taskId, checkpoint) => inner.save(taskId, checkpoint),
      exclusive: async (_taskId, operation) => {
        outcome = operation()
        await stepEntered.promise
        return undefined as never
      },
    }
    const blocking = task({
      steps: [
        {
          id: 'a',
          replayPolicy: 'safe',
          run: async (state) => {
            stepEntered.open()
            await stepMayFinish.promise
            return { trail: [...state.trail, 'a'] }
          },
        },
        trailStep('b'),
      ],
    })
    await expect(blocking.run({ taskId: 't', store: leaky, input: { trail: [] } })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'bad-exclusive',
    )
    const before = recordOf(inner, 't')
    stepMayFinish.open()
    await expect(outcome).rejects.toSatisfy(
      (error) => ConflictError.isInstance(error) && error.details.reason === 'lease-lost',
    )
    expect(recordOf(inner, 't')).toEqual(before)
  })

  it('refuses a definition with a sparse steps array', () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is refused
    const steps = [trailStep('a'), , trailStep('c')] as never
    expect(() => defineDurableTask({ id: 'sparse', revision: '1', isState: isTrail, steps })).toThrow(
      expect.toSatisfy((error: unknown) => InvalidDefinitionError.isInstance(error)),
    )
  })
})

describe('durable lifecycle: what is saved before a step runs', () => {
  it('the attempt, the running status and the model reservation are stored before each step executes', async () => {
    const inner = createMemoryDurableStore()
    const seen: unknown[] = []
    const controller = new AbortController()
    let cancelInStep = true
    const observed = defineDurableTask<Trail>(
      {
        id: 'life',
        revision: '1',
        isState: isTrail,
        steps: [
          {
            id: 'model',
            replayPolicy: 'safe',
            run: (state, context) => {
              const stored = storedCheckpoint(inner, 't')
              seen.push({
                attempt: context.attempt,
                storedAttempt: stored.attemptCount,
                status: stored.status,
                maxModelCalls: context.maxModelCalls,
                reserved: stored.modelBudget?.reservedCalls,
              })
              // The first run is interrupted mid-step (as by a crash): nothing records a failure.
              if (cancelInStep) controller.abort()
              return { trail: [...state.trail, 'model'] }
            },
          },
        ],
      },
      { modelBudget: { maxCalls: 5, maxCallsPerAttempt: 3 } },
    )
    await expect(
      observed.run({ taskId: 't', store: inner, input: { trail: [] } }, { signal: controller.signal }),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    cancelInStep = false
    // A resume asking for more budget gets none: the interrupted reservation stays spent.
    expect(
      await observed.run({
        taskId: 't',
        store: inner,
        modelBudget: { maxCalls: 50, maxCallsPerAttempt: 50 },
      }),
    ).toEqual({ trail: ['model'] })
    expect(seen).toEqual([
      { attempt: 1, storedAttempt: 1, status: 'running', maxModelCalls: 3, reserved: 3 },
      { attempt: 2, storedAttempt: 2, status: 'running', maxModelCalls: 2, reserved: 5 },
    ])
    expect(storedCheckpoint(inner, 't')).toMatchObject({
      status: 'completed',
      attemptCount: 2,
      modelBudget: { maxCalls: 5, reservedCalls: 5, maxCallsPerAttempt: 3 },
    })
  })
})

describe('durable lifecycle: a pending authorize', () => {
  it('is abandoned when the run is cancelled, with nothing written', async () => {
    const inner = await interrupted()
    const before = recordOf(inner, 't')
    const controller = new AbortController()
    let asked!: () => void
    const authorizing = new Promise<void>((resolve) => {
      asked = resolve
    })
    const pending = task({
      authorize: () => {
        asked()
        return new Promise<void>(() => {})
      },
    })
    const run = pending.run({ taskId: 't', store: inner }, { signal: controller.signal })
    await authorizing
    controller.abort()
    await expect(run).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(recordOf(inner, 't')).toEqual(before)
  })
})
