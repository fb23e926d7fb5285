/** The control half of the transport matrix: scripting, recording, failure injection, chaos, budget. */
import { describe, expect, it } from 'vitest'
import { createStreamController } from '../stream-controller.js'
import { payloads, readSse } from './sse.js'
import {
  chat,
  type Json,
  post,
  type TransportFactory,
  type TransportUnderTest,
  waitFor,
  withTransport,
} from './transport-helpers.js'

/**
 * Registers the scripting and failure tests against the transport `current()` returns (and transports of
 * their own from `factory`, for options the shared one lacks): one group of cases per topic.
 */
export function controlSuite(current: () => TransportUnderTest, factory: TransportFactory): void {
  describe('scripting and recording', () => {
    scriptedReplyCases(current)
    scriptedDeliveryCases(current)
  })
  describe('failure injection', () => {
    streamFaultCases(current)
    chaosCases(factory)
  })
  describe('budget', () => budgetCases(factory))
}

/** Scripted replies: the script queue and the recording (in code and over `/_mock`), error replies, JSON values. */
function scriptedReplyCases(current: () => TransportUnderTest): void {
  it('replays entries in order, by predicate and by declarative match, and records every request', async () => {
    const t = current()
    t.mock.script(
      { reply: { type: 'text', text: 'first' } },
      {
        reply: { type: 'text', text: 'for weather' },
        match: (r) => r.lastUserMessage.includes('weather'),
        times: 2,
      },
      { reply: { type: 'text', text: 'streamed only' }, match: { stream: true } },
    )
    const text = async (content: string) =>
      ((await (await post(t, '/v1/chat/completions', chat(content))).json()) as Json).choices[0].message
        .content
    expect(await text('anything')).toBe('first')
    expect(await text('weather?')).toBe('for weather')
    expect(await text('no match')).toMatch(/^MockGPT reply/)
    expect(await text('weather again')).toBe('for weather')
    expect(t.mock.pendingScript).toBe(1)
    expect(t.mock.requests.map((r) => r.scriptEntry)).toEqual([0, 1, undefined, 1])
    expect(t.mock.requests[0]?.body).toMatchObject({ messages: [{ content: 'anything' }] })
    // Credentials are redacted in recordings by default.
    expect(t.mock.requests[0]?.headers.authorization).toBe('Bearer <redacted>')

    const admin = (await (await t.request('/_mock/requests')).json()) as Json
    expect(admin.data.length).toBe(4)
    expect(admin.data[1].scriptEntry).toBe(1)
    const queued = await t.request('/_mock/script', {
      method: 'POST',
      body: JSON.stringify([
        { reply: { type: 'text', text: 'over http' }, match: { lastUserMessageIncludes: 'admin' } },
      ]),
    })
    expect(((await queued.json()) as Json).pendingScript).toBe(2)
    expect(await text('admin please')).toBe('over http')
    const badScript = await t.request('/_mock/script', {
      method: 'POST',
      body: JSON.stringify({ reply: { type: 'txt' } }),
    })
    expect(badScript.status).toBe(400)
    expect(((await badScript.json()) as Json).error.message).toMatch(/type is one of/)
    await t.request('/_mock/reset', { method: 'POST' })
    expect(t.mock.requests).toEqual([])
    expect(t.mock.pendingScript).toBe(0)
  })

  it('scripts error replies with retry headers', async () => {
    const t = current()
    t.mock.script({ reply: { type: 'error', status: 429, retryAfterMs: 1500, shouldRetry: true } })
    const response = await post(t, '/v1/chat/completions', chat('hi'))
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after-ms')).toBe('1500')
    expect(response.headers.get('retry-after')).toBe('2')
    expect(response.headers.get('x-should-retry')).toBe('true')
    expect(((await response.json()) as Json).error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
    })
  })

  it('sends a scripted JSON value, checked against the request schema, as JSON and as a stream', async () => {
    const t = current()
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['answer'],
      properties: { answer: { type: 'integer' } },
    }
    const format = { type: 'json_schema', json_schema: { name: 'out', schema } }
    t.mock.script(
      { reply: { type: 'json', value: { answer: 42 } } },
      { reply: { type: 'json', value: { answer: 7 } } },
      { reply: { type: 'json', value: { answer: 1 } } },
    )
    const json = (await (
      await post(t, '/v1/chat/completions', chat('json', { response_format: format }))
    ).json()) as Json
    expect(JSON.parse(json.choices[0].message.content)).toEqual({ answer: 42 })
    const streamed = payloads(
      (
        await readSse(
          await post(t, '/v1/chat/completions', chat('json', { response_format: format, stream: true })),
        )
      ).events,
    ) as Json[]
    expect(JSON.parse(streamed.map((c) => c.choices[0]?.delta.content ?? '').join(''))).toEqual({
      answer: 7,
    })
    const responses = (await (
      await post(t, '/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'json',
        text: { format: { type: 'json_schema', name: 'out', schema } },
      })
    ).json()) as Json
    expect(JSON.parse(responses.output[0].content[0].text)).toEqual({ answer: 1 })
  })
}

