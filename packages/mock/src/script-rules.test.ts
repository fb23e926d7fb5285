/**
 * The rules that make a green test mean what it says, at the engine level: script errors, unknown keys,
 * strict mode, the chaos pool, computed replies, sequences, matching, test scopes, the bounded journal,
 * parameter checks and reasoning. The same rules are exercised through the official clients in
 * node/official-clients.test.ts.
 */
import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockGPT, type MockGPT } from './mock-gpt.js'
import type { MockHttpResponse } from './mock-http.js'
import { MockScriptError } from './mock-script-error.js'
import { parseMockScript } from './parse-mock-script.js'
import { pumpMockBody } from './pump-mock-body.js'
import type { MockRequestView } from './script.js'
import { parseSse } from './testing/sse.js'

// biome-ignore lint/suspicious/noExplicitAny: test-side access to JSON bodies
type Json = Record<string, any>

function post(mock: MockGPT, path: string, body: unknown, headers: Record<string, string> = {}) {
  return mock.handle({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

function bodyOf(response: MockHttpResponse): Json {
  if (response.body.type !== 'text') throw new Error(`expected a text body, got ${response.body.type}`)
  return JSON.parse(response.body.text) as Json
}

async function streamText(response: MockHttpResponse): Promise<string> {
  if (response.body.type !== 'stream') throw new Error(`expected a stream, got ${response.body.type}`)
  let text = ''
  const decoder = new TextDecoder()
  await pumpMockBody(
    response.body.steps,
    {
      write: (chunk) => {
        text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
      },
      disconnect() {},
    },
    new AbortController().signal,
  )
  return text
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
})
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['n'],
  properties: { n: { type: 'integer' } },
}
const structured = (content: string) =>
  chat(content, { response_format: { type: 'json_schema', json_schema: { name: 's', schema: SCHEMA } } })
const SEARCH = [
  {
    type: 'function',
    function: {
      name: 'search',
      parameters: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
    },
  },
]

describe('a script error never passes as data', () => {
  it('answers a non-retryable 400 naming the entry and the schema issue, then the same error until reset', () => {
    const mock = createMockGPT({
      script: [{ reply: { type: 'json', value: { n: 'one' } }, label: 'broken count' }],
    })
    const first = post(mock, '/v1/chat/completions', structured('count'))
    expect(first.status).toBe(400)
    expect(first.headers['x-should-retry']).toBe('false')
    const error = bodyOf(first).error
    expect(error.code).toBe('mock_script_error')
    expect(error.message).toMatch(/script entry 0 \("broken count"\).*\/n must be integer/)
    // A retry (by an SDK or by the code under test) never falls through to a generated answer.
    const retry = post(mock, '/v1/chat/completions', structured('count'))
    expect(retry.status).toBe(400)
    expect(bodyOf(retry).error.message).toMatch(/until reset\(\)/)
    expect(mock.requests.map((r) => r.scriptError !== undefined)).toEqual([true, true])
    expect(mock.scriptProblems).toEqual([
      expect.objectContaining({ kind: 'script-error', entry: 0, requestIndex: 0 }),
    ])
    expect(() => mock.assertAllScriptsUsed()).toThrow(MockScriptError)
    expect(() => mock.assertNoScriptProblems()).toThrow(/broken count/)
    mock.reset()
    expect(mock.scriptProblems).toEqual([])
    expect(() => mock.assertNoScriptProblems()).not.toThrow()
  })

  it('turns every kind of script failure into a recorded script error', () => {
    const failures: [string, ReturnType<typeof createMockGPT>, unknown][] = [
      [
        'a tool call without arguments to a tool the request does not offer',
        createMockGPT({ script: [{ reply: { type: 'tool-calls', calls: [{ name: 'nope' }] } }] }),
        chat('x'),
      ],
      [
        'a json reply without value and without a schema',
        createMockGPT({ script: [{ reply: { type: 'json' } }] }),
        chat('x'),
      ],
      [
        'a computed reply that throws',
        createMockGPT({
          script: [
            {
              reply: () => {
                throw new Error('boom')
              },
            },
          ],
        }),
        chat('x'),
      ],
      [
        'a computed reply that returns a Promise',
        createMockGPT({
          script: [{ reply: (() => Promise.resolve({ type: 'text', text: 'x' })) as unknown as () => never }],
        }),
        chat('x'),
      ],
      [
        'a computed reply that returns garbage',
        createMockGPT({ script: [{ reply: (() => ({ type: 'txt' })) as unknown as () => never }] }),
        chat('x'),
      ],
    ]
    for (const [what, mock, body] of failures) {
      const response = post(mock, '/v1/chat/completions', body)
      expect(response.status, what).toBe(400)
      expect(bodyOf(response).error.code, what).toBe('mock_script_error')
      expect(mock.scriptProblems.length, what).toBe(1)
    }
  })

  it('reports entries never used, and accepts a script that ran exactly', () => {
    const mock = createMockGPT({
      script: [
        { reply: { type: 'text', text: 'one' } },
        { reply: { type: 'text', text: 'kept' }, times: Number.POSITIVE_INFINITY, match: { model: 'other' } },
        { label: 'never', reply: { type: 'text', text: 'two' }, match: { lastUserMessageIncludes: 'zzz' } },
      ],
    })
    post(mock, '/v1/chat/completions', chat('a'))
    let caught: unknown
    try {
      mock.assertAllScriptsUsed()
    } catch (error) {
      caught = error
    }
    expect(MockScriptError.isInstance(caught)).toBe(true)
    const details = (caught as MockScriptError).details
    expect(details.unused.map((u) => u.index)).toEqual([1, 2])
    expect((caught as Error).message).toMatch(/script entry 2 \("never"\) was never used/)
    post(mock, '/v1/chat/completions', { ...chat('zzz'), model: 'other' })
    post(mock, '/v1/chat/completions', chat('zzz'))
    expect(() => mock.assertAllScriptsUsed()).not.toThrow()
  })
})

describe('JSON scripts refuse unknown keys', () => {
  it.each([
    [
      { reply: { type: 'text', text: 'x' }, matches: { model: 'a' } },
      /script\[0\]\.matches.*did you mean "match"/,
    ],
    [{ reply: { type: 'text', txt: 'x' } }, /script\[0\]\.reply\.txt.*did you mean "text"/],
    [{ reply: { type: 'text', text: 'x' }, match: { modle: 'a' } }, /match\.modle.*did you mean "model"/],
    [{ faults: [{ type: 'slow-chunks', delay: 5 }] }, /faults\[0\]\.delay.*did you mean "delayMs"/],
    [{ reply: { type: 'tool-calls', calls: [{ name: 'f', args: {} }] } }, /calls\[0\]\.args.*"arguments"/],
    [{ reply: { type: 'txet', text: 'x' } }, /reply\.type.*did you mean "text"/],
    [{ reply: { type: 'text', text: 'x' }, time: 2 }, /script\[0\]\.time.*did you mean "times"/],
  ])('refuses %j', (entry, message) => {
    let caught: unknown
    try {
      parseMockScript(JSON.stringify([entry]))
    } catch (error) {
      caught = error
    }
    expect(InvalidInputError.isInstance(caught)).toBe(true)
    expect((caught as Error).message).toMatch(message)
    expect((caught as InvalidInputError).details.field).toMatch(/^script\[0\]/)
  })

  it('refuses them over the admin route too, with a 400 that names the key', () => {
    const mock = createMockGPT()
    const response = post(mock, '/_mock/script', [{ reply: { type: 'text', text: 'x' }, matches: {} }])
    expect(response.status).toBe(400)
    expect(bodyOf(response).error.message).toMatch(/did you mean "match"/)
    expect(mock.pendingScript).toBe(0)
  })

  it('refuses unknown option keys as well', () => {
    expect(() => createMockGPT({ strcit: true } as never)).toThrow(/options\.strcit.*did you mean "strict"/)
  })
})

describe('strict mode', () => {
  it('answers an unmatched request with a 400 that summarizes it, and records it', () => {
    const mock = createMockGPT({
      strict: true,
      script: [{ reply: { type: 'text', text: 'hi' }, match: { model: 'gpt-4o' } }],
    })
    const response = post(
      mock,
      '/v1/chat/completions',
      chat('what is the weather in Lisbon', { tools: SEARCH }),
    )
    expect(response.status).toBe(400)
    expect(response.headers['x-should-retry']).toBe('false')
    const error = bodyOf(response).error
    expect(error.code).toBe('mock_unmatched_request')
    expect(error.message).toMatch(
      /POST \/v1\/chat\/completions, model "gpt-4o-mini", stream false, turn 0, tools \[search\], last user message "what is the weather in Lisbon"/,
    )
    expect(mock.scriptProblems).toEqual([expect.objectContaining({ kind: 'unmatched', requestIndex: 0 })])
    expect(() => mock.assertAllScriptsUsed()).toThrow(/no script entry matches/)
  })

  it('refuses request fields the SDKs do not define only in strict mode, naming the nearest one', () => {
    const lenient = createMockGPT()
    expect(post(lenient, '/v1/chat/completions', chat('x', { temprature: 1 })).status).toBe(200)
    const strict = createMockGPT({ strict: true, script: [{ reply: { type: 'text', text: 'x' }, times: 5 }] })
    const refused = post(strict, '/v1/chat/completions', chat('x', { temprature: 1 }))
    expect(refused.status).toBe(400)
    expect(bodyOf(refused).error).toMatchObject({ param: 'temprature', code: 'unknown_parameter' })
    expect(bodyOf(refused).error.message).toMatch(/did you mean 'temperature'/)
    expect(post(strict, '/v1/chat/completions', chat('x', { temperature: 1, top_p: 0.5 })).status).toBe(200)
  })
})

describe('parameters are checked against the SDK request types', () => {
  it.each([
    ['temperature "hot"', chat('x', { temperature: 'hot' }), 'temperature'],
    ['temperature 3', chat('x', { temperature: 3 }), 'temperature'],
    ['top_p -5', chat('x', { top_p: -5 }), 'top_p'],
    ['presence_penalty 9', chat('x', { presence_penalty: 9 }), 'presence_penalty'],
    ['top_logprobs 21', chat('x', { top_logprobs: 21 }), 'top_logprobs'],
    ['logprobs "yes"', chat('x', { logprobs: 'yes' }), 'logprobs'],
    ['service_tier "gold"', chat('x', { service_tier: 'gold' }), 'service_tier'],
    ['max_completion_tokens 1.5', chat('x', { max_completion_tokens: 1.5 }), 'max_completion_tokens'],
    ['user 5', chat('x', { user: 5 }), 'user'],
  ])('refuses %s', (_, body, param) => {
    const response = post(createMockGPT(), '/v1/chat/completions', body)
    expect(response.status).toBe(400)
    expect(bodyOf(response).error.param).toBe(param)
  })

  it('checks the Responses, embeddings and Messages parameters too', () => {
    const mock = createMockGPT()
    expect(bodyOf(post(mock, '/v1/responses', { model: 'm', input: 'x', top_p: 2 })).error.param).toBe(
      'top_p',
    )
    expect(
      bodyOf(post(mock, '/v1/embeddings', { model: 'm', input: 'x', encoding_format: 'hex' })).error.param,
    ).toBe('encoding_format')
    const messages = post(mock, '/v1/messages', {
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
      temperature: 7,
    })
    expect(messages.status).toBe(400)
    expect(bodyOf(messages)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
  })
})

describe('the chaos pool', () => {
  it('injects only recoverable faults by default', () => {
    const mock = createMockGPT({ seed: 3, chaos: { rate: 1 } })
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const response = post(mock, '/v1/chat/completions', chat(`q${i}`, { stream: true }))
      for (const fault of mock.requests.at(-1)?.faults ?? []) seen.add(fault)
      if (response.status >= 500 || response.status === 429) {
        expect(response.headers['retry-after']).toBeDefined()
        expect(response.headers['retry-after-ms']).toBeDefined()
      }
    }
    expect([...seen].sort()).toEqual(['slow-chunks', 'slow-first-byte', 'status'])
  })

  it('adds disconnects and malformed chunks on request', () => {
    const mock = createMockGPT({ seed: 3, chaos: { rate: 1, unrecoverable: true } })
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      post(mock, '/v1/chat/completions', chat(`q${i}`, { stream: true }))
      for (const fault of mock.requests.at(-1)?.faults ?? []) seen.add(fault)
    }
    expect(seen).toContain('disconnect')
    expect(seen).toContain('malformed-chunk')
  })
})

