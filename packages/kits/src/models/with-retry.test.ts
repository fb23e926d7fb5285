import {
  AbortedError,
  AttemptBudget,
  BudgetExhaustedError,
  type ChatModel,
  createOperationContext,
  InvalidInputError,
  MemoryDiagnosticSink,
  type ModelResponse,
  type ModelStreamEvent,
  TimeoutError,
  ZERO_USAGE,
} from '@agent-core/core'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  defineModelBinding,
  ModelCalls,
  ModelProviderError,
  type RetryEvent,
  type RetryPolicy,
  withRetry,
} from './index.js'

/** A binding that fails with the given errors in turn, then answers `ok`; `calls` counts attempts. */
function failing(errors: unknown[]) {
  const state = { calls: 0 }
  const binding = defineModelBinding({
    id: 'm',
    identity: 'flaky-model',
    invoke: (_input: string) => {
      state.calls += 1
      const error = errors.shift()
      if (error !== undefined) throw error
      return 'ok'
    },
  })
  return { binding, state }
}

const unavailable = (retryAfterMs?: number) =>
  new ModelProviderError('unavailable', {
    status: 503,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  })

const fast: RetryPolicy = { baseDelayMs: 0, maxDelayMs: 0 }

afterEach(() => {
  vi.useRealTimers()
})

