import { abortedError } from '@agent-core/core'

/** Waits `ms` unless `signal` aborts first (then rejects with its AbortedError or TimeoutError reason). */
export function sleep(ms: number, signal: AbortSignal, point: string): Promise<void> {
  if (signal.aborted) return Promise.reject(abortedError(signal, point))
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedError(signal, point))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
