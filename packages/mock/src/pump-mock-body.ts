import { PackedFrames } from './internal/frame-writer.js'
import { sleep, untilAborted } from './internal/sleep.js'
import type { MockStreamStep } from './mock-http.js'

/**
 * Where a transport writes a streamed body.
 * @example
 * ```ts
 * import type { MockBodySink } from '@agent-core/mock'
 * const chunks: (string | Uint8Array)[] = []
 * const sink: MockBodySink = { write: (chunk) => void chunks.push(chunk), disconnect() {} }
 * ```
 */
export interface MockBodySink {
  /** Writes SSE text or its UTF-8 bytes; return a promise to apply backpressure. */
  write(chunk: string | Uint8Array): void | Promise<void>
  /** Drops the connection after everything written so far has been delivered. */
  disconnect(): void | Promise<void>
}

function isSyncIterable(value: unknown): value is Iterable<MockStreamStep> {
  return typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function'
}

const BATCH_LIMIT = 1024 * 1024
const encoder = new TextEncoder()

function concat(parts: readonly (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : p))
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0))
  let at = 0
  for (const b of bytes) {
    out.set(b, at)
    at += b.length
  }
  return out
}

/**
 * Plays a streamed {@link MockHttpBody} into a sink: waits each step's delay, writes data, drops the
 * connection on `disconnect`, and waits for `signal` on `hang`. Consecutive undelayed steps of a fully known
 * stream are written in one batch. Resolves with how the body ended; an aborted signal ends any wait at once.
 * Transports share this so that each stays a thin adapter.
 * @example
 * ```ts
 * import { pumpMockBody } from '@agent-core/mock'
 * let text = ''
 * const ended = await pumpMockBody(
 *   [{ type: 'data', chunk: 'data: [DONE]\n\n' }],
 *   { write: (chunk) => { text += String(chunk) }, disconnect() {} },
 *   new AbortController().signal,
 * )
 * console.log(ended, text) // 'end' 'data: [DONE]\n\n'
 * ```
 */
export async function pumpMockBody(
  steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep>,
  sink: MockBodySink,
  signal: AbortSignal,
): Promise<'end' | 'disconnect' | 'aborted'> {
  let pending: (string | Uint8Array)[] = []
  let pendingLength = 0
  const add = (chunk: string | Uint8Array) => {
    const last = pending[pending.length - 1]
    if (
      typeof chunk !== 'string' &&
      last !== undefined &&
      typeof last !== 'string' &&
      last.buffer === chunk.buffer &&
      last.byteOffset + last.byteLength === chunk.byteOffset
    ) {
      // Adjacent views of one rendered buffer merge without copying.
      pending[pending.length - 1] = new Uint8Array(
        chunk.buffer,
        last.byteOffset,
        last.byteLength + chunk.byteLength,
      )
    } else {
      pending.push(chunk)
    }
    pendingLength += chunk.length
  }
  const flush = async () => {
    if (pendingLength === 0) return
    const parts = pending
    pending = []
    pendingLength = 0
    if (parts.length === 1) await sink.write(parts[0] as string | Uint8Array)
    else if (parts.every((p) => typeof p === 'string')) await sink.write(parts.join(''))
    else await sink.write(concat(parts))
  }
  const play = async (step: MockStreamStep): Promise<'disconnect' | 'aborted' | undefined> => {
    if (step.type === 'hang') {
      await untilAborted(signal)
      return 'aborted'
    }
    if (step.delayMs) await sleep(step.delayMs, signal)
    if (signal.aborted) return 'aborted'
    if (step.type === 'disconnect') {
      await sink.disconnect()
      return 'disconnect'
    }
    await sink.write(step.chunk)
    return undefined
  }
  if (steps instanceof PackedFrames) {
    // A fully rendered stream without faults: one write, no per-frame views.
    if (signal.aborted) return 'aborted'
    await sink.write(steps.whole())
    return signal.aborted ? 'aborted' : 'end'
  }
  if (isSyncIterable(steps)) {
    for (const step of steps) {
      if (signal.aborted) return 'aborted'
      if (step.type === 'data' && !step.delayMs) {
        add(step.chunk)
        if (pendingLength >= BATCH_LIMIT) await flush()
        continue
      }
      await flush()
      const ended = await play(step)
      if (ended) return ended
    }
    await flush()
    return signal.aborted ? 'aborted' : 'end'
  }
  const iterator = steps[Symbol.asyncIterator]()
  const aborted = untilAborted(signal).then(() => undefined)
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted])
      if (next === undefined || signal.aborted) return 'aborted'
      if (next.done) return 'end'
      const ended = await play(next.value)
      if (ended) return ended
    }
  } finally {
    void Promise.resolve(iterator.return?.()).catch(() => undefined)
  }
}