describe('computed replies, sequences and matching', () => {
  it('computes an answer from the tool results in the conversation', () => {
    const views: MockRequestView[] = []
    const mock = createMockGPT({
      script: [
        {
          times: Number.POSITIVE_INFINITY,
          reply: (request) => {
            views.push(request)
            if (request.toolResults.length === 0) {
              return {
                type: 'tool-calls',
                calls: [{ name: 'search', arguments: { query: request.lastUserMessage } }],
              }
            }
            const found = request.toolResults.map((r) => `${r.name}: ${r.output}`).join('; ')
            return { type: 'text', text: `According to ${found}.` }
          },
        },
      ],
    })
    const first = bodyOf(post(mock, '/v1/chat/completions', chat('otters', { tools: SEARCH })))
    const call = first.choices[0].message.tool_calls[0]
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'otters' })
    const second = bodyOf(
      post(mock, '/v1/chat/completions', {
        model: 'gpt-4o-mini',
        tools: SEARCH,
        messages: [
          { role: 'user', content: 'otters' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'otters hold hands' },
        ],
      }),
    )
    expect(second.choices[0].message.content).toBe('According to search: otters hold hands.')
    expect(views[1]).toMatchObject({
      turn: 1,
      toolCalls: [{ id: call.id, name: 'search' }],
      toolResults: [
        { callId: call.id, name: 'search', output: 'otters hold hands', arguments: '{"query":"otters"}' },
      ],
    })
    expect(mock.requests.map((r) => [r.scriptEntry, r.reply])).toEqual([
      [0, 'tool-calls'],
      [0, 'text'],
    ])
  })

  it('answers turn 0, 1, 2 of a conversation from a sequence, whatever the order of conversations', () => {
    const mock = createMockGPT({
      script: [
        {
          times: 2,
          sequence: [
            { type: 'tool-calls', calls: [{ name: 'search', arguments: { query: 'q' } }] },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    })
    const turn0 = () => bodyOf(post(mock, '/v1/chat/completions', chat('a', { tools: SEARCH })))
    const turn1 = (id: string) =>
      bodyOf(
        post(mock, '/v1/chat/completions', {
          model: 'gpt-4o-mini',
          tools: SEARCH,
          messages: [
            { role: 'user', content: 'a' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id, type: 'function', function: { name: 'search', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: id, content: 'r' },
          ],
        }),
      )
    // Two conversations interleaved: both get the tool call first, then the text.
    const a = turn0()
    const b = turn0()
    expect(a.choices[0].finish_reason).toBe('tool_calls')
    expect(b.choices[0].finish_reason).toBe('tool_calls')
    expect(turn1('x').choices[0].message.content).toBe('done')
    expect(turn1('y').choices[0].message.content).toBe('done')
    expect(mock.pendingScript).toBe(0)
    expect(mock.requests.map((r) => r.scriptEntry)).toEqual([0, 0, 0, 0])
  })

  it('matches by model, tool offered or called, regular expression and turn', () => {
    const mock = createMockGPT({
      script: [
        { reply: { type: 'text', text: 'by model' }, match: { model: ['gpt-4o', 'gpt-5-mini'] } },
        { reply: { type: 'text', text: 'by regex' }, match: { lastUserMessageMatches: '^order #\\d+$' } },
        { reply: { type: 'text', text: 'by RegExp' }, match: { lastUserMessageMatches: /refund/i } },
        { reply: { type: 'text', text: 'offered' }, match: { toolOffered: 'search', turn: 0 } },
        { reply: { type: 'text', text: 'called' }, match: { toolCalled: 'search', turn: 1 } },
      ],
    })
    const text = (body: unknown) =>
      bodyOf(post(mock, '/v1/chat/completions', body)).choices[0].message.content
    expect(text({ ...chat('x'), model: 'gpt-5-mini' })).toBe('by model')
    expect(text(chat('order #12'))).toBe('by regex')
    expect(text(chat('a REFUND please'))).toBe('by RegExp')
    expect(text(chat('x', { tools: SEARCH }))).toBe('offered')
    expect(
      text({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'search', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: 'r' },
        ],
      }),
    ).toBe('called')
    expect(mock.pendingScript).toBe(0)
  })
})