/** How a scripted entry is delivered: behind per-request status faults, as raw chunks, as a controlled stream. */
function scriptedDeliveryCases(current: () => TransportUnderTest): void {
  it('injects a status fault per request with Retry-After in seconds or milliseconds, then serves the entry', async () => {
    const t = current()
    t.mock.script(
      { faults: [{ type: 'status', status: 503, retryAfterSeconds: 3 }] },
      {
        faults: [{ type: 'status', status: 429, retryAfterMs: 250 }],
        reply: { type: 'text', text: 'unused' },
      },
      { reply: { type: 'text', text: 'after the faults' } },
    )
    const seconds = await post(t, '/v1/chat/completions', chat('one'))
    expect(seconds.status).toBe(503)
    expect(seconds.headers.get('retry-after')).toBe('3')
    expect(seconds.headers.get('retry-after-ms')).toBeNull()
    expect(((await seconds.json()) as Json).error.type).toBe('server_error')
    const millis = await post(t, '/v1/chat/completions', chat('two'))
    expect(millis.status).toBe(429)
    expect(millis.headers.get('retry-after-ms')).toBe('250')
    expect(millis.headers.get('retry-after')).toBe('1')
    expect(((await millis.json()) as Json).error.type).toBe('rate_limit_error')
    const ok = (await (await post(t, '/v1/chat/completions', chat('three'))).json()) as Json
    expect(ok.choices[0].message.content).toBe('after the faults')
    expect(t.mock.requests.map((r) => [r.status, r.faults])).toEqual([
      [503, ['status']],
      [429, ['status']],
      [200, []],
    ])
  })

  it('sends raw chunks verbatim and a controlled stream step by step', async () => {
    const t = current()
    t.mock.script({
      reply: { type: 'raw-chunks', chunks: [{ hello: 1 }, ': comment\n\n', 'data: [DONE]\n\n'] },
    })
    const raw = await readSse(await post(t, '/v1/chat/completions', chat('raw', { stream: true })))
    expect(raw.events.map((e) => e.data)).toEqual(['{"hello":1}', '', '[DONE]'])

    const controller = createStreamController()
    t.mock.script({ reply: { type: 'controlled-stream', controller } })
    const response = await post(t, '/v1/chat/completions', chat('controlled', { stream: true }))
    await controller.attached
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    controller.write({ step: 1 })
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toBe('data: {"step":1}\n\n')
    controller.write('data: [DONE]\n\n')
    controller.close()
    let rest = ''
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value)
    expect(rest).toBe('data: [DONE]\n\n')
  })
}

