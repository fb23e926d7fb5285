/**
 * Failures over real HTTP on `/v1/messages`: MockGPT injects them, the official `@anthropic-ai/sdk` client
 * meets them, and the adapter turns each into the one error the caller branches on, with the same kinds
 * and retry-after as the OpenAI adapter. Retries happen only through withRetry; the attempt budget and the
 * server's journal count the attempts independently.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  AbortedError,
  AttemptBudget,
  collectModelStream,
  createOperationContext,
  MemoryDiagnosticSink,
  type ModelRequest,
  type ModelStreamEvent,
  TimeoutError,
} from '@agent-core/core'
import { generateStructured, ModelCalls, ModelProviderError, withRetry } from '@agent-core/kits/models'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type AnthropicChatModel, anthropicChatBinding, createAnthropicChatModel } from './index.js'

let server: MockGPTServer
let model: AnthropicChatModel

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 9, apiKey: 'sk-test' })
  // The SDK logs unparsable chunks itself; the error we throw says it all.
  model = createAnthropicChatModel({
    model: 'claude-sonnet-4-6',
    apiKey: 'sk-test',
    baseURL: server.url,
    clientOptions: { logLevel: 'off' },
  })
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

const hello: ModelRequest = { messages: [{ role: 'user', content: 'Hello there, tell me a long story' }] }

function chatRequests(): number {
  return server.mock.requests.filter((request) => request.endpoint === 'messages').length
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

/** One server-sent event of the Messages API, as raw text. */
function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
}

/** Reads a stream to its end or failure, keeping what arrived. */
async function drain(
  stream: AsyncIterable<ModelStreamEvent>,
): Promise<{ seen: ModelStreamEvent[]; error: unknown }> {
  const seen: ModelStreamEvent[] = []
  try {
    for await (const event of stream) seen.push(event)
  } catch (error) {
    return { seen, error }
  }
  return { seen, error: undefined }
}

