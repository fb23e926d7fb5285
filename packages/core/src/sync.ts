import { describeValue } from './errors/agent-core-error.js'
import { AbortedError, InvalidOutputError, RejectedThenableError, TimeoutError } from './errors/errors.js'
import { refuseField } from './field-reader.js'

/**
 * A value or a promise of it.
 * @example
 * ```ts
 * import type { MaybePromise } from '@agent-core/core'
 * type Lookup = (id: string) => MaybePromise<string | undefined>
 * const fromMap: Lookup = (id) => new Map([['a', 'A']]).get(id)
 * const fromServer: Lookup = async (id) => (await fetch(`https://example.com/${id}`)).text()
 * ```
 */
export type MaybePromise<T> = T | PromiseLike<T>

/**
 * What a synchronous hook may return: anything but a Promise or other thenable. A hook typed
 * `(...) => NotThenable` refuses an `async` function at compile time (`=> void` would accept one), while
 * a listener that returns what it happens to compute (`events.push(event)`, `map.set(...)`) still fits.
 * {@link assertNotThenable} is the same rule at run time, for callers without types.
 * @example
 * ```ts
 * import type { NotThenable } from '@agent-core/core'
 * type Listener = (event: { type: string }) => NotThenable
 * const log: Listener = (event) => console.log(event.type)
 * // @ts-expect-error an async listener is refused
 * const later: Listener = async (event) => console.log(event.type)
 * ```
 */
export type NotThenable =
  // biome-ignore lint/suspicious/noConfusingVoidType: a listener with a block body returns void, which must fit
  void | undefined | null | string | number | boolean | bigint | symbol | (object & { readonly then?: never })

/**
 * True when `value` is a Promise or any object with a callable `then`.
 * @example
 * ```ts
 * import { isThenable } from '@agent-core/core'
 * isThenable(Promise.resolve(1)) // true
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

/**
 * Attaches a no-op rejection handler so a rejection we no longer wait for is never unhandled. Does nothing
 * for a value that is not thenable.
 * @example
 * ```ts
 * import { consumeRejection } from '@agent-core/core'
 * const late = fetch('https://example.com/slow')
 * consumeRejection(late) // we stopped waiting for it; a later failure must not crash the process
 * ```
 */
export function consumeRejection(value: unknown): void {
  if (isThenable(value)) {
    try {
      Promise.resolve(value).catch(() => {})
    } catch {
      // A hostile thenable whose `then` throws: nothing left to consume.
    }
  }
}

/**
 * Rejects a thenable returned from a hook that must be synchronous. The thenable's own rejection is
 * consumed so it never surfaces as an unhandled rejection.
 *
 * @param value - what the hook returned
 * @param hook - the hook's name, used in the error (e.g. `"policy when"`)
 * @returns `value`, typed as not being a promise
 * @throws {@link RejectedThenableError} when `value` is thenable
 * @example
 * ```ts
 * import { assertNotThenable } from '@agent-core/core'
 * declare const definition: { id: string; when(input: unknown): unknown }
 * declare const input: unknown
 * const result = assertNotThenable(definition.when(input), `policy "${definition.id}" when`)
 * ```
 */
export function assertNotThenable<T>(value: T, hook: string): Exclude<T, PromiseLike<unknown>> {
  if (isThenable(value)) {
    consumeRejection(value)
    throw new RejectedThenableError(
      `${hook} returned a Promise, but it must be synchronous. Compute the result before calling, or return a plain value.`,
      { details: { hook } },
    )
  }
  return value as Exclude<T, PromiseLike<unknown>>
}

/**
 * Checks the answer of a synchronous boolean hook: a thenable is a {@link RejectedThenableError}, any
 * other non-boolean is an {@link InvalidOutputError}.
 * @example
 * ```ts
 * import { assertBoolean } from '@agent-core/core'
 * declare const filter: (document: unknown) => unknown // an App's search filter
 * const keep = assertBoolean(filter(document), 'search filter')
 * ```
 */