describe('test scopes', () => {
  it('keeps scripts, recordings, usage and chaos apart per X-Test-Id or /test/<id>/ prefix', () => {
    const mock = createMockGPT({
      script: [{ reply: { type: 'text', text: 'initial' }, times: Number.POSITIVE_INFINITY }],
    })
    mock.scope('a').script({ reply: { type: 'text', text: 'for a' } })
    const viaHeader = bodyOf(post(mock, '/v1/chat/completions', chat('x'), { 'x-test-id': 'a' }))
    // The initial script comes first in every scope: a's own entry answers only after it.
    expect(viaHeader.choices[0].message.content).toBe('initial')
    const b = mock.scope('b')
    b.reset()
    post(mock, '/test/b/v1/chat/completions', chat('y'))
    expect(mock.scope('a').requests.map((r) => r.testId)).toEqual(['a'])
    expect(b.requests.map((r) => [r.testId, r.path])).toEqual([['b', '/v1/chat/completions']])
    expect(mock.requests).toEqual([])
    expect(mock.usage.calls).toBe(0)
    expect(b.usage.calls).toBe(1)
    const usage = bodyOf(mock.handle({ method: 'GET', url: '/test/b/_mock/usage', headers: {} }))
    expect(usage.calls).toBe(1)
    mock.reset()
    expect(mock.scope('a').requests).toEqual([])
  })

  it('refuses a malformed test id', () => {
    const response = post(createMockGPT(), '/v1/chat/completions', chat('x'), { 'x-test-id': 'é'.repeat(3) })
    expect(response.status).toBe(400)
    expect(() => createMockGPT().scope('')).toThrow(InvalidInputError)
  })
})