describe('429 with retry-after, then success, through withRetry', () => {
  it('a ModelCalls binding: the SDK does not retry, withRetry does, budget and server agree', async () => {
    server.mock.script(
      { reply: { type: 'error', status: 429, retryAfterMs: 40, message: 'Rate limit reached for requests' } },
      { reply: { type: 'text', text: 'Finally through.' } },
    )
    const retries: number[] = []
    const models = new ModelCalls([
      withRetry(anthropicChatBinding({ id: 'chat', chatModel: model }), {
        maxAttempts: 3,
        onRetry: (event) => void retries.push(event.delayMs),
      }),
    ])
    const budget = new AttemptBudget(5)
    const { value } = await models.invoke(
      { modelId: 'chat', input: hello, timeoutMs: 10_000 },
      { attemptBudget: budget },
    )
    expect(value.message.content).toBe('Finally through.')
    expect(retries).toEqual([40]) // the server's retry-after-ms, exactly
    expect(budget.used).toBe(2)
    expect(chatRequests()).toBe(2)
    expect(server.mock.requests.map((request) => request.status)).toEqual([429, 200])
  })

  it('a streamed chat model: retried before its first event, through generateStructured', async () => {
    server.mock.script(
      { reply: { type: 'error', status: 429, retryAfterSeconds: 0 } },
      { faults: [{ type: 'status', status: 503, retryAfterMs: 5 }] },
    )
    const budget = new AttemptBudget(5)
    const retrying = withRetry(model, { maxAttempts: 4, baseDelayMs: 1 })
    const result = await generateStructured<{ ok: boolean }>(
      {
        model: {
          identity: retrying.identity,
          generate: (request, context) => collectModelStream(retrying.stream(request, context)),
        },
        schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } },
        prompt: 'Is it ok?',
        mode: 'json-schema',
      },
      { attemptBudget: budget },
    )
    expect(typeof result.value.ok).toBe('boolean')
    expect(budget.used).toBe(3) // generateStructured took the first attempt, withRetry the two retries
    expect(chatRequests()).toBe(3)
  })

  it('the error itself carries status, retryAfterMs, retryable and the provider message', async () => {
    server.mock.script({
      reply: { type: 'error', status: 429, retryAfterMs: 1500, message: 'Slow down please' },
    })
    const error = await failure(() => model.generate(hello))
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({
      code: 'provider-error',
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 1500,
      retryable: true,
      details: { provider: 'anthropic', providerCode: 'rate_limit_exceeded' }, // MockGPT's code beside the type
    })
    expect((error as Error).message).toMatch(/HTTP 429: Slow down please\. Retry later/)
  })

  it('statuses map to kinds; permanent ones and exhausted quota are not retryable', async () => {
    server.mock.script(
      { reply: { type: 'error', status: 400, message: 'Invalid value for temperature' } },
      { reply: { type: 'error', status: 500 } },
      { reply: { type: 'error', status: 404, message: 'The model does not exist' } },
    )
    const bad = await failure(() => model.generate(hello))
    expect(bad).toMatchObject({ kind: 'invalid-request', status: 400, retryable: false })
    expect(await failure(() => model.generate(hello))).toMatchObject({
      kind: 'server',
      status: 500,
      retryable: true,
    })
    expect(await failure(() => model.generate(hello))).toMatchObject({ kind: 'not-found', retryable: false })

    const strangers = createAnthropicChatModel({
      model: 'claude-sonnet-4-6',
      apiKey: 'sk-wrong',
      baseURL: server.url,
    })
    expect(await failure(() => strangers.generate(hello))).toMatchObject({
      kind: 'authentication',
      status: 401,
      retryable: false,
    })

    const broke = await startMockGPTServer({ budget: { maxCalls: 0 } })
    try {
      const quota = createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'x', baseURL: broke.url })
      const models = new ModelCalls([withRetry(anthropicChatBinding({ id: 'chat', chatModel: quota }))])
      const budget = new AttemptBudget(5)
      const error = await failure(() =>
        models.invoke({ modelId: 'chat', input: hello, timeoutMs: 5000 }, { attemptBudget: budget }),
      )
      expect(error).toMatchObject({ kind: 'quota', status: 429, retryable: false })
      expect(budget.used).toBe(1)
      expect(broke.mock.requests.length).toBe(1)
    } finally {
      await broke.close()
    }
  })
})

