import { AbortedError, type ChatModel, type ModelRequest, type ModelStreamEvent } from '@agent-core/core'
import { ModelProviderError, type ProviderFailureKind, withRetry } from '@agent-core/kits/models'
import { assert } from './assert.js'
import { afterArrival, type ConformanceSuite, contextOf, frozen, generate } from './conformance.js'

const hello: ModelRequest = { messages: [{ role: 'user', content: 'Hello there' }] }
const LONG = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen'

/** Asserts that `error` is a `ModelProviderError` with these fields. */
function assertProviderError(
  error: unknown,
  expected: {
    readonly kind: ProviderFailureKind
    readonly status?: number
    readonly retryable: boolean
    readonly retryAfterMs?: number
  },
): true {
  assert.ok(
    ModelProviderError.isInstance(error),
    `expected a ModelProviderError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  )
  assert.equal(error.code, 'provider-error')
  assert.equal(error.kind, expected.kind)
  assert.equal(error.retryable, expected.retryable)
  if ('status' in expected) assert.equal(error.status, expected.status)
  if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs)
  return true
}

function assertAborted(error: unknown): true {
  assert.ok(
    AbortedError.isInstance(error),
    `expected core's AbortedError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  )
  return true
}

/** Reads a stream to its end (or its error) through a context with `signal`. */
async function drain(
  model: ChatModel<unknown>,
  request: ModelRequest,
  signal?: AbortSignal,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<ModelStreamEvent[]> {
  const seen: ModelStreamEvent[] = []
  for await (const event of model.stream!(frozen(request), contextOf(signal))) {
    seen.push(event)
    onEvent?.(event)
  }
  return seen
}

const STATUSES: readonly { status: number; kind: ProviderFailureKind; retryable: boolean }[] = [
  { status: 400, kind: 'invalid-request', retryable: false },
  { status: 401, kind: 'authentication', retryable: false },
  { status: 404, kind: 'not-found', retryable: false },
  { status: 500, kind: 'server', retryable: true },
  { status: 503, kind: 'overloaded', retryable: true },
]

/** Provider errors, retries, cancellation and dropped streams. */
export function registerFailureTests(suite: ConformanceSuite): void {
  const { streams } = suite

  suite.test(
    'a 429 with Retry-After is a retryable rate-limit ModelProviderError with retryAfterMs',
    [{ type: 'error', status: 429, message: 'Rate limit reached', retryAfterSeconds: 3 }],
    async (model) => {
      await assert.rejects(generate(model, hello), (error) =>
        assertProviderError(error, { kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 3000 }),
      )
    },
  )

  suite.test(
    'maps refusals to ModelProviderError kinds: 400, 401, 404, 500, 503',
    STATUSES.map(({ status }) => ({ type: 'error', status, message: `scripted ${status}` })),
    async (model) => {
      for (const expected of STATUSES) {
        await assert.rejects(generate(model, hello), (error) => assertProviderError(error, expected))
      }
    },
  )

  suite.test(
    'withRetry waits the retry-after-ms of a 429 and the next attempt answers',
    [
      { type: 'error', status: 429, retryAfterMs: 5 },
      { type: 'text', text: 'Recovered.' },
    ],
    async (model) => {
      const retried: number[] = []
      const patient = withRetry(model, {
        maxAttempts: 3,
        baseDelayMs: 1,
        onRetry: (event) => void retried.push(event.delayMs),
      })
      const response = await patient.generate(frozen(hello), contextOf())
      assert.equal(response.message.content, 'Recovered.')
      assert.deepEqual(retried, [5])
    },
  )

  suite.test(
    'an aborted signal refuses generate with AbortedError before anything is sent',
    [],
    async (model) => {
      const controller = new AbortController()
      controller.abort()
      await assert.rejects(generate(model, hello, controller.signal), assertAborted)
    },
  )

  suite.test(
    'aborting a request in flight rejects generate with AbortedError',
    [{ type: 'hang' }],
    async (model, harness) => {
      const controller = new AbortController()
      const pending = generate(model, hello, controller.signal)
      const cancel = afterArrival(harness, () => controller.abort())
      try {
        await assert.rejects(pending, assertAborted)
      } finally {
        cancel()
      }
    },
  )

  if (!streams) return

  suite.test(
    'a 429 on a stream rejects its iteration with the rate-limit ModelProviderError',
    [{ type: 'error', status: 429, retryAfterMs: 1500 }],
    async (model) => {
      await assert.rejects(drain(model, hello), (error) =>
        assertProviderError(error, { kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 1500 }),
      )
    },
  )

  suite.test('an aborted signal refuses a stream with AbortedError', [], async (model) => {
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(drain(model, hello, controller.signal), assertAborted)
  })

  suite.test(
    'aborting a stream midway rejects its iteration with AbortedError, never a finish',
    [{ type: 'hang', text: LONG }],
    async (model, harness) => {
      const controller = new AbortController()
      // Abort at the first event, or shortly after the request arrived if no event comes before the hang.
      let timer: ReturnType<typeof setTimeout> | undefined
      const cancel = afterArrival(harness, () => {
        timer = setTimeout(() => controller.abort(), 50)
      })
      const seen: ModelStreamEvent[] = []
      try {
        await assert.rejects(
          drain(model, hello, controller.signal, (event) => {
            seen.push(event)
            controller.abort()
          }),
          assertAborted,
        )
      } finally {
        cancel()
        clearTimeout(timer)
      }
      assert.ok(!seen.some((event) => event.type === 'finish'), 'a cancelled stream yields no finish')
    },
  )

  suite.test(
    'leaving a stream early releases it: the model answers the next request',
    [
      { type: 'text', text: LONG },
      { type: 'text', text: 'Again.' },
    ],
    async (model) => {
      for await (const event of model.stream!(frozen(hello), contextOf())) {
        if (event.type === 'text-delta') break
      }
      const response = await generate(model, hello)
      assert.equal(response.message.content, 'Again.')
    },
  )

  if (suite.options.disconnects === true) {
    suite.test(
      'a stream dropped before its finish is a retryable ModelProviderError, never a shorter answer',
      [{ type: 'disconnect', text: LONG }],
      async (model) => {
        const seen: ModelStreamEvent[] = []
        await assert.rejects(
          drain(model, hello, undefined, (event) => void seen.push(event)),
          (error) => {
            assert.ok(
              ModelProviderError.isInstance(error),
              `expected a ModelProviderError, got ${String(error)}`,
            )
            assert.equal(error.retryable, true)
            return true
          },
        )
        assert.ok(!seen.some((event) => event.type === 'finish'), 'a dropped stream yields no finish')
      },
    )
  }
}