describe('the journal', () => {
  it('is bounded by entries and bytes, counts what it dropped, and pages the listing', () => {
    const mock = createMockGPT({ journal: { maxEntries: 5, maxBytes: 64 * 1024 } })
    for (let i = 0; i < 12; i++) post(mock, '/v1/chat/completions', chat(`m${i}`))
    expect(mock.requests.map((r) => r.index)).toEqual([7, 8, 9, 10, 11])
    expect(mock.journal).toMatchObject({ entries: 5, dropped: 7 })
    const usage = bodyOf(mock.handle({ method: 'GET', url: '/_mock/usage', headers: {} }))
    expect(usage.journal).toMatchObject({ entries: 5, dropped: 7 })
    const page = bodyOf(mock.handle({ method: 'GET', url: '/_mock/requests?offset=8&limit=2', headers: {} }))
    expect(page.data.map((r: Json) => r.index)).toEqual([8, 9])
    expect(page).toMatchObject({ has_more: true, next_offset: 10, total: 12, dropped: 7 })
    const big = 'x'.repeat(40 * 1024)
    post(mock, '/v1/chat/completions', chat(big))
    const last = mock.requests.at(-1)
    expect(last).toMatchObject({ bodyOmitted: true, body: undefined })
    expect(last?.bodyBytes).toBeGreaterThan(40 * 1024)
    expect(mock.journal.bytes).toBeLessThanOrEqual(64 * 1024)
  })

  it('redacts credential headers unless asked to keep them', () => {
    const headers = { authorization: 'Bearer sk-secret-1234', 'x-api-key': 'sk-ant-9', cookie: 'a=b' }
    const redacted = createMockGPT()
    post(redacted, '/v1/chat/completions', chat('x'), headers)
    expect(redacted.requests[0]?.headers).toMatchObject({
      authorization: 'Bearer <redacted>',
      'x-api-key': '<redacted>',
      cookie: '<redacted>',
    })
    const kept = createMockGPT({ recordCredentials: true })
    post(kept, '/v1/chat/completions', chat('x'), headers)
    expect(kept.requests[0]?.headers.authorization).toBe('Bearer sk-secret-1234')
  })
})

