import { TimeoutError } from '@agent-core/core'

const MAX_TIMER_MS = 2_147_483_647

/** A signal and the function that detaches it from its sources. */
export interface LinkedSignal {
  readonly signal: AbortSignal
  dispose(): void
}

/**
 * A signal that aborts with the reason of the first of `sources` to abort, or with a {@link TimeoutError}
 * after `timeoutMs` (when given and small enough for a timer). With one source and no timer it is that
 * source itself. `dispose()` removes every listener and the timer, so a long-lived source (the run's
 * signal) does not keep one listener per step.
 */
export function linkedSignal(
  sources: readonly (AbortSignal | undefined)[],
  timeoutMs: number | undefined,
  what: string,
): LinkedSignal {
  const present = sources.filter((source): source is AbortSignal => source !== undefined)
  const timed = timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS
  if (present.length === 1 && !timed) return { signal: present[0] as AbortSignal, dispose: () => {} }
  const controller = new AbortController()
  const listeners: [AbortSignal, () => void][] = []
  for (const source of present) {
    if (source.aborted) {
      controller.abort(source.reason)
      break
    }
    const onAbort = () => controller.abort(source.reason)
    source.addEventListener('abort', onAbort, { once: true })
    listeners.push([source, onAbort])
  }
  const timer =
    timed && !controller.signal.aborted
      ? setTimeout(
          () =>
            controller.abort(
              new TimeoutError(`${what} passed its deadline.`, { details: { timeoutMs, what } }),
            ),
          Math.max(1, timeoutMs),
        )
      : undefined
  return {
    signal: controller.signal,
    dispose() {
      if (timer !== undefined) clearTimeout(timer)
      for (const [source, onAbort] of listeners) source.removeEventListener('abort', onAbort)
    },
  }
}
