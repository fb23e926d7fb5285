/**
 * Vitest setup for the whole suite (`setupFiles` in vitest.config.ts): an unhandled promise rejection fails
 * the test during which it surfaced, or the file's last hook when it surfaces after the last test.
 *
 * Vitest on its own only prints "unhandled errors" and sets its exit code; its JSON report (which
 * `pnpm test` reads) still says success. A rejection that is handled later (`rejectionHandled`) is not a
 * leak and is forgotten.
 */
import { afterAll, afterEach } from 'vitest'

const pending = new Map<Promise<unknown>, unknown>()

process.on('unhandledRejection', (reason, promise) => {
  pending.set(promise, reason)
})
process.on('rejectionHandled', (promise) => {
  pending.delete(promise)
})

function describeReason(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`
  try {
    return String(reason)
  } catch {
    return 'an unprintable value'
  }
}

async function failOnUnhandled(when: string): Promise<void> {
  // Node reports an unhandled rejection after the microtask queue drains; give it one macrotask.
  await new Promise<void>((resolve) => setImmediate(resolve))
  if (pending.size === 0) return
  const reasons = [...pending.values()]
  pending.clear()
  throw new Error(
    `${reasons.length} unhandled promise rejection(s) ${when}: ${reasons.map(describeReason).join('; ')}. ` +
      'Await or consume every promise you start (core consumeRejection / raceSignal).',
    { cause: reasons[0] },
  )
}

afterEach(() => failOnUnhandled('during this test'))
afterAll(() => failOnUnhandled('after the last test of this file'))