describe('a stream that does not finish is an error, never a shorter answer', () => {
  it('disconnect mid-stream: the deltas so far arrive, then a retryable network error and no finish', async () => {
    server.mock.script({ faults: [{ type: 'disconnect', afterChunks: 4 }] })
    const memory = new MemoryDiagnosticSink()
    const { seen, error } = await drain(model.stream(hello, { diagnostics: memory.sink }))
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.some((event) => event.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: 'provider-error', kind: 'network', retryable: true })
    expect(memory.events.at(-1)).toMatchObject({
      kind: 'model-request-end',
      data: { outcome: 'error', errorKind: 'network' },
    })
    server.mock.script({ faults: [{ type: 'disconnect', afterChunks: 2 }] })
    await expect(collectModelStream(model.stream(hello))).rejects.toMatchObject({ kind: 'network' })
  })

  it('disconnect inside a JSON answer is an error too', async () => {
    server.mock.script({ faults: [{ type: 'disconnect' }] })
    const error = await failure(() => model.generate(hello))
    expect(ModelProviderError.isInstance(error)).toBe(true)
    expect((error as ModelProviderError).retryable).toBe(true)
  })

  it('a malformed chunk is an invalid-response error', async () => {
    // message_start, ping, content_block_start, two deltas, then the broken event.
    server.mock.script({ faults: [{ type: 'malformed-chunk', afterChunks: 5 }] })
    const { seen, error } = await drain(model.stream(hello))
    expect(seen.length).toBeGreaterThan(0)
    expect(error).toMatchObject({ code: 'provider-error', kind: 'invalid-response', retryable: true })
    expect((error as Error).message).toMatch(/not valid JSON/)
    server.mock.script({ faults: [{ type: 'malformed-chunk' }] })
    expect(await failure(() => model.generate(hello))).toMatchObject({ kind: 'invalid-response' })
  })

  it('a stream that ends cleanly without message_stop is refused, with or without a stop reason', async () => {
    const start = event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    })
    const text = [
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Half an ans' } }),
    ]
    server.mock.script(
      { reply: { type: 'raw-chunks', chunks: [start, ...text] } },
      {
        reply: {
          type: 'raw-chunks',
          chunks: [
            start,
            ...text,
            event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }),
          ],
        },
      },
    )
    for (const _ of [1, 2]) {
      const { seen, error } = await drain(model.stream(hello))
      expect(seen).toEqual([{ type: 'text-delta', text: 'Half an ans' }])
      expect(error).toMatchObject({ code: 'provider-error', kind: 'invalid-response', retryable: true })
      expect((error as Error).message).toMatch(/without message_stop/)
    }
  })

  it('an event of the wrong shape, and an error event inside the stream, are typed errors', async () => {
    const start = event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    })
    server.mock.script(
      {
        reply: {
          type: 'raw-chunks',
          chunks: [
            start,
            event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
            event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 42 } }),
          ],
        },
      },
      {
        reply: {
          type: 'raw-chunks',
          chunks: [
            start,
            event('content_block_start', { index: 0, content_block: { type: 'tool_use', input: {} } }),
          ],
        },
      },
      {
        reply: {
          type: 'raw-chunks',
          chunks: [start, event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })],
        },
      },
      {
        reply: {
          type: 'raw-chunks',
          chunks: [
            start,
            event('error', { error: { type: 'invalid_request_error', message: 'Prompt is too long' } }),
          ],
        },
      },
    )
    expect(await failure(() => collectModelStream(model.stream(hello)))).toMatchObject({
      kind: 'invalid-response',
    })
    const nameless = await failure(() => collectModelStream(model.stream(hello)))
    expect(nameless).toMatchObject({ kind: 'invalid-response' })
    expect((nameless as Error).message).toMatch(/a tool_use block \{ id, name \} at its start/)
    expect(await failure(() => collectModelStream(model.stream(hello)))).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      details: { providerCode: 'overloaded_error' },
    })
    expect(await failure(() => collectModelStream(model.stream(hello)))).toMatchObject({
      kind: 'invalid-request',
      retryable: false,
    })
  })

  it('529 overloaded is retryable with its retry-after, like a 503', async () => {
    server.mock.script(
      { reply: { type: 'error', status: 529, retryAfterSeconds: 2 } },
      { reply: { type: 'text', text: 'Back.' } },
    )
    expect(await failure(() => model.generate(hello))).toMatchObject({
      kind: 'overloaded',
      status: 529,
      retryAfterMs: 2000,
      retryable: true,
      details: { providerCode: 'overloaded_error' },
    })
    expect((await model.generate(hello)).message.content).toBe('Back.')
  })

  it('a repeated finish chunk changes nothing', async () => {
    server.mock.script({
      reply: { type: 'text', text: 'Finished once.' },
      faults: [{ type: 'duplicate-finish' }],
    })
    const response = await collectModelStream(model.stream(hello))
    expect(response.message.content).toBe('Finished once.')
    expect(response.finishReason).toBe('stop')
  })
})