describe('reasoning', () => {
  const reply = { type: 'text' as const, text: 'Answer.', reasoning: 'Think first, then answer.' }

  it('sends reasoning_content in chat completions, JSON and streamed', async () => {
    const mock = createMockGPT({ script: [{ reply, times: 2 }] })
    const json = bodyOf(post(mock, '/v1/chat/completions', chat('x')))
    expect(json.choices[0].message).toMatchObject({ content: 'Answer.', reasoning_content: reply.reasoning })
    expect(json.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0)
    const events = parseSse(await streamText(post(mock, '/v1/chat/completions', chat('x', { stream: true }))))
    const deltas = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data).choices[0]?.delta ?? {})
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(reply.reasoning)
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Answer.')
    const firstContent = deltas.findIndex((d) => d.content)
    const lastReasoning = deltas.findLastIndex((d) => d.reasoning_content)
    expect(lastReasoning).toBeLessThan(firstContent)
  })

  it('sends a reasoning item in the Responses API and a thinking block in Anthropic Messages', async () => {
    const mock = createMockGPT({
      script: [{ reply, times: 4, match: { endpoint: ['responses', 'messages'] } }],
    })
    const response = bodyOf(post(mock, '/v1/responses', { model: 'gpt-5-mini', input: 'x' }))
    expect(response.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: reply.reasoning }],
    })
    const events = parseSse(
      await streamText(post(mock, '/v1/responses', { model: 'gpt-5-mini', input: 'x', stream: true })),
    )
    const summary = events
      .filter((e) => e.event === 'response.reasoning_summary_text.delta')
      .map((e) => JSON.parse(e.data).delta)
      .join('')
    expect(summary).toBe(reply.reasoning)
    const message = bodyOf(
      post(mock, '/v1/messages', {
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
      }),
    )
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: reply.reasoning })
    expect(message.content[1]).toEqual({ type: 'text', text: 'Answer.' })
  })
})