export function assertBoolean(value: unknown, hook: string): boolean {
  const plain = assertNotThenable(value, hook)
  if (typeof plain !== 'boolean') {
    refuseField(
      'output',
      hook,
      `must return a boolean synchronously, but returned ${plain === undefined ? 'undefined' : typeof plain}. Return true or false`,
      plain,
      { details: { hook, returned: describeValue(plain) } },
    )
  }
  return plain
}

/**
 * Throws {@link AbortedError} when `signal` is aborted. `point` names the checkpoint (for example
 * `"before save"`) and ends up in `error.details.point`; the signal's reason becomes `error.cause`.
 * @example
 * ```ts
 * import { throwIfAborted } from '@agent-core/core'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 * throwIfAborted(context.signal, 'entering stage "render"')
 * ```
 */
export function throwIfAborted(signal: AbortSignal | undefined, point: string): void {
  if (signal?.aborted) throw abortedError(signal, point)
}

/**
 * Builds the {@link AbortedError} for an aborted signal; a {@link TimeoutError} reason is passed through.
 * @example
 * ```ts
 * import { abortedError } from '@agent-core/core'
 * const controller = new AbortController()
 * controller.abort('user left')
 * const error = abortedError(controller.signal, 'before upload') // AbortedError, details.point 'before upload'
 * ```
 */
export function abortedError(signal: AbortSignal, point: string): AbortedError | TimeoutError {
  const reason: unknown = signal.reason
  if (TimeoutError.isInstance(reason)) return reason
  return new AbortedError(`The operation was cancelled (${point}).`, { cause: reason, details: { point } })
}

/** The abort listener of one {@link raceSignal}: consumes the promise's late rejection, rejects the wait. */
class AbortRace {
  constructor(
    readonly promise: PromiseLike<unknown>,
    readonly signal: AbortSignal,
    readonly point: string,
    readonly reject: (error: unknown) => void,
  ) {}

  handleEvent(): void {
    consumeRejection(this.promise)
    this.reject(abortedError(this.signal, this.point))
  }
}

/**
 * Waits for `promise` unless `signal` aborts first, in which case it rejects with {@link AbortedError}.
 * A late rejection of `promise` is consumed. Cancellation interrupts the wait; it does not prove that
 * the underlying work stopped.
 * @example
 * ```ts
 * import { raceSignal } from '@agent-core/core'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 * declare function fetchSomething(): Promise<string>
 * const body = await raceSignal(fetchSomething(), context.signal, 'reading artifact')
 * ```
 */
export function raceSignal<T>(
  promise: PromiseLike<T>,
  signal: AbortSignal | undefined,
  point: string,
): Promise<T> {
  if (!signal) return Promise.resolve(promise)
  if (signal.aborted) {
    consumeRejection(promise)
    return Promise.reject(abortedError(signal, point))
  }
  return new Promise<T>((resolve, reject) => {
    // The abort listener is an object (`handleEvent`), not a closure bound to a name: a build that keeps
    // function names (tsup and tsx `keepNames`) would name every such closure again on every call.
    const onAbort = new AbortRace(promise, signal, point, reject)
    signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * A signal that aborts when `parent` aborts or after `timeoutMs`, with a {@link TimeoutError} as the
 * reason in the second case. Call `dispose()` when done to clear the timer.
 * @example
 * ```ts
 * import { deadlineSignal } from '@agent-core/core'
 * import type { OperationContext } from '@agent-core/core'
 * declare function callModel(options: { signal: AbortSignal }): Promise<string>
 * declare const context: OperationContext
 * const { signal, dispose } = deadlineSignal(context.signal, 1000, 'model call "draft"')
 * try { await callModel({ signal }) } finally { dispose() }
 * ```
 */
export function deadlineSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
  what: string,
): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const onAbort = () => controller.abort(parent?.reason)
  if (parent?.aborted) controller.abort(parent.reason)
  else parent?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => {
    controller.abort(
      new TimeoutError(`${what} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs, what } }),
    )
  }, timeoutMs)
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer)
      parent?.removeEventListener('abort', onAbort)
    },
  }
}
