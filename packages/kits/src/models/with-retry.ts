import {
  AbortedError,
  assertNotThenable,
  assertSafeInteger,
  BudgetExhaustedError,
  type ChatModel,
  createOperationContext,
  describeValue,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type OperationContext,
  refuseField,
  TimeoutError,
  throwIfAborted,
} from '@agent-core/core'
import { sleep } from './internal/sleep.js'
import type { ModelBinding } from './model-binding.js'
import { isPermanentStatus, ModelProviderError } from './provider-error.js'

/**
 * What {@link RetryPolicy.onRetry} hears before each wait.
 * @example
 * ```ts
 * import type { RetryEvent } from '@agent-core/kits/models'
 * const log = (event: RetryEvent) => console.log(`attempt ${event.attempt} failed (${event.error.kind}); next in ${event.delayMs} ms`)
 * ```
 */
export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  readonly attempt: number
  /** How long the retry waits before the next attempt. */
  readonly delayMs: number
  /** True when the wait is the provider's `Retry-After`, false when it is the jittered backoff. */
  readonly fromRetryAfter: boolean
  readonly error: ModelProviderError
}

/**
 * How {@link withRetry} retries. Every field is optional.
 * @example
 * ```ts
 * import type { RetryPolicy } from '@agent-core/kits/models'
 * const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 4000 }
 * ```
 */
export interface RetryPolicy {
  /** Attempts in all, the first included: a safe integer from 1 to 100. Default 3. */
  readonly maxAttempts?: number | undefined
  /** The backoff's first ceiling in milliseconds (doubled per retry): a safe integer of at least 0. Default 500. */
  readonly baseDelayMs?: number | undefined
  /** The backoff's largest ceiling in milliseconds. Default 8000. */
  readonly maxDelayMs?: number | undefined
  /**
   * The longest `Retry-After` that is waited for. A provider asking for a longer wait ends the retries and
   * its error is thrown, so the caller can decide. Default 60000.
   */
  readonly maxRetryAfterMs?: number | undefined
  /** Random numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: (() => number) | undefined
  /**
   * A synchronous veto, asked only for failures that would be retried: return false to stop. It cannot
   * make a permanent failure (an abort, a 4xx other than 408/409/429, `retryable: false`) retryable.
   */
  readonly shouldRetry?: ((error: ModelProviderError, attempt: number) => boolean) | undefined
  /** Called synchronously before each wait, e.g. for logging. Must return nothing. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined
}

interface ResolvedPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly maxRetryAfterMs: number
  readonly random: () => number
  readonly shouldRetry: RetryPolicy['shouldRetry']
  readonly onRetry: RetryPolicy['onRetry']
  readonly holder: RetryPolicy
}

const MAX_DELAY = 2_147_483_647

function resolvePolicy(policy: RetryPolicy | undefined): ResolvedPolicy {
  if (policy === undefined) policy = {}
  if (typeof policy !== 'object' || policy === null) {
    refuseField(
      'input',
      'policy',
      `must be an object or left out, but got ${describeValue(policy)}`,
      policy,
      { prefix: 'A retry ' },
    )
  }
  const { maxAttempts = 3, baseDelayMs = 500, maxDelayMs = 8000, maxRetryAfterMs = 60_000 } = policy
  assertSafeInteger(maxAttempts, 'policy.maxAttempts', { min: 1, max: 100 })
  assertSafeInteger(baseDelayMs, 'policy.baseDelayMs', { min: 0, max: MAX_DELAY })
  assertSafeInteger(maxDelayMs, 'policy.maxDelayMs', { min: 0, max: MAX_DELAY })
  assertSafeInteger(maxRetryAfterMs, 'policy.maxRetryAfterMs', { min: 0, max: MAX_DELAY })
  const { random = Math.random, shouldRetry, onRetry } = policy
  for (const [field, value, optional] of [
    ['policy.random', random, false],
    ['policy.shouldRetry', shouldRetry, true],
    ['policy.onRetry', onRetry, true],
  ] as const) {
    if (!(optional && value === undefined) && typeof value !== 'function') {
      refuseField(
        'input',
        field,
        `must be a function${optional ? ' or left out' : ''}, but got ${describeValue(value)}`,
        value,
      )
    }
  }
  return {
    maxAttempts,
    baseDelayMs,
    maxDelayMs,
    maxRetryAfterMs,
    random,
    shouldRetry,
    onRetry,
    holder: policy,
  }
}

/**
 * The full-jitter backoff before retry number `retry` (1 for the first retry): a uniform wait between 0
 * and `min(maxDelayMs, baseDelayMs * 2^(retry - 1))`.
 */
function backoffMs(policy: ResolvedPolicy, retry: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retry - 1, 40))
  const roll = policy.random.call(policy.holder)
  if (typeof roll !== 'number' || !(roll >= 0 && roll < 1)) {
    refuseField(
      'output',
      'policy.random',
      `must return a number in [0, 1), but returned ${describeValue(roll)}`,
      roll,
      {
        details: { hook: 'policy.random' },
      },
    )
  }
  return Math.floor(roll * ceiling)
}