describe('hostile schemas', () => {
  it.each([
    ['a regex bomb', { type: 'string', pattern: '^((a{1000}){1000}){1000}$' }, 'pattern'],
    ['nested stars', { type: 'string', pattern: '^(a+)+$' }, 'pattern'],
    ['overlapping alternatives', { type: 'string', pattern: '^(a|a)*$' }, 'pattern'],
    ['a 100k-value enum', { enum: Array.from({ length: 100_000 }, (_, i) => i) }, 'enum'],
    ['too many branches', { anyOf: Array.from({ length: 300 }, (_, i) => ({ const: i })) }, 'anyOf'],
    [
      'a huge smallest value',
      { type: 'array', minItems: 5000, items: { type: 'string', minLength: 5000 } },
      'schema',
    ],
  ])('answers %s with a 400 naming the keyword', (_, schema, keyword) => {
    const response = post(
      createMockGPT(),
      '/v1/chat/completions',
      chat('x', { response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }),
    )
    expect(response.status).toBe(400)
    expect(bodyOf(response).error.message).toContain(`(keyword "${keyword}")`)
  })

  it('keeps refusing malformed scripts of any shape with InvalidInputError, never a TypeError', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        try {
          parseMockScript(value)
        } catch (error) {
          expect(InvalidInputError.isInstance(error)).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('long streams rendered from a template', () => {
  it('carry each request its own id and timestamp in every chunk, and the same text', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ')
    let clock = 1_700_000_000_000
    const mock = createMockGPT({
      now: () => clock,
      script: [{ reply: { type: 'text', text }, times: 3 }],
    })
    const read = async () => {
      const events = parseSse(
        await streamText(
          post(
            mock,
            '/v1/chat/completions',
            chat('x', { stream: true, stream_options: { include_usage: true } }),
          ),
        ),
      )
      const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Json)
      return {
        ids: new Set(chunks.map((c) => c.id)),
        created: new Set(chunks.map((c) => c.created)),
        text: chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''),
        usage: chunks.at(-1)?.usage,
      }
    }
    const first = await read()
    clock += 5_000
    const second = await read()
    expect(first.ids.size).toBe(1)
    expect(second.ids.size).toBe(1)
    expect([...first.ids][0]).not.toBe([...second.ids][0])
    expect([...first.created]).toEqual([1_700_000_000])
    expect([...second.created]).toEqual([1_700_000_005])
    expect(first.text).toBe(text)
    expect(second.text).toBe(text)
    expect(second.usage).toEqual(first.usage)
    // The JSON answer agrees with the streams.
    const json = bodyOf(post(mock, '/v1/chat/completions', chat('x')))
    expect(json.choices[0].message.content).toBe(text)
  })
})
