import {
  AbortedError,
  AttemptBudget,
  BudgetExhaustedError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  Registry,
  RejectedThenableError,
  TimeoutError,
  UnknownIdError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { defineModelBinding, MAX_TIMEOUT_MS, type ModelBinding, ModelCalls } from './index.js'

/** A binding that records every hook call in `log`. */
function recorded(log: string[], overrides: Partial<Omit<ModelBinding<string, string>, 'id'>> = {}) {
  return defineModelBinding<'echo', string, string>({
    id: 'echo',
    identity: 'echo-1',
    assertInput(input) {
      log.push('assertInput')
      if (typeof input !== 'string') throw new TypeError('echo takes a string')
    },
    invoke(input) {
      log.push('invoke')
      return `echo: ${input}`
    },
    assertOutput() {
      log.push('assertOutput')
    },
    ...overrides,
  })
}

describe('ModelCalls.invoke', () => {
  it('wraps the business value as { value, invocation }', async () => {
    const models = new ModelCalls([recorded([])])
    const budget = new AttemptBudget(3)
    const { value, invocation } = await models.invoke(
      { modelId: 'echo', input: 'hi', timeoutMs: 1000 },
      { attemptBudget: budget, now: () => 42 },
    )
    expect(value).toBe('echo: hi')
    expect(invocation).toMatchObject({
      modelId: 'echo',
      identity: 'echo-1',
      attempt: { attempt: 1, limit: 3 },
      startedAtMs: 42,
      finishedAtMs: 42,
    })
    expect(invocation.invocationId).toMatch(/^inv_/)
    expect(Object.isFrozen(invocation)).toBe(true)
  })

  it('runs the checks in order: request, resolution, signal, assertInput, budget, invoke, assertOutput', async () => {
    const log: string[] = []
    const budget = new AttemptBudget(5)
    const takeOriginal = budget.take.bind(budget)
    budget.take = (options) => {
      log.push('budget')
      return takeOriginal(options)
    }
    const models = new ModelCalls([recorded(log)])
    await models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget })
    expect(log).toEqual(['assertInput', 'budget', 'invoke', 'assertOutput'])
  })

  it('hands over to invoke in the same call stack, with no microtask in between', async () => {
    const log: string[] = []
    const models = new ModelCalls([recorded(log)])
    queueMicrotask(() => log.push('microtask'))
    const pending = models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 })
    log.push('returned')
    await pending
    expect(log.slice(0, 4)).toEqual(['assertInput', 'invoke', 'returned', 'microtask'])
  })

  it('refuses a bad timeoutMs before anything else runs, consuming nothing', async () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, MAX_TIMEOUT_MS + 1, '100', undefined, 2 ** 53]) {
      const log: string[] = []
      const budget = new AttemptBudget(1)
      const models = new ModelCalls([recorded(log)])
      const call = models.invoke({ modelId: 'echo', input: 'x', timeoutMs } as never, {
        attemptBudget: budget,
      })
      await expect(call).rejects.toSatisfy(
        (error) => InvalidInputError.isInstance(error) && error.details.field === 'timeoutMs',
      )
      expect(log).toEqual([])
      expect(budget.used).toBe(0)
    }
    const models = new ModelCalls([recorded([])])
    await expect(
      models.invoke({ modelId: 'echo', input: 'x', timeoutMs: MAX_TIMEOUT_MS }),
    ).resolves.toBeDefined()
    await expect(models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 1 })).resolves.toBeDefined()
  })

  it('an unknown id, a cancelled signal or refused input consume no attempt', async () => {
    const log: string[] = []
    const budget = new AttemptBudget(1)
    const models = new ModelCalls([recorded(log)])
    await expect(
      models.invoke({ modelId: 'nope' as 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget }),
    ).rejects.toSatisfy((error) => UnknownIdError.isInstance(error))
    const controller = new AbortController()
    controller.abort()
    await expect(
      models.invoke(
        { modelId: 'echo', input: 'x', timeoutMs: 10 },
        { attemptBudget: budget, signal: controller.signal },
      ),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    await expect(
      models.invoke(
        { modelId: 'echo', input: 7 as unknown as string, timeoutMs: 10 },
        { attemptBudget: budget },
      ),
    ).rejects.toThrow(TypeError)
    expect(log).toEqual(['assertInput'])
    expect(budget.used).toBe(0)
    await models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget })
    expect(budget.used).toBe(1)
  })

  it('takes the attempt before I/O and never refunds it when the call fails', async () => {
    const log: string[] = []
    const budget = new AttemptBudget(2)
    const models = new ModelCalls([
      recorded(log, {
        invoke() {
          log.push(`invoke with ${budget.used} used`)
          throw new Error('provider down')
        },
      }),
    ])
    await expect(
      models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget }),
    ).rejects.toThrow('provider down')
    expect(log).toEqual(['assertInput', 'invoke with 1 used'])
    expect(budget.used).toBe(1)
    await expect(
      models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget }),
    ).rejects.toThrow('provider down')
    await expect(
      models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 }, { attemptBudget: budget }),
    ).rejects.toSatisfy((error) => BudgetExhaustedError.isInstance(error))
    expect(log.filter((entry) => entry.startsWith('invoke'))).toHaveLength(2)
  })

  it('counts a batch call once', async () => {
    const embed = defineModelBinding({
      id: 'embed',
      identity: 'toy-embedder',
      invoke: (texts: readonly string[]) => texts.map((text) => [text.length]),
    })
    const budget = new AttemptBudget(1)
    const models = new ModelCalls([embed])
    const { value } = await models.invoke(
      { modelId: 'embed', input: ['a', 'bb', 'ccc', 'dddd'], timeoutMs: 100 },
      { attemptBudget: budget },
    )
    expect(value).toEqual([[1], [2], [3], [4]])
    expect(budget.used).toBe(1)
  })

  it('the timeout races a binding that ignores its signal, and its late rejection is consumed', async () => {
    let rejectLate: (error: Error) => void = () => {}
    let seenSignal: AbortSignal | undefined
    const stuck = defineModelBinding({
      id: 'stuck',
      identity: 'never-answers',
      invoke: (_input: string, context) => {
        seenSignal = context.signal
        return new Promise<string>((_resolve, reject) => {
          rejectLate = reject
        })
      },
    })
    const models = new ModelCalls([stuck])
    const error = await models
      .invoke({ modelId: 'stuck', input: 'x', timeoutMs: 20 })
      .catch((e: unknown) => e)
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect((error as TimeoutError).details.timeoutMs).toBe(20)
    expect(seenSignal?.aborted).toBe(true)
    rejectLate(new Error('too late'))
    // vitest's setup fails this test if the late rejection surfaces as unhandled.
    await new Promise((resolve) => setTimeout(resolve, 10))
  })

  it('the caller signal aborts a running call and the binding sees it', async () => {
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const waiting = defineModelBinding({
      id: 'wait',
      identity: 'slow',
      invoke: (_input: string, context) => {
        seen = context.signal
        return new Promise<string>(() => {})
      },
    })
    const models = new ModelCalls([waiting])
    const call = models.invoke(
      { modelId: 'wait', input: 'x', timeoutMs: 60_000 },
      { signal: controller.signal },
    )
    controller.abort(new Error('user left'))
    const error = await call.catch((e: unknown) => e)
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).cause).toEqual(new Error('user left'))
    expect(seen?.aborted).toBe(true)
  })

  it('a late success after the timeout is dropped', async () => {
    let resolveLate: (value: string) => void = () => {}
    const late = defineModelBinding({
      id: 'late',
      identity: 'late',
      invoke: () =>
        new Promise<string>((resolve) => {
          resolveLate = resolve
        }),
    })
    const models = new ModelCalls([late])
    await expect(models.invoke({ modelId: 'late', input: undefined, timeoutMs: 5 })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error),
    )
    resolveLate('ignored')
  })

  it('a synchronous throw from invoke becomes a rejection, unchanged', async () => {
    const boom = new Error('sync boom')
    const models = new ModelCalls([
      defineModelBinding({
        id: 'boom',
        identity: 'b',
        invoke: (): string => {
          throw boom
        },
      }),
    ])
    const pending = models.invoke({ modelId: 'boom', input: undefined, timeoutMs: 10 })
    await expect(pending).rejects.toBe(boom)
  })

  it('refuses assertions that return a value or a Promise, so a predicate cannot pass by mistake', async () => {
    const predicate = new ModelCalls([
      {
        id: 'p',
        identity: 'p',
        invoke: () => 'ok',
        assertInput: (input: unknown) => typeof input === 'string',
      },
    ] as ModelBinding[])
    await expect(predicate.invoke({ modelId: 'p', input: 1, timeoutMs: 10 })).rejects.toSatisfy(
      (error) => InvalidOutputError.isInstance(error) && /predicate/.test(error.message),
    )
    const asyncOutput = new ModelCalls([
      { id: 'a', identity: 'a', invoke: () => 'ok', assertOutput: async () => {} },
    ] as ModelBinding[])
    await expect(asyncOutput.invoke({ modelId: 'a', input: 1, timeoutMs: 10 })).rejects.toSatisfy((error) =>
      RejectedThenableError.isInstance(error),
    )
  })

  it('assertOutput refuses the value; its error passes through unchanged', async () => {
    const refusal = new RangeError('too long')
    const models = new ModelCalls([
      recorded([], {
        assertOutput() {
          throw refusal
        },
      }),
    ])
    await expect(models.invoke({ modelId: 'echo', input: 'x', timeoutMs: 10 })).rejects.toBe(refusal)
  })

  it('keeps class instances and receivers as given', async () => {
    class Counter {
      readonly id = 'count'
      readonly identity = 'counter-1'
      #calls = 0
      invoke(input: { readonly items: readonly string[] }) {
        this.#calls += 1
        return `${this.#calls}:${input.items.length}`
      }
    }
    class Items {
      constructor(readonly items: readonly string[]) {}
    }
    const input = new Items(['a', 'b'])
    let received: unknown
    const models = new ModelCalls([new Counter()])
    expect((await models.invoke({ modelId: 'count', input, timeoutMs: 10 })).value).toBe('1:2')
    const spy = new ModelCalls([
      defineModelBinding({
        id: 'spy',
        identity: 's',
        invoke: (value: Items) => {
          received = value
          return ''
        },
      }),
    ])
    await spy.invoke({ modelId: 'spy', input, timeoutMs: 10 })
    expect(received).toBe(input)
  })

  it('emits one model-call span: start before invoke, end after, with the outcome', async () => {
    const sink = new MemoryDiagnosticSink()
    let insideSpan: readonly string[] = []
    const models = new ModelCalls([
      defineModelBinding({
        id: 'traced',
        identity: 't',
        invoke: (fail: boolean, context) => {
          insideSpan = sink.kinds()
          context.diagnostics.emit('provider-request')
          if (fail) throw new Error('nope')
          return 'ok'
        },
      }),
    ])
    await models.invoke({ modelId: 'traced', input: false, timeoutMs: 10 }, { diagnostics: sink.sink })
    await models
      .invoke({ modelId: 'traced', input: true, timeoutMs: 10 }, { diagnostics: sink.sink })
      .catch(() => {})
    // When invoke ran (the second call), its span had started and the first call's had ended.
    expect(insideSpan).toEqual(['model-call-start', 'provider-request', 'model-call-end', 'model-call-start'])
    expect(sink.kinds()).toEqual([
      'model-call-start',
      'provider-request',
      'model-call-end',
      'model-call-start',
      'provider-request',
      'model-call-end',
    ])
    const [firstStart, inner, firstEnd] = sink.events
    expect(inner?.parentSpanId).toBe(firstStart?.spanId)
    expect(firstEnd?.data).toMatchObject({ outcome: 'ok' })
    expect(sink.events[5]?.data).toMatchObject({ outcome: 'error', errorMessage: 'nope' })
    expect(firstStart?.data).toMatchObject({ modelId: 'traced', identity: 't' })
  })

  it('emits no span when the call is refused before an attempt', async () => {
    const sink = new MemoryDiagnosticSink()
    const models = new ModelCalls([recorded([])])
    await models
      .invoke({ modelId: 'echo', input: 3 as unknown as string, timeoutMs: 10 }, { diagnostics: sink.sink })
      .catch(() => {})
    expect(sink.events).toEqual([])
  })
})