/** Whether the failure of attempt `attempt` is retried, and after how long. */
function decide(
  error: unknown,
  attempt: number,
  policy: ResolvedPolicy,
  signal: AbortSignal,
):
  | { readonly delayMs: number; readonly fromRetryAfter: boolean; readonly error: ModelProviderError }
  | undefined {
  if (signal.aborted || AbortedError.isInstance(error) || TimeoutError.isInstance(error)) return undefined
  if (!ModelProviderError.isInstance(error) || !error.retryable || isPermanentStatus(error.status))
    return undefined
  if (attempt >= policy.maxAttempts) return undefined
  const retryAfter = error.retryAfterMs
  if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) return undefined
  if (policy.shouldRetry !== undefined) {
    const verdict = assertNotThenable(
      policy.shouldRetry.call(policy.holder, error, attempt),
      'policy.shouldRetry',
    )
    if (typeof verdict !== 'boolean') {
      refuseField(
        'output',
        'policy.shouldRetry',
        `must return a boolean, but returned ${describeValue(verdict)}`,
        verdict,
        {
          details: { hook: 'policy.shouldRetry' },
        },
      )
    }
    if (!verdict) return undefined
  }
  return retryAfter !== undefined
    ? { delayMs: retryAfter, fromRetryAfter: true, error }
    : { delayMs: backoffMs(policy, attempt), fromRetryAfter: false, error }
}

/**
 * After a failed attempt: decides, reports, checks that the budget has room, waits, then takes the next
 * attempt from the budget (right before its I/O). Throws the error when it is not retried.
 */
async function prepareRetry(
  error: unknown,
  attempt: number,
  policy: ResolvedPolicy,
  context: OperationContext<unknown>,
  label: string,
): Promise<void> {
  const decision = decide(error, attempt, policy, context.signal)
  if (decision === undefined) throw error
  const budget = context.attemptBudget
  if (budget !== undefined && budget.remaining <= 0)
    throw budgetError(budget.limit, budget.used, label, decision.error)
  const event: RetryEvent = {
    attempt,
    delayMs: decision.delayMs,
    fromRetryAfter: decision.fromRetryAfter,
    error: decision.error,
  }
  if (policy.onRetry !== undefined) {
    const returned = assertNotThenable(policy.onRetry.call(policy.holder, event), 'policy.onRetry')
    if (returned !== undefined) {
      refuseField(
        'output',
        'policy.onRetry',
        `must return nothing, but returned ${describeValue(returned)}`,
        returned,
        {
          details: { hook: 'policy.onRetry' },
        },
      )
    }
  }
  if (context.diagnostics.enabled) {
    context.diagnostics.emit(
      'model-retry',
      {
        label,
        attempt,
        delayMs: decision.delayMs,
        fromRetryAfter: decision.fromRetryAfter,
        status: decision.error.status,
        kind: decision.error.kind,
      },
      'warn',
    )
  }
  await sleep(decision.delayMs, context.signal, `waiting to retry ${label}`)
  if (budget !== undefined) {
    try {
      budget.take({ signal: context.signal, label })
    } catch (taken) {
      if (BudgetExhaustedError.isInstance(taken))
        throw budgetError(budget.limit, budget.used, label, decision.error)
      throw taken
    }
  }
  throwIfAborted(context.signal, `before retrying ${label}`)
}

function budgetError(
  limit: number,
  used: number,
  label: string,
  error: ModelProviderError,
): BudgetExhaustedError {
  return new BudgetExhaustedError(
    `The attempt budget of ${limit} is used up, so ${label} is not retried after: ${error.message} Give the run a larger AttemptBudget, or handle the failure.`,
    { cause: error, details: { limit, used, label } },
  )
}

async function retrying<T>(
  policy: ResolvedPolicy,
  context: OperationContext<unknown>,
  label: string,
  call: () => PromiseLike<T> | T,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      await prepareRetry(error, attempt, policy, context, label)
    }
  }
}

function isChatModel(value: object): value is ChatModel<unknown> {
  return typeof (value as { generate?: unknown }).generate === 'function'
}

