import { InvalidStateError } from '@agent-core/core'
import type { MockStreamStep } from './mock-http.js'

/**
 * Drives a `controlled-stream` reply from a test: each `write` becomes one SSE chunk the client receives
 * when the test decides, then `close` ends the body or `disconnect` drops the connection.
 * @example
 * ```ts
 * import { createStreamController } from '@agent-core/mock'
 * const controller = createStreamController()
 * await controller.attached
 * controller.write('data: [DONE]\n\n')
 * controller.close()
 * ```
 */
export interface MockStreamController {
  /** Sends a chunk: a string verbatim (full SSE text), an object as `data: <json>\n\n`. */
  write(chunk: string | Readonly<Record<string, unknown>>): void
  /** Ends the body normally. */
  close(): void
  /** Drops the connection (the client sees a network error). */
  disconnect(): void
  /** Resolves once a request is being answered by this controller. */
  readonly attached: Promise<void>
}

const bodies = new WeakMap<MockStreamController, () => AsyncIterable<MockStreamStep>>()

/** The body the engine streams for `controller`; `undefined` for an object not made by createStreamController. */
export function controllerSteps(
  controller: MockStreamController,
): (() => AsyncIterable<MockStreamStep>) | undefined {
  return bodies.get(controller)
}

/**
 * Creates a {@link MockStreamController} for a `{ type: 'controlled-stream' }` scripted reply.
 * @example
 * ```ts
 * import { createMockGPT, createStreamController } from '@agent-core/mock'
 * const controller = createStreamController()
 * const mock = createMockGPT({ script: [{ reply: { type: 'controlled-stream', controller } }] })
 * // ... send a request, then:
 * controller.write({ choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] })
 * controller.write('data: [DONE]\n\n')
 * controller.close()
 * ```
 */
export function createStreamController(): MockStreamController {
  const queue: MockStreamStep[] = []
  let ended = false
  let consumed = false
  let wake: (() => void) | undefined
  let attach!: () => void
  const attached = new Promise<void>((resolve) => {
    attach = resolve
  })
  const push = (step: MockStreamStep | undefined) => {
    if (ended) {
      throw new InvalidStateError(
        'This MockGPT stream controller was already closed or disconnected; create a new one per stream.',
      )
    }
    if (step) queue.push(step)
    else ended = true
    const w = wake
    wake = undefined
    w?.()
  }
  const controller: MockStreamController = {
    attached,
    write(chunk) {
      push({ type: 'data', chunk: typeof chunk === 'string' ? chunk : `data: ${JSON.stringify(chunk)}\n\n` })
    },
    close() {
      push(undefined)
    },
    disconnect() {
      push({ type: 'disconnect' })
      ended = true
    },
  }
  bodies.set(controller, () => {
    if (consumed) {
      throw new InvalidStateError(
        'A MockGPT stream controller answers one request; create one controller per scripted stream.',
      )
    }
    consumed = true
    attach()
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (queue.length > 0) {
            const step = queue.shift() as MockStreamStep
            yield step
            if (step.type === 'disconnect') return
          }
          if (ended) return
          await new Promise<void>((resolve) => {
            wake = resolve
          })
        }
      },
    }
  })
  return controller
}
