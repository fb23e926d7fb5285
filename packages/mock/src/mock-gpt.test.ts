import { InvalidInputError, InvalidStateError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockGPT, type MockGPT, type MockGPTOptions } from './mock-gpt.js'
import type { MockHttpResponse } from './mock-http.js'
import { parseMockScript } from './parse-mock-script.js'
import { pumpMockBody } from './pump-mock-body.js'
import type { MockRequestView, MockScriptEntry } from './script.js'
import { createStreamController } from './stream-controller.js'

// biome-ignore lint/suspicious/noExplicitAny: test-side access to JSON bodies
type Json = Record<string, any>

function call(mock: MockGPT, path: string, body: unknown): MockHttpResponse {
  return mock.handle({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

function bodyOf(response: MockHttpResponse): Json {
  if (response.body.type !== 'text') throw new Error(`expected a text body, got ${response.body.type}`)
  return JSON.parse(response.body.text) as Json
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
})

describe('createMockGPT options', () => {
  it.each([
    ['seed NaN', { seed: Number.NaN }],
    ['seed fraction', { seed: 1.5 }],
    ['seed unsafe', { seed: 2 ** 60 }],
    ['seed string', { seed: '1' }],
    ['apiKey empty', { apiKey: '' }],
    ['apiKey empty list', { apiKey: [] }],
    ['models with a number', { models: [1] }],
    ['script not an array', { script: {} }],
    ['script entry empty', { script: [{}] }],
    ['script reply type unknown', { script: [{ reply: { type: 'banana' } }] }],
    ['script text chunks not joining', { script: [{ reply: { type: 'text', text: 'ab', chunks: ['a'] } }] }],
    ['script tool calls empty', { script: [{ reply: { type: 'tool-calls', calls: [] } }] }],
    ['script error status 200', { script: [{ reply: { type: 'error', status: 200 } }] }],
    ['script times 0', { script: [{ reply: { type: 'text', text: 'x' }, times: 0 }] }],
    ['script fault negative delay', { script: [{ faults: [{ type: 'slow-chunks', delayMs: -1 }] }] }],
    ['script match unknown key', { script: [{ reply: { type: 'text', text: 'x' }, match: { modle: 'x' } }] }],
    [
      'script text reply for embeddings',
      { script: [{ reply: { type: 'text', text: 'x' }, match: { endpoint: 'embeddings' } }] },
    ],
    ['chaos rate 2', { chaos: { rate: 2 } }],
    ['chaos rate NaN', { chaos: { rate: Number.NaN } }],
    ['budget negative', { budget: { maxCalls: -1 } }],
    ['budget NaN tokens', { budget: { maxTokens: Number.NaN } }],
    ['now not a function', { now: 5 }],
  ])('rejects %s with InvalidInputError', (_, options) => {
    expect(() => createMockGPT(options as unknown as MockGPTOptions)).toThrow(InvalidInputError)
  })

  it('names the bad field in the message', () => {
    expect(() =>
      createMockGPT({ script: [{ reply: { type: 'text', text: 1 } } as unknown as MockScriptEntry] }),
    ).toThrow('MockGPT options.script[0].reply.text must be a string')
  })
})

describe('determinism', () => {
  it('gives the same ids and content for the same seed, and different content for another seed', () => {
    const run = (seed: number) => {
      const mock = createMockGPT({ seed, now: () => 0 })
      return [
        bodyOf(call(mock, '/v1/chat/completions', chat('same question'))),
        bodyOf(call(mock, '/v1/responses', { model: 'm', input: 'x' })),
      ]
    }
    expect(run(1)).toEqual(run(1))
    expect(run(1)[0]?.choices[0].message.content).not.toBe(run(2)[0]?.choices[0].message.content)
    expect(run(1)[0]?.id).not.toBe(run(2)[0]?.id)
  })

  it('restarts every sequence on reset()', () => {
    const mock = createMockGPT({
      seed: 4,
      now: () => 0,
      script: [{ reply: { type: 'text', text: 'scripted' } }],
    })
    const before = [
      call(mock, '/v1/chat/completions', chat('a')),
      call(mock, '/v1/chat/completions', chat('a')),
    ].map(bodyOf)
    mock.reset()
    const after = [
      call(mock, '/v1/chat/completions', chat('a')),
      call(mock, '/v1/chat/completions', chat('a')),
    ].map(bodyOf)
    expect(after).toEqual(before)
    expect(before[0]?.choices[0].message.content).toBe('scripted')
  })

  it('mixes the request seed into the content', () => {
    const mock = createMockGPT({ seed: 4 })
    const a = bodyOf(call(mock, '/v1/chat/completions', chat('a', { seed: 1 })))
    const b = bodyOf(call(mock, '/v1/chat/completions', chat('a', { seed: 2 })))
    expect(a.choices[0].message.content).not.toBe(b.choices[0].message.content)
  })
})

describe('scripts that misbehave become non-retryable script errors that say why', () => {
  it('rejects a predicate that returns a Promise or a non-boolean', () => {
    const mock = createMockGPT({
      script: [
        {
          reply: { type: 'text', text: 'x' },
          match: (() => Promise.resolve(true)) as unknown as () => boolean,
        },
      ],
    })
    const response = call(mock, '/v1/chat/completions', chat('a'))
    expect(response.status).toBe(400)
    expect(response.headers['x-should-retry']).toBe('false')
    expect(bodyOf(response).error).toMatchObject({ code: 'mock_script_error' })
    expect(bodyOf(response).error.message).toMatch(/script entry 0 match returned a Promise.*synchronous/)
    const other = createMockGPT({
      script: [{ reply: { type: 'text', text: 'x' }, match: (() => 'yes') as unknown as () => boolean }],
    })
    expect(bodyOf(call(other, '/v1/chat/completions', chat('a'))).error.message).toMatch(
      /must return a boolean/,
    )
  })

  it('checks scripted JSON values and tool arguments against the request schemas, naming the entry', () => {
    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }
    const json = createMockGPT({ script: [{ reply: { type: 'json', value: { n: 'one' } }, label: 'count' }] })
    const answer = call(
      json,
      '/v1/chat/completions',
      chat('a', { response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }),
    )
    expect(answer.status).toBe(400)
    expect(bodyOf(answer).error.code).toBe('mock_script_error')
    expect(bodyOf(answer).error.message).toMatch(/^MockGPT script entry 0 \("count"\): the scripted value/)
    expect(bodyOf(answer).error.message).toMatch(/\/n must be integer/)
    const tools = createMockGPT({
      script: [{ reply: { type: 'tool-calls', calls: [{ name: 'f', arguments: { n: 1.5 } }] } }],
    })
    const called = call(
      tools,
      '/v1/chat/completions',
      chat('a', { tools: [{ type: 'function', function: { name: 'f', parameters: schema } }] }),
    )
    expect(bodyOf(called).error.message).toMatch(/\/n must be integer/)
    expect(tools.scriptProblems).toMatchObject([{ kind: 'script-error', entry: 0, requestIndex: 0 }])
  })

  it('sends string tool arguments verbatim, to simulate broken model output', () => {
    const mock = createMockGPT({
      script: [{ reply: { type: 'tool-calls', calls: [{ name: 'f', arguments: '{"n": ' }] } }],
    })
    const body = bodyOf(
      call(
        mock,
        '/v1/chat/completions',
        chat('a', { tools: [{ type: 'function', function: { name: 'f' } }] }),
      ),
    )
    expect(body.choices[0].message.tool_calls[0].function.arguments).toBe('{"n": ')
  })

  it('refuses to reuse a stream controller, and a closed controller refuses writes', () => {
    const controller = createStreamController()
    const mock = createMockGPT({ script: [{ reply: { type: 'controlled-stream', controller }, times: 2 }] })
    expect(call(mock, '/v1/chat/completions', chat('a', { stream: true })).status).toBe(200)
    const second = call(mock, '/v1/chat/completions', chat('a', { stream: true }))
    expect(second.status).toBe(400)
    expect(bodyOf(second).error.message).toMatch(/one controller per scripted stream/)
    controller.close()
    expect(() => controller.write('x')).toThrow(InvalidStateError)
  })
})

describe('request validation', () => {
  it.each([
    ['no model', { messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['bad role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    ['n = 2', chat('x', { n: 2 }), 'n'],
    [
      'stream_options without stream',
      chat('x', { stream_options: { include_usage: true } }),
      'stream_options',
    ],
    [
      'tool_choice names an unknown tool',
      chat('x', { tool_choice: { type: 'function', function: { name: 'nope' } } }),
      'tool_choice',
    ],
    [
      'duplicate tool names',
      chat('x', {
        tools: [
          { type: 'function', function: { name: 'a' } },
          { type: 'function', function: { name: 'a' } },
        ],
      }),
      'tools[1].name',
    ],
    ['a non-function tool', chat('x', { tools: [{ type: 'web_search' }] }), 'tools[0]'],
    ['max_tokens 0', chat('x', { max_tokens: 0 }), 'max_tokens'],
    [
      'json_schema without schema',
      chat('x', { response_format: { type: 'json_schema', json_schema: { name: 'a' } } }),
      'response_format.json_schema.schema',
    ],
  ])('answers 400 for %s, naming the parameter', (_, body, param) => {
    const response = call(createMockGPT(), '/v1/chat/completions', body)
    expect(response.status).toBe(400)
    expect(bodyOf(response).error.param).toBe(param)
  })

  it('answers a non-object JSON body and an empty body with 400', () => {
    const mock = createMockGPT()
    expect(
      bodyOf(mock.handle({ method: 'POST', url: '/v1/chat/completions', headers: {}, body: '[1]' })).error
        .message,
    ).toMatch(/must be a JSON object/)
    expect(
      bodyOf(mock.handle({ method: 'POST', url: '/v1/chat/completions', headers: {}, body: '' })).error
        .message,
    ).toMatch(/body is empty/)
  })

  it('answers hostile bodies found by the robustness property with 4xx, never a 500 or a crash', () => {
    const mock = createMockGPT()
    const hostile = { toString: 1, valueOf: 1 }
    const assistantCall = chat('x', {
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ function: { name: hostile, arguments: hostile } }],
        },
      ],
    })
    expect(call(mock, '/v1/chat/completions', assistantCall).status).toBe(200)
    const functionCallItem = { model: 'm', input: [{ type: 'function_call', name: hostile, arguments: 1 }] }
    expect(call(mock, '/v1/responses', functionCallItem).status).toBe(200)
    const previous = call(mock, '/v1/responses', { model: 'm', input: 'x', previous_response_id: hostile })
    expect(previous.status).toBe(400)
    expect(bodyOf(previous).error.param).toBe('previous_response_id')

    const deep = `{"model":"m","messages":[{"role":"user","content":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`
    const tooDeep = mock.handle({ method: 'POST', url: '/v1/chat/completions', headers: {}, body: deep })
    expect(tooDeep.status).toBe(400)
    expect(bodyOf(tooDeep).error.message).toMatch(/more than 256 levels deep/)
    // The admin listing must still serialize (a recorded 10 000-deep body used to overflow the stack).
    expect(mock.handle({ method: 'GET', url: '/_mock/requests', headers: {} }).status).toBe(200)

    for (const url of ['constructor', '__proto__', '/v1/models/%E0%A4%A', '/v1/models/%']) {
      const response = mock.handle({ method: 'GET', url, headers: {} })
      expect(response.status).toBe(404)
      expect(bodyOf(response).error.message).toEqual(expect.any(String))
    }
  })

  it('refuses schemas whose smallest value is too large to generate, instead of exhausting memory', () => {
    const mock = createMockGPT()
    const withSchema = (schema: unknown) =>
      call(
        mock,
        '/v1/chat/completions',
        chat('x', { response_format: { type: 'json_schema', json_schema: { name: 'o', schema } } }),
      )
    const huge = withSchema({ type: 'string', minLength: 1_000_000_000 })
    expect(huge.status).toBe(400)
    expect(bodyOf(huge).error).toMatchObject({
      code: 'unsupported_schema',
      message: expect.stringMatching(/minLength/),
    })
    expect(withSchema({ type: 'array', minItems: 1_000_000_000 }).status).toBe(400)
    const nested = withSchema({
      type: 'array',
      minItems: 10_000,
      items: { type: 'array', minItems: 10_000, items: { type: 'string', minLength: 10_000 } },
    })
    expect(nested.status).toBe(400)
    expect(bodyOf(nested).error.message).toMatch(/too large/)
  })

  it('cuts text at a stop sequence and marks Responses cut by max_output_tokens as incomplete', () => {
    const mock = createMockGPT({ script: [{ reply: { type: 'text', text: 'one two STOP three' } }] })
    expect(
      bodyOf(call(mock, '/v1/chat/completions', chat('x', { stop: 'STOP' }))).choices[0].message.content,
    ).toBe('one two ')
    const response = bodyOf(
      call(mock, '/v1/responses', { model: 'm', input: 'write a lot', max_output_tokens: 2 }),
    )
    expect(response.status).toBe('incomplete')
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' })
  })

  it('answers CORS preflights and tags responses when an Origin is sent', () => {
    const mock = createMockGPT()
    const preflight = mock.handle({
      method: 'OPTIONS',
      url: '/v1/chat/completions',
      headers: { origin: 'http://app.local' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe('*')
    expect(
      mock.handle({
        method: 'GET',
        url: 'http://x/v1/models?limit=1',
        headers: { origin: 'http://app.local' },
      }).headers['access-control-allow-origin'],
    ).toBe('*')
  })
})

describe('parseMockScript', () => {
  it('accepts an array, { script }, or one entry, and says what is wrong otherwise', () => {
    const entry = { reply: { type: 'text', text: 'x' } }
    expect(parseMockScript(JSON.stringify([entry]))).toEqual([entry])
    expect(parseMockScript({ script: [entry] })).toEqual([entry])
    expect(parseMockScript(entry)).toEqual([entry])
    expect(() => parseMockScript('{oops', 'responses.json')).toThrow(/responses.json is not valid JSON/)
    expect(() => parseMockScript([{ reply: { type: 'error', status: 99 } }])).toThrow(
      /script\[0\]\.reply\.status must be a safe integer from 400 to 599/,
    )
  })
})

describe('pumpMockBody', () => {
  it('batches undelayed steps, stops at a disconnect, and ends a hang when aborted', async () => {
    const writes: string[] = []
    let dropped = 0
    const sink = {
      write: (t: string | Uint8Array) => void writes.push(String(t)),
      disconnect: () => void dropped++,
    }
    const signal = new AbortController().signal
    expect(
      await pumpMockBody(
        [
          { type: 'data', chunk: 'a' },
          { type: 'data', chunk: 'b' },
          { type: 'disconnect' },
          { type: 'data', chunk: 'c' },
        ],
        sink,
        signal,
      ),
    ).toBe('disconnect')
    expect(writes).toEqual(['ab'])
    expect(dropped).toBe(1)
    const abort = new AbortController()
    const hanging = pumpMockBody([{ type: 'data', chunk: 'x' }, { type: 'hang' }], sink, abort.signal)
    abort.abort()
    expect(await hanging).toBe('aborted')
    const controller = createStreamController()
    const mock = createMockGPT({ script: [{ reply: { type: 'controlled-stream', controller } }] })
    const response = call(mock, '/v1/chat/completions', chat('x', { stream: true }))
    if (response.body.type !== 'stream') throw new Error('expected a stream')
    const waiting = new AbortController()
    const pumping = pumpMockBody(response.body.steps, sink, waiting.signal)
    waiting.abort()
    expect(await pumping).toBe('aborted')
  })
})

describe('default-responder answer caches', () => {
  /** Status, headers and every body byte of a response (streams drained step by step). */
  function wire(response: MockHttpResponse): string {
    const body = response.body
    let text = ''
    if (body.type === 'text') text = body.text
    else if (body.type === 'stream') {
      const decoder = new TextDecoder()
      for (const step of body.steps as Iterable<{ type: string; chunk?: string | Uint8Array }>) {
        const chunk = step.chunk
        text += `${step.type}:${typeof chunk === 'string' ? chunk : decoder.decode(chunk)}|`
      }
    }
    return JSON.stringify([response.status, response.headers, response.firstByteDelayMs, body.type, text])
  }

  const words = fc.constantFrom('Hi', 'Say something short.', 'Zählen: 1 2 3', '  ', 'json please', '😀')
  const chatBody = fc.record(
    {
      model: fc.constantFrom('gpt-4o-mini', 'gpt-4.1'),
      messages: fc.array(
        fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: words }),
        { minLength: 1, maxLength: 3 },
      ),
      stream: fc.boolean(),
      n: fc.constantFrom(1, 2),
      seed: fc.integer({ min: -3, max: 3 }),
      max_tokens: fc.integer({ min: 1, max: 40 }),
      stop: fc.constantFrom(['e'], ['a', ''], 'o'),
      response_format: fc.constantFrom({ type: 'text' }, { type: 'json_object' }),
      tools: fc.constant([
        { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
      ]),
      tool_choice: fc.constantFrom('none', 'auto'),
    },
    { requiredKeys: ['model', 'messages'] },
  )
  const messagesBody = fc.record(
    {
      model: fc.constantFrom('claude-sonnet-4-6', 'claude-haiku-4-5'),
      max_tokens: fc.integer({ min: 1, max: 60 }),
      messages: fc.array(fc.record({ role: fc.constant('user'), content: words }), {
        minLength: 1,
        maxLength: 2,
      }),
      stream: fc.boolean(),
      system: words,
    },
    { requiredKeys: ['model', 'max_tokens', 'messages'] },
  )
  const toResponses = (body: Record<string, unknown>) => ({
    model: body.model,
    input: body.messages,
    ...(body.stream === undefined ? {} : { stream: body.stream }),
  })
  /** A request and near copies of it that differ in one field (taken from another request, or dropped). */
  const family = (
    path: string,
    body: fc.Arbitrary<Record<string, unknown>>,
    map: (b: Record<string, unknown>) => Record<string, unknown> = (b) => b,
  ) =>
    fc.tuple(body, fc.array(fc.tuple(fc.nat(), body), { maxLength: 4 })).map(([base, others]) =>
      [
        base,
        ...others.map(([pick, other]) => {
          const keys = [...new Set([...Object.keys(base), ...Object.keys(other)])]
          const key = keys[pick % keys.length] as string
          const copy: Record<string, unknown> = { ...base }
          if (key in other && key !== 'messages') copy[key] = other[key]
          else if (key === 'messages') copy.messages = other.messages
          else delete copy[key]
          return copy
        }),
      ].map((b) => ({ path, body: map(b) })),
    )
  // The same content as other text too: another key order or spacing misses the body cache only.
  const sent = fc
    .tuple(
      fc.oneof(
        family('/v1/chat/completions', chatBody),
        family('/v1/messages', messagesBody),
        family('/v1/responses', chatBody, toResponses),
      ),
      fc.array(fc.tuple(fc.constantFrom(0, 2, undefined), fc.boolean()), { minLength: 1, maxLength: 3 }),
    )
    .map(([requests, spellings]) =>
      requests.flatMap((r) =>
        spellings.map(([indent, reverse]) => ({
          path: r.path,
          text: JSON.stringify(
            reverse ? Object.fromEntries(Object.entries(r.body).reverse()) : r.body,
            null,
            indent,
          ),
        })),
      ),
    )

  it('answer a repeated request exactly as a fresh engine answers it the first time', () => {
    const post = (mock: MockGPT, path: string, text: string) =>
      mock.handle({ method: 'POST', url: path, headers: { 'content-type': 'application/json' }, body: text })
    fc.assert(
      fc.property(
        sent,
        fc.array(fc.nat(), { minLength: 1, maxLength: 14 }),
        fc.boolean(),
        (distinct, order, strict) => {
          // A script entry whose predicate sees (and scribbles on) every view but never matches.
          let lastView: MockRequestView | undefined
          const options = (): MockGPTOptions => ({
            seed: 7,
            strict,
            now: () => 1_700_000_000_000,
            script: [
              {
                match: (view) => {
                  lastView = structuredClone(view)
                  const first = view.messages[0] as { text: string } | undefined
                  if (first) first.text = 'scribbled'
                  return false
                },
                reply: { type: 'text', text: 'never' },
              },
            ],
          })
          // Repeats (and re-spaced copies) of a few requests: most are served from the caches.
          const sequence = order.map((i) => distinct[i % distinct.length] as { path: string; text: string })
          const warm = createMockGPT(options())
          let answered = 0
          /** Sends one request and returns the view its predicate saw (none when it was refused first). */
          const viewed = (mock: MockGPT, path: string, text: string) => {
            lastView = undefined
            return { response: wire(post(mock, path, text)), view: lastView as MockRequestView | undefined }
          }
          for (const { path, text } of sequence) {
            const warmed = viewed(warm, path, text)
            // The general path: an engine that never saw a chat or Messages request, at the same answer
            // number (embeddings requests count answers but fill no cache of those endpoints).
            const cold = createMockGPT(options())
            for (let i = 0; i < answered; i++)
              post(cold, '/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }))
            const fresh = viewed(cold, path, text)
            const [warmRecord, coldRecord] = [warm.requests.at(-1), cold.requests.at(-1)]
            // An error's request id names its journal record, whose index differs between the two engines.
            if ((warmRecord?.status ?? 0) >= 400)
              expect(warmed.response).toContain(`"req_mockgpt_error_${warmRecord?.index}"`)
            const unnumbered = (response: string) => response.replace(/req_mockgpt_error_\d+/g, 'req_id')
            expect(unnumbered(warmed.response)).toBe(unnumbered(fresh.response))
            expect({ ...warmed.view, index: 0 }).toEqual({ ...fresh.view, index: 0 })
            expect({ ...warmRecord, index: 0 }).toEqual({ ...coldRecord, index: 0 })
            if (warmRecord?.status === 200) answered++
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('answer a Responses follow-up from the history behind its previous_response_id, not its body text', () => {
    const options: MockGPTOptions = { seed: 3, now: () => 1_700_000_000_000 }
    const model = 'gpt-4o-mini'
    const followUp = { model, input: 'And then?' }
    const converse = (mock: MockGPT, opening: string) => {
      const id = bodyOf(call(mock, '/v1/responses', { model, input: opening })).id as string
      return bodyOf(call(mock, '/v1/responses', { ...followUp, previous_response_id: id }))
    }
    const mock = createMockGPT(options)
    const first = converse(mock, 'Tell me about cedar.')
    mock.reset()
    // The same id again (answer numbers restart), the same follow-up body, another conversation behind it.
    const second = converse(mock, 'Something else entirely: glaciers and harbors.')
    expect(second.id).toBe(first.id)
    expect(second.output).not.toEqual(first.output)
    expect(second).toEqual(converse(createMockGPT(options), 'Something else entirely: glaciers and harbors.'))
  })
})
