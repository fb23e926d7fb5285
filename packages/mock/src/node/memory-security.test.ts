/**
 * MockGPT keeps its memory bound (issue 32): the journal releases a dropped record at once and holds at
 * most its byte bound, a web page cannot fill it with no-preflight `text/plain` POSTs, and malformed
 * Messages requests get the 400 the real Anthropic API gives (seen through the official SDK).
 */
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Journal, type MutableRecord } from '../internal/journal.js'
import { createMockGPT } from '../mock-gpt.js'
import { type MockGPTServer, startMockGPTServer } from './start-mock-gpt-server.js'

const record = (index: number, bodyBytes: number): MutableRecord => ({
  index,
  testId: undefined,
  method: 'POST',
  path: '/v1/chat/completions',
  headers: {},
  body: { big: 'x'.repeat(10) },
  bodyBytes,
  bodyOmitted: false,
  endpoint: 'chat.completions',
  status: 200,
  scriptEntry: undefined,
  reply: undefined,
  faults: [],
  scriptError: undefined,
})

describe('the journal releases what it drops', () => {
  it('holds no reference to a dropped record (it can be collected at once)', async () => {
    const journal = new Journal({ maxEntries: 1000, maxBytes: 64 * 1024 })
    const dropped: WeakRef<MutableRecord>[] = []
    for (let index = 0; index < 300; index += 1) {
      const item = record(index, 20 * 1024)
      dropped.push(new WeakRef(item))
      journal.add(item)
    }
    expect(journal.dropped).toBeGreaterThan(290)
    expect(journal.bytes).toBeLessThanOrEqual(64 * 1024)
    // Before the fix, up to 1,024 dropped records stayed in the journal's array: reachable, never freed.
    const internal = (journal as unknown as { records: unknown[] }).records
    const held = internal.filter((item) => item !== undefined).length
    expect(held).toBe(journal.length)
    expect(internal.length).toBeLessThanOrEqual(journal.length + 2 * 64 + 1)
    expect(journal.all().map((item) => item.index)).toEqual(
      Array.from({ length: journal.length }, (_, i) => 300 - journal.length + i),
    )
  })

  it('keeps a scope within its byte bound under many large requests', () => {
    const mock = createMockGPT({ journal: { maxBytes: 2 * 1024 * 1024 } })
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x'.repeat(600_000) }],
    })
    for (let index = 0; index < 40; index += 1) {
      mock.handle({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body,
      })
    }
    expect(mock.journal.bytes).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(mock.journal.dropped).toBeGreaterThan(30)
  })
})

describe('a web page cannot drive the model routes with no-preflight bodies', () => {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
  for (const type of [
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    undefined,
  ]) {
    it(`refuses ${type ?? 'a typeless body'} from a foreign Origin before recording it`, () => {
      const mock = createMockGPT()
      const answer = mock.handle({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { origin: 'https://evil.example', ...(type === undefined ? {} : { 'content-type': type }) },
        body,
      })
      expect(answer.status).toBe(415)
      expect(mock.journal.entries).toBe(0)
      expect(mock.requests).toEqual([])
    })
  }

  it('still answers JSON from a browser app, a text/plain body from a program, and listed origins', () => {
    const mock = createMockGPT({ adminOrigins: ['http://localhost:5173'] })
    const post = (headers: Record<string, string>) =>
      mock.handle({ method: 'POST', url: '/v1/chat/completions', headers, body }).status
    expect(post({ origin: 'https://app.example', 'content-type': 'application/json' })).toBe(200)
    expect(post({ 'content-type': 'text/plain' })).toBe(200)
    expect(post({ origin: 'http://localhost:5173', 'content-type': 'text/plain' })).toBe(200)
    expect(mock.journal.entries).toBe(3)
  })
})

describe('malformed Messages requests get the 400 the Anthropic API gives', () => {
  let server: MockGPTServer
  let anthropic: Anthropic
  beforeAll(async () => {
    server = await startMockGPTServer({ seed: 3 })
    anthropic = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test', maxRetries: 0 })
  })
  afterAll(() => server.close())

  const base = { model: 'claude-sonnet-4-6', max_tokens: 64 }
  const user = (content: unknown) => ({ role: 'user', content })
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['max_tokens 0', { ...base, max_tokens: 0, messages: [user('hi')] }, /max_tokens/],
    [
      'an unknown content block',
      { ...base, messages: [user([{ type: 'hologram', text: 'hi' }])] },
      /hologram/,
    ],
    ['a text block without text', { ...base, messages: [user([{ type: 'text' }])] }, /text: Field required/],
    ['an empty text block', { ...base, messages: [user([{ type: 'text', text: '' }])] }, /non-empty/],
    ['an empty user message', { ...base, messages: [user([])] }, /non-empty content/],
    ['an image without a source', { ...base, messages: [user([{ type: 'image' }])] }, /source/],
    [
      'a tool_result without its tool_use',
      { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }])] },
      /tool_use_id/,
    ],
    [
      'a tool_use without its tool_result',
      {
        ...base,
        messages: [
          user('weather?'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
          user('never mind'),
        ],
      },
      /without `tool_result`/,
    ],
    [
      'a tool_use without input',
      {
        ...base,
        messages: [user('x'), { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'w' }] }],
      },
      /input/,
    ],
    [
      'a system block that is not text',
      { ...base, system: [{ type: 'image', source: { type: 'url', url: 'x' } }], messages: [user('hi')] },
      /system/,
    ],
    [
      'a tool schema that is not an object',
      { ...base, tools: [{ name: 'w', input_schema: { type: 'string' } }], messages: [user('hi')] },
      /input_schema/,
    ],
    [
      'unknown metadata',
      { ...base, metadata: { session: 'x' }, messages: [user('hi')] },
      /metadata\.session/,
    ],
  ]
  for (const [name, body, message] of cases) {
    it(`refuses ${name}`, async () => {
      const failure = await anthropic.messages.create(body as never).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(Anthropic.BadRequestError)
      const error = failure as InstanceType<typeof Anthropic.BadRequestError>
      expect(error.status).toBe(400)
      expect((error.error as { error: { type: string } }).error.type).toBe('invalid_request_error')
      expect(error.message).toMatch(message)
    })
  }

  it('still answers well-formed requests, a final empty assistant turn and a paired tool round', async () => {
    const answer = await anthropic.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
          ],
        },
      ],
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
      metadata: { user_id: 'u-1' },
    })
    expect(answer.type).toBe('message')
    const prefill = await anthropic.messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '' },
      ],
    })
    expect(prefill.type).toBe('message')
  })
})