/** Faults injected into one response: a dropped connection, malformed and duplicate chunks, slowness, a hang. */
function streamFaultCases(current: () => TransportUnderTest): void {
  it('drops the connection after N chunks, with no [DONE]', async () => {
    const t = current()
    t.mock.script({ faults: [{ type: 'disconnect', afterChunks: 3 }] })
    const { events, error } = await readSse(
      await post(t, '/v1/chat/completions', chat('disconnect me', { stream: true })),
    )
    expect(error).toBeDefined()
    expect(events.length).toBe(3)
    expect(events.some((e) => e.data === '[DONE]')).toBe(false)
    expect(t.mock.requests[0]?.faults).toEqual(['disconnect'])
  })

  it('sends a malformed data line and a duplicate finish chunk', async () => {
    const t = current()
    t.mock.script(
      { faults: [{ type: 'malformed-chunk', afterChunks: 2 }] },
      { faults: [{ type: 'duplicate-finish' }] },
    )
    const malformed = await readSse(await post(t, '/v1/chat/completions', chat('break it', { stream: true })))
    expect(() => JSON.parse(malformed.events[2]?.data ?? '')).toThrow()
    expect(malformed.events.at(-1)?.data).toBe('[DONE]')
    const duplicate = await readSse(await post(t, '/v1/chat/completions', chat('twice', { stream: true })))
    const finishes = (payloads(duplicate.events) as Json[]).filter(
      (c) => c.choices[0]?.finish_reason === 'stop',
    )
    expect(finishes.length).toBe(2)
  })

  it('delivers everything despite a slow first byte and slow chunks', async () => {
    const t = current()
    t.mock.script({
      faults: [
        { type: 'slow-first-byte', delayMs: 30 },
        { type: 'slow-chunks', delayMs: 2 },
      ],
    })
    const { events, error } = await readSse(
      await post(t, '/v1/chat/completions', chat('slowly', { stream: true })),
    )
    expect(error).toBeUndefined()
    expect(events.at(-1)?.data).toBe('[DONE]')
  })

  it('hangs until the client gives up', async () => {
    const t = current()
    t.mock.script({ faults: [{ type: 'hang' }] })
    const abort = new AbortController()
    const pending = post(t, '/v1/chat/completions', chat('hang'), { signal: abort.signal })
    await waitFor(() => t.mock.requests.length === 1)
    abort.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })
}

/** Seeded chaos, on a transport of its own. */
function chaosCases(factory: TransportFactory): void {
  it('injects seeded chaos reproducibly', async () => {
    const statuses = async (x: TransportUnderTest) => {
      const out: number[] = []
      for (let i = 0; i < 12; i++) out.push((await post(x, '/v1/chat/completions', chat(`q${i}`))).status)
      return out
    }
    await withTransport(
      factory,
      { seed: 9, chaos: { rate: 0.5, faults: [{ type: 'status', status: 503, retryAfterMs: 5 }] } },
      async (x) => {
        const first = await statuses(x)
        x.mock.reset()
        expect(await statuses(x)).toEqual(first)
        expect(first).toContain(503)
        expect(first).toContain(200)
      },
    )
  })
}

/** The call and token budget, on transports of their own. */
function budgetCases(factory: TransportFactory): void {
  it('answers 429 with the usage so far once calls or tokens run out', async () => {
    await withTransport(factory, { budget: { maxCalls: 2 } }, async (x) => {
      expect((await post(x, '/v1/chat/completions', chat('one'))).status).toBe(200)
      expect(
        (await post(x, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'two' })).status,
      ).toBe(200)
      const over = await post(x, '/v1/chat/completions', chat('three'))
      expect(over.status).toBe(429)
      expect(over.headers.get('x-should-retry')).toBe('false')
      const body = (await over.json()) as Json
      expect(body.error.code).toBe('insufficient_quota')
      expect(body.error.usage).toMatchObject({ calls: 2, max_calls: 2 })
      expect(body.error.usage.total_tokens).toBe(x.mock.usage.totalTokens)
    })
    await withTransport(factory, { budget: { maxTokens: 10 } }, async (x) => {
      expect(
        (await post(x, '/v1/chat/completions', chat('a question long enough to use the budget'))).status,
      ).toBe(200)
      expect((await post(x, '/v1/chat/completions', chat('again'))).status).toBe(429)
    })
  })
}