/**
 * Wraps a ModelCalls binding or a chat model so that failed calls are retried, following the App's
 * policy. Only a {@link ModelProviderError} that is `retryable` is retried, and never an abort, a
 * timeout or a 4xx other than 408, 409 and 429. The wait is the provider's `Retry-After` when it sent one
 * (up to `maxRetryAfterMs`), otherwise a full-jitter exponential backoff; cancellation interrupts it.
 *
 * The first attempt belongs to whoever started the call: {@link ModelCalls.invoke} (or the agent loop)
 * takes it from the attempt budget. The wrapper takes each retry from `context.attemptBudget` right
 * before that retry's I/O, and stops with a `BudgetExhaustedError` (the provider error as its `cause`)
 * when the budget has no room. Nothing is refunded.
 *
 * A chat model's `stream` is retried only when it fails before its first event: once events were
 * delivered, a retry would repeat them, so the error is thrown. The wrapped model has a `stream` exactly
 * when the target has one, and its type says so: wrapping a model whose `stream` is required (such as
 * the OpenAI adapter's) gives a model whose `stream` is required too.
 *
 * @param target - a {@link ModelBinding} (the result is a binding with the same id, identity and
 *   assertions) or a core `ChatModel` (the result is a chat model with the same identity, streaming when
 *   the target streams)
 * @param policy - see {@link RetryPolicy}
 * @throws `InvalidInputError` for a target that is neither, or a malformed policy
 * @example
 * ```ts
 * import { defineModelBinding, ModelCalls, ModelProviderError, withRetry } from '@agent-core/kits/models'
 * let calls = 0
 * const flaky = defineModelBinding({
 *   id: 'flaky',
 *   identity: 'toy',
 *   invoke: (text: string) => {
 *     calls += 1
 *     if (calls === 1) throw new ModelProviderError('busy', { status: 503, retryAfterMs: 5 })
 *     return text
 *   },
 * })
 * const models = new ModelCalls([withRetry(flaky, { maxAttempts: 2 })])
 * const { value } = await models.invoke({ modelId: 'flaky', input: 'ok', timeoutMs: 1000 })
 * ```
 */
export function withRetry<Input, Output, App, Id extends string>(
  target: ModelBinding<Input, Output, App, Id>,
  policy?: RetryPolicy,
): ModelBinding<Input, Output, App, Id>
export function withRetry<App>(
  target: ChatModel<App> & Pick<Required<ChatModel<App>>, 'stream'>,
  policy?: RetryPolicy,
): ChatModel<App> & Pick<Required<ChatModel<App>>, 'stream'>
export function withRetry<App>(target: ChatModel<App>, policy?: RetryPolicy): ChatModel<App>
export function withRetry(
  target: ModelBinding<unknown, unknown, unknown> | ChatModel<unknown>,
  policy?: RetryPolicy,
): ModelBinding<unknown, unknown, unknown> | ChatModel<unknown> {
  if (typeof target !== 'object' || target === null) {
    refuseField(
      'input',
      'target',
      `must be a model binding { id, identity, invoke } or a chat model { identity, generate }, but got ${describeValue(target)}`,
      target,
      { prefix: 'withRetry: ' },
    )
  }
  const resolved = resolvePolicy(policy)
  if (isChatModel(target)) return retryingChatModel(target, resolved)
  if (typeof (target as { invoke?: unknown }).invoke === 'function') {
    return retryingBinding(target as ModelBinding<unknown, unknown, unknown>, resolved)
  }
  refuseField(
    'input',
    'target',
    'must be a model binding (with invoke) or a chat model (with generate), but the object has neither; pass the binding or the model itself',
    target,
    { prefix: 'withRetry: ' },
  )
}

function retryingBinding(
  binding: ModelBinding<unknown, unknown, unknown>,
  policy: ResolvedPolicy,
): ModelBinding<unknown, unknown, unknown> {
  const label = `model "${String(binding.id)}"`
  const wrapped: ModelBinding<unknown, unknown, unknown> = {
    id: binding.id,
    identity: binding.identity,
    invoke: async (input, context) => {
      const operation = createOperationContext(context)
      return retrying(policy, operation, label, () => binding.invoke(input, operation))
    },
  }
  const { assertInput, assertOutput } = binding
  if (typeof assertInput === 'function') {
    Object.defineProperty(wrapped, 'assertInput', {
      value: (input: unknown) => assertInput.call(binding, input),
      enumerable: true,
    })
  }
  if (typeof assertOutput === 'function') {
    Object.defineProperty(wrapped, 'assertOutput', {
      value: (output: unknown) => assertOutput.call(binding, output),
      enumerable: true,
    })
  }
  return Object.freeze(wrapped)
}

function retryingChatModel(model: ChatModel<unknown>, policy: ResolvedPolicy): ChatModel<unknown> {
  const label = `model "${String(model.identity)}"`
  const generate = async (
    request: ModelRequest,
    context: OperationContext<unknown>,
  ): Promise<ModelResponse> => {
    const operation = createOperationContext(context)
    return retrying(policy, operation, label, () => model.generate(request, operation))
  }
  if (typeof model.stream !== 'function') return Object.freeze({ identity: model.identity, generate })
  const stream = model.stream
  return Object.freeze({
    identity: model.identity,
    generate,
    async *stream(
      request: ModelRequest,
      context: OperationContext<unknown>,
    ): AsyncIterable<ModelStreamEvent> {
      const operation = createOperationContext(context)
      for (let attempt = 1; ; attempt++) {
        let delivered = false
        try {
          for await (const event of stream.call(model, request, operation)) {
            delivered = true
            yield event
          }
          return
        } catch (error) {
          if (delivered) throw error
          await prepareRetry(error, attempt, policy, operation, label)
        }
      }
    },
  })
}