describe('withRetry around a ModelCalls binding', () => {
  it('retries a retryable provider error and takes each retry from the attempt budget', async () => {
    const { binding, state } = failing([unavailable(), new ModelProviderError('limited', { status: 429 })])
    const models = new ModelCalls([withRetry(binding, fast)])
    const budget = new AttemptBudget(5)
    const { value } = await models.invoke(
      { modelId: 'm', input: 'x', timeoutMs: 1000 },
      { attemptBudget: budget },
    )
    expect(value).toBe('ok')
    expect(state.calls).toBe(3)
    expect(budget.used).toBe(3)
  })

  it('orders each retry: decide, report, wait, take the attempt, then the I/O', async () => {
    vi.useFakeTimers()
    const log: string[] = []
    const budget = new AttemptBudget(5)
    const take = budget.take.bind(budget)
    budget.take = (options) => {
      log.push('take')
      return take(options)
    }
    let calls = 0
    const binding = defineModelBinding({
      id: 'm',
      identity: 'sequenced',
      invoke: () => {
        calls += 1
        log.push(`invoke ${calls} (used ${budget.used})`)
        if (calls < 3) throw unavailable(100)
        return 'ok'
      },
    })
    const models = new ModelCalls([
      withRetry(binding, { onRetry: (event) => void log.push(`onRetry after ${event.attempt}`) }),
    ])
    const call = models.invoke({ modelId: 'm', input: 'x', timeoutMs: 10_000 }, { attemptBudget: budget })
    await vi.advanceTimersByTimeAsync(99)
    log.push('99 ms later')
    await vi.advanceTimersByTimeAsync(201)
    await expect(call).resolves.toMatchObject({ value: 'ok' })
    expect(log).toEqual([
      'take',
      'invoke 1 (used 1)',
      'onRetry after 1',
      '99 ms later',
      'take',
      'invoke 2 (used 2)',
      'onRetry after 2',
      'take',
      'invoke 3 (used 3)',
    ])
  })

  it('keeps the binding id, identity and assertions', async () => {
    const log: string[] = []
    const inner = defineModelBinding({
      id: 'kept',
      identity: 'real-model',
      assertInput(input: unknown) {
        log.push(`assertInput ${String(input)}`)
      },
      assertOutput(output: unknown) {
        log.push(`assertOutput ${String(output)}`)
      },
      invoke: (input: string) => input,
    })
    const wrapped = withRetry(inner)
    expect(wrapped).toMatchObject({ id: 'kept', identity: 'real-model' })
    await new ModelCalls([wrapped]).invoke({ modelId: 'kept', input: 'a', timeoutMs: 10 })
    expect(log).toEqual(['assertInput a', 'assertOutput a'])
  })

  it('waits exactly the Retry-After the provider asked for before the next attempt', async () => {
    vi.useFakeTimers()
    const { binding, state } = failing([unavailable(300)])
    const events: RetryEvent[] = []
    const models = new ModelCalls([withRetry(binding, { onRetry: (event) => void events.push(event) })])
    const call = models.invoke({ modelId: 'm', input: 'x', timeoutMs: 10_000 })
    await vi.advanceTimersByTimeAsync(299)
    expect(state.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(state.calls).toBe(2)
    await expect(call).resolves.toMatchObject({ value: 'ok' })
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ attempt: 1, delayMs: 300, fromRetryAfter: true })
  })

  it('backs off with full jitter: a uniform wait below min(maxDelayMs, baseDelayMs * 2^(retry-1)) (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 4,
          maxLength: 4,
        }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 120 }),
        async (rolls, baseDelayMs, maxDelayMs) => {
          const { binding } = failing([unavailable(), unavailable(), unavailable(), unavailable()])
          const delays: number[] = []
          let roll = 0
          const models = new ModelCalls([
            withRetry(binding, {
              maxAttempts: 5,
              baseDelayMs,
              maxDelayMs,
              random: () => rolls[roll++] ?? 0,
              onRetry: (event) => void delays.push(event.delayMs),
            }),
          ])
          vi.useFakeTimers()
          try {
            const call = models.invoke({ modelId: 'm', input: 'x', timeoutMs: 60_000 })
            await vi.runAllTimersAsync()
            await call
          } finally {
            vi.useRealTimers()
          }
          expect(delays).toEqual(
            rolls.map((r, i) => Math.floor(r * Math.min(maxDelayMs, baseDelayMs * 2 ** i))),
          )
        },
      ),
      { numRuns: 50 },
    )
  })

  it('gives up after maxAttempts and throws the last provider error unchanged', async () => {
    const last = unavailable()
    const { binding, state } = failing([unavailable(), last, unavailable()])
    const models = new ModelCalls([withRetry(binding, { ...fast, maxAttempts: 2 })])
    await expect(models.invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 })).rejects.toBe(last)
    expect(state.calls).toBe(2)
  })

  it('never retries a 4xx other than 408, 409 and 429, a non-retryable error, or another error', async () => {
    const permanent = [400, 401, 403, 404, 413, 422].map((status) => new ModelProviderError('no', { status }))
    const others = [
      new ModelProviderError('forced', { status: 400, retryable: true }),
      new ModelProviderError('quota', { status: 429, retryable: false }),
      new ModelProviderError('oops', { status: 500, retryable: false }),
      new Error('not a provider error'),
      new TimeoutError('slow'),
      new AbortedError('stopped'),
      'a string',
    ]
    for (const error of [...permanent, ...others]) {
      const { binding, state } = failing([error])
      const budget = new AttemptBudget(10)
      const models = new ModelCalls([withRetry(binding, fast)])
      await expect(
        models.invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 }, { attemptBudget: budget }),
      ).rejects.toBe(error)
      expect(state.calls).toBe(1)
      expect(budget.used).toBe(1)
    }
    for (const status of [408, 409, 429, 500, 502, 503, 504]) {
      const { binding, state } = failing([new ModelProviderError('again', { status })])
      await new ModelCalls([withRetry(binding, fast)]).invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 })
      expect(state.calls).toBe(2)
    }
  })

  it('does not wait for a Retry-After longer than maxRetryAfterMs', async () => {
    const error = unavailable(120_000)
    const { binding, state } = failing([error])
    const models = new ModelCalls([withRetry(binding, { maxRetryAfterMs: 1000 })])
    await expect(models.invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 })).rejects.toBe(error)
    expect(state.calls).toBe(1)
  })

  it('shouldRetry can veto a retry, and receives the error and the attempt number', async () => {
    const seen: [number | undefined, number][] = []
    const error = unavailable()
    const { binding, state } = failing([unavailable(), error])
    const models = new ModelCalls([
      withRetry(binding, {
        ...fast,
        shouldRetry: (failure, attempt) => {
          seen.push([failure.status, attempt])
          return attempt < 2
        },
      }),
    ])
    await expect(models.invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 })).rejects.toBe(error)
    expect(seen).toEqual([
      [503, 1],
      [503, 2],
    ])
    expect(state.calls).toBe(2)
  })

  it('stops with BudgetExhaustedError (the provider error as cause) before waiting, when the budget has no room', async () => {
    vi.useFakeTimers()
    const error = unavailable(60_000)
    const { binding, state } = failing([error])
    const budget = new AttemptBudget(1)
    const models = new ModelCalls([withRetry(binding, { maxRetryAfterMs: 120_000 })])
    const failure = await models
      .invoke({ modelId: 'm', input: 'x', timeoutMs: 100_000 }, { attemptBudget: budget })
      .catch((e: unknown) => e)
    expect(BudgetExhaustedError.isInstance(failure)).toBe(true)
    expect((failure as BudgetExhaustedError).cause).toBe(error)
    expect(state.calls).toBe(1)
    expect(budget.used).toBe(1)
  })

  it('a cancellation during the wait stops the retries and takes no further attempt', async () => {
    const controller = new AbortController()
    const { binding, state } = failing([unavailable(60_000)])
    const budget = new AttemptBudget(5)
    const models = new ModelCalls([withRetry(binding)])
    const call = models.invoke(
      { modelId: 'm', input: 'x', timeoutMs: 100_000 },
      { attemptBudget: budget, signal: controller.signal },
    )
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    await expect(call).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(state.calls).toBe(1)
    expect(budget.used).toBe(1)
  })

  it('the call timeout bounds the retries and their waits', async () => {
    const { binding, state } = failing([unavailable(40), unavailable(40), unavailable(40)])
    const models = new ModelCalls([withRetry(binding, { maxAttempts: 10 })])
    await expect(models.invoke({ modelId: 'm', input: 'x', timeoutMs: 20 })).rejects.toSatisfy((error) =>
      TimeoutError.isInstance(error),
    )
    expect(state.calls).toBe(1)
  })

  it('reports each retry as a model-retry event inside the model-call span', async () => {
    const sink = new MemoryDiagnosticSink()
    const { binding } = failing([unavailable(0)])
    await new ModelCalls([withRetry(binding)]).invoke(
      { modelId: 'm', input: 'x', timeoutMs: 1000 },
      { diagnostics: sink.sink },
    )
    expect(sink.kinds()).toEqual(['model-call-start', 'model-retry', 'model-call-end'])
    expect(sink.events[1]?.data).toMatchObject({ attempt: 1, delayMs: 0, status: 503, kind: 'overloaded' })
    expect(sink.events[1]?.parentSpanId).toBe(sink.events[0]?.spanId)
  })

  it('refuses a malformed target or policy', () => {
    const { binding } = failing([])
    for (const policy of [
      null,
      3,
      { maxAttempts: 0 },
      { maxAttempts: 101 },
      { maxAttempts: 1.5 },
      { baseDelayMs: -1 },
      { maxDelayMs: Number.NaN },
      { random: 'yes' },
      { onRetry: 1 },
    ]) {
      expect(() => withRetry(binding, policy as never)).toThrow(InvalidInputError)
    }
    expect(() => withRetry(undefined as never)).toThrow(InvalidInputError)
    expect(() => withRetry({ id: 'x' } as never)).toThrow(InvalidInputError)
  })

  it('a random source outside [0, 1) is refused when it is used', async () => {
    const { binding } = failing([unavailable()])
    const models = new ModelCalls([withRetry(binding, { random: () => 2 })])
    await expect(models.invoke({ modelId: 'm', input: 'x', timeoutMs: 1000 })).rejects.toThrow(/random/)
  })
})