describe('cancellation and timeouts', () => {
  it('a hung server: the ModelCalls timeout fires, the request is cancelled, and nothing hangs', async () => {
    const signals: AbortSignal[] = []
    const watched = createAnthropicChatModel({
      model: 'claude-sonnet-4-6',
      apiKey: 'sk-test',
      baseURL: server.url,
      clientOptions: {
        fetch: (url, init) => {
          if (init?.signal) signals.push(init.signal)
          return fetch(url, init)
        },
      },
    })
    server.mock.script({ faults: [{ type: 'hang' }] }, { faults: [{ type: 'hang', afterChunks: 3 }] })
    const models = new ModelCalls([
      withRetry(anthropicChatBinding({ id: 'chat', chatModel: watched })),
      withRetry(anthropicChatBinding({ id: 'streamed', chatModel: watched, stream: true })),
    ])
    const budget = new AttemptBudget(5)
    const error = await failure(() =>
      models.invoke({ modelId: 'chat', input: hello, timeoutMs: 150 }, { attemptBudget: budget }),
    )
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect((error as TimeoutError).details).toMatchObject({ timeoutMs: 150, what: 'model call "chat"' })
    const streamed = await failure(() =>
      models.invoke({ modelId: 'streamed', input: hello, timeoutMs: 150 }, { attemptBudget: budget }),
    )
    expect(TimeoutError.isInstance(streamed)).toBe(true)
    expect(budget.used).toBe(2) // a timeout is never retried
    expect(chatRequests()).toBe(2)
    // Both HTTP requests were really cancelled, not left waiting on the server.
    expect(signals.length).toBe(2)
    expect(signals.every((signal) => signal.aborted)).toBe(true)
    // And the server is free for the next call.
    expect((await models.invoke({ modelId: 'chat', input: hello, timeoutMs: 5000 })).value.finishReason).toBe(
      'stop',
    )
  })

  it("the caller's signal mid-stream: an AbortedError (span outcome aborted), never retried", async () => {
    server.mock.script({ faults: [{ type: 'slow-chunks', delayMs: 20 }] })
    const controller = new AbortController()
    const memory = new MemoryDiagnosticSink()
    const budget = new AttemptBudget(5)
    const retrying = withRetry(model, { maxAttempts: 5, baseDelayMs: 1 })
    const seen: ModelStreamEvent[] = []
    const error = await failure(async () => {
      const context = createOperationContext({
        signal: controller.signal,
        diagnostics: memory.sink,
        attemptBudget: budget,
      })
      for await (const event of retrying.stream(hello, context)) {
        seen.push(event)
        if (seen.length === 2) controller.abort(new Error('user pressed stop'))
      }
    })
    expect(AbortedError.isInstance(error)).toBe(true)
    expect(ModelProviderError.isInstance(error)).toBe(false)
    expect((error as AbortedError).details.point).toBe('reading the stream')
    expect(seen.length).toBe(2)
    expect(budget.used).toBe(0) // withRetry took no retry
    expect(chatRequests()).toBe(1)
    expect(memory.ofKind('model-request-end')[0]?.data).toMatchObject({ outcome: 'aborted' })
  })

  it('an already aborted signal sends nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const aborted = (error: unknown) => AbortedError.isInstance(error)
    await expect(model.generate(hello, { signal: controller.signal })).rejects.toSatisfy(aborted)
    await expect(collectModelStream(model.stream(hello, { signal: controller.signal }))).rejects.toSatisfy(
      aborted,
    )
    expect(chatRequests()).toBe(0)
  })

  it("the client's own timeout is a retryable timeout failure, distinct from the caller's", async () => {
    const impatient = createAnthropicChatModel({
      model: 'claude-sonnet-4-6',
      apiKey: 'sk-test',
      baseURL: server.url,
      clientOptions: { timeout: 50 },
    })
    server.mock.script({ faults: [{ type: 'slow-first-byte', delayMs: 2000 }] })
    const error = await failure(() => impatient.generate(hello))
    expect(error).toMatchObject({
      code: 'provider-error',
      kind: 'timeout',
      retryable: true,
      status: undefined,
    })
    expect(TimeoutError.isInstance(error)).toBe(false)
  })

  it('a server that cannot be reached is a retryable network failure', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const nowhere = createAnthropicChatModel({
      model: 'claude-sonnet-4-6',
      apiKey: 'x',
      baseURL: `http://127.0.0.1:${port}`,
    })
    const error = await failure(() => collectModelStream(nowhere.stream(hello)))
    expect(error).toMatchObject({ code: 'provider-error', kind: 'network', retryable: true })
    expect((error as Error).message).toMatch(/Could not reach the anthropic server/)
  })
})