describe('new ModelCalls(bindings)', () => {
  it('takes a sealed core Registry and uses its error factories', async () => {
    class NoSuchModel extends Error {}
    const registry = Registry.create([recorded([])], {
      kind: 'model',
      errors: { unknown: (id) => new NoSuchModel(`no model ${id}`) },
    })
    const models = new ModelCalls(registry)
    expect(models.bindings).toBe(registry)
    expect(models.ids()).toEqual(['echo'])
    await expect(models.invoke({ modelId: 'other' as 'echo', input: 'x', timeoutMs: 10 })).rejects.toThrow(
      NoSuchModel,
    )
  })

  it('refuses an unsealed registry, malformed bindings and duplicate ids', () => {
    const open = new Registry<ModelBinding>().register(recorded([]))
    expect(() => new ModelCalls(open)).toThrow(InvalidDefinitionError)
    expect(() => new ModelCalls([{ id: 'x', identity: '', invoke: () => 1 }])).toThrow(/identity/)
    expect(() => new ModelCalls([{ id: 'x', identity: 'y' } as never])).toThrow(/invoke/)
    expect(() => new ModelCalls([recorded([]), recorded([])])).toThrow(/already registered/)
    expect(() => new ModelCalls(42 as never)).toThrow(InvalidDefinitionError)
    expect(
      () => new ModelCalls([{ id: 'x', identity: 'y', invoke: () => 1, assertInput: 'yes' } as never]),
    ).toThrow(/assertInput/)
  })
})
