import type { MockGPT, MockGPTOptions } from '@agent-core/mock'
import { sleep, untilAborted } from '../internal/sleep.js'
import { createMockGPT } from '../mock-gpt.js'
import type { MockStreamStep } from '../mock-http.js'
import { type MockBodySink, pumpMockBody } from '../pump-mock-body.js'

/**
 * Options of {@link createMockGPTFetchHandler}: engine options, or an engine to serve.
 * @example
 * ```ts
 * import { createMockGPT } from '@agent-core/mock'
 * import { createMockGPTFetchHandler } from '@agent-core/mock/web'
 * const handler = createMockGPTFetchHandler({ mock: createMockGPT({ seed: 4 }) })
 * ```
 * @example
 * ```ts
 * import { createMockGPTFetchHandler } from '@agent-core/mock/web'
 * const handler = createMockGPTFetchHandler()
 * const response = await handler.fetch('http://mockgpt.local/v1/models')
 * handler.close()
 * ```
 */
export interface MockGPTFetchHandlerOptions extends MockGPTOptions {
  /** Serve this engine instead of creating one from the other options. */
  readonly mock?: MockGPT | undefined
}

/**
 * MockGPT as a `fetch`-compatible handler.
 * @example
 * ```ts
 * import { createMockGPTFetchHandler, type MockGPTFetchHandler } from '@agent-core/mock/web'
 * const handler: MockGPTFetchHandler = createMockGPTFetchHandler({ seed: 1 })
 * const models = await (await handler.fetch('http://mockgpt.local/v1/models')).json()
 * handler.close()
 * ```
 */
export interface MockGPTFetchHandler {
  /** Answers one request. Rejects (like `fetch`) with an `AbortError` when the request's signal aborts. */
  (request: Request): Promise<Response>
  /** The engine: script it, read `requests` and `usage`, `reset()` it between tests. */
  readonly mock: MockGPT
  /** A drop-in `fetch` (`(input, init) => Promise<Response>`) for clients such as the OpenAI SDK. */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>
  /**
   * Ends every slow, hung or open stream; later requests still work. Then throws `MockScriptError` when the
   * engine recorded a script problem, so a suite whose script failed cannot end green.
   */
  close(): void
}

function linkedSignal(...signals: AbortSignal[]): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const abort = () => controller.abort()
  for (const s of signals) {
    if (s.aborted) abort()
    s.addEventListener('abort', abort, { once: true })
  }
  return {
    signal: controller.signal,
    dispose() {
      for (const s of signals) s.removeEventListener('abort', abort)
    },
  }
}

function abortError(): Error {
  return new DOMException('The MockGPT request was aborted.', 'AbortError')
}

function streamBody(
  steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep>,
  signal: AbortSignal,
  dispose: () => void,
  cancel: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let demand = 0
  let wake: (() => void) | undefined
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const demanded = async () => {
    // Enqueue only when a reader is waiting, so nothing sits in the queue when a disconnect errors the stream.
    while (demand === 0 && !signal.aborted) await new Promise<void>((resolve) => (wake = resolve))
  }
  signal.addEventListener('abort', () => wake?.(), { once: true })
  const sink: MockBodySink = {
    async write(chunk) {
      await demanded()
      if (signal.aborted) return
      demand--
      controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
    },
    async disconnect() {
      await demanded()
      controller.error(new TypeError('MockGPT dropped the connection (a simulated network error).'))
    },
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c
      },
      pull() {
        demand++
        const w = wake
        wake = undefined
        w?.()
      },
      cancel() {
        cancel()
      },
    },
    { highWaterMark: 0 },
  )
  pumpMockBody(steps, sink, signal)
    .then((ended) => {
      if (ended === 'end') controller.close()
      else if (ended === 'aborted') controller.error(abortError())
    })
    .catch((error: unknown) => controller.error(error))
    .catch(() => undefined)
    .finally(dispose)
  return body
}

/**
 * Wraps a MockGPT engine as a `fetch`-style handler `(request: Request) => Promise<Response>`: for
 * browsers, service workers and in-process tests. Streams are real `ReadableStream`s; a simulated
 * disconnect errors the body like a dropped connection does.
 * @example
 * ```ts
 * import { createMockGPTFetchHandler } from '@agent-core/mock/web'
 * const handler = createMockGPTFetchHandler({ seed: 1 })
 * const response = await handler(new Request('http://mockgpt.local/v1/models'))
 * console.log(response.status) // 200
 * // or: new OpenAI({ baseURL: 'http://mockgpt.local/v1', apiKey: 'test', fetch: handler.fetch })
 * ```
 */
export function createMockGPTFetchHandler(options: MockGPTFetchHandlerOptions = {}): MockGPTFetchHandler {
  const { mock: given, ...engineOptions } = options
  const mock = given ?? createMockGPT(engineOptions)
  let lifetime = new AbortController()

  const handle = async (request: Request): Promise<Response> => {
    // Taken before the first await, so a close() while the body is still being read ends this request too.
    const lifetimeSignal = lifetime.signal
    const method = request.method.toUpperCase()
    const body = method === 'GET' || method === 'HEAD' ? undefined : await request.text()
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      headers[name] = value
    })
    const response = mock.handle({ method, url: request.url, headers, body })
    const local = new AbortController()
    const linked = linkedSignal(request.signal, lifetimeSignal, local.signal)
    const signal = linked.signal
    let streaming = false
    try {
      if (response.firstByteDelayMs > 0) await sleep(response.firstByteDelayMs, signal)
      if (signal.aborted) throw abortError()
      const out = response.body
      if (out.type === 'hang') {
        await untilAborted(signal)
        throw abortError()
      }
      const init = { status: response.status, headers: response.headers }
      if (out.type === 'empty') return new Response(null, init)
      if (out.type === 'text') return new Response(out.text, init)
      streaming = true
      return new Response(
        streamBody(out.steps, signal, linked.dispose, () => local.abort()),
        init,
      )
    } finally {
      if (!streaming) linked.dispose()
    }
  }

  return Object.assign(handle, {
    mock,
    fetch: (input: string | URL | Request, init?: RequestInit) => handle(new Request(input, init)),
    close() {
      lifetime.abort()
      lifetime = new AbortController()
      mock.assertNoScriptProblems()
    },
  })
}