describe('withRetry around a chat model', () => {
  const response: ModelResponse = {
    message: { role: 'assistant', content: 'hello' },
    finishReason: 'stop',
    usage: ZERO_USAGE,
  }

  it('retries generate and meters the retries; the first attempt is the caller’s', async () => {
    let calls = 0
    const model: ChatModel = {
      identity: 'chat-1',
      async generate() {
        calls += 1
        if (calls < 3) throw unavailable(0)
        return response
      },
    }
    const retrying = withRetry(model)
    expect(retrying.identity).toBe('chat-1')
    expect(retrying.stream).toBeUndefined()
    const budget = new AttemptBudget(10)
    const context = createOperationContext({ attemptBudget: budget })
    await expect(retrying.generate({ messages: [] }, context)).resolves.toBe(response)
    expect(calls).toBe(3)
    expect(budget.used).toBe(2)
  })

  it('retries a stream that fails before its first event, never one that already delivered events', async () => {
    const events: ModelStreamEvent[] = [
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
    ]
    let calls = 0
    let failAfter = 0
    const model = {
      identity: 'streamer',
      generate: async () => response,
      async *stream() {
        calls += 1
        if (calls === 1) throw unavailable(0)
        for (const [index, event] of events.entries()) {
          if (index === failAfter) throw unavailable(0)
          yield event
        }
      },
    } satisfies ChatModel
    const retrying = withRetry(model)
    const context = createOperationContext()
    failAfter = -1
    const received: ModelStreamEvent[] = []
    for await (const event of retrying.stream({ messages: [] }, context)) received.push(event)
    expect(received).toEqual(events)
    expect(calls).toBe(2)

    calls = 1
    failAfter = 1
    const partial: ModelStreamEvent[] = []
    const error = await (async () => {
      for await (const event of retrying.stream({ messages: [] }, context)) partial.push(event)
    })().catch((e: unknown) => e)
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect(partial).toEqual([events[0]])
    expect(calls).toBe(2)
  })
})
