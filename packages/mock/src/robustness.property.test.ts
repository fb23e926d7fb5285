/**
 * Robustness: arbitrary requests (random JSON, invalid JSON, wrong types for every field, huge numbers,
 * deep nesting, odd methods, URLs and headers) never make MockGPT throw, reject or answer a bare 500. Every
 * answer is a valid response or an OpenAI-shaped error; the only 500 an unscripted engine may give is the
 * documented `generated_value_invalid` (a generator bug caught before anything invalid was sent).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockGPT, type MockGPT } from './mock-gpt.js'
import type { MockHttpResponse, MockStreamStep } from './mock-http.js'
import { createMockGPTFetchHandler } from './web/create-mock-gpt-fetch-handler.js'

const KEY = 'sk-robust'

const FIELDS = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'stop',
  'seed',
  'input',
  'instructions',
  'text',
  'previous_response_id',
  'max_output_tokens',
  'dimensions',
  'encoding_format',
  'system',
  'stop_sequences',
  'output_config',
  'temperature',
  'top_p',
  '__proto__',
  'constructor',
  'toString',
] as const

/** Objects that break `String(x)` and template literals (`toString`/`valueOf` that are not functions). */
const HOSTILE: unknown[] = [
  { toString: 1 },
  { toString: 1, valueOf: 1 },
  { toJSON: 1, toString: 'x', valueOf: null },
  JSON.parse('{"__proto__":{"a":1}}'),
  { constructor: 'x', hasOwnProperty: 1 },
]

const odd = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(
    1e308,
    -1e308,
    2 ** 53,
    -(2 ** 53),
    2 ** 31,
    -0,
    0,
    -1,
    0.5,
    1e21,
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(5000),
    [],
    {},
    null,
    true,
    ...HOSTILE,
  ),
)

/** Hostile schemas: regex bombs, huge enums, deep nesting, branch explosions, huge smallest values. */
const HOSTILE_SCHEMAS: unknown[] = [
  { type: 'string', pattern: '^((a{1000}){1000}){1000}$' },
  { type: 'string', pattern: '^(a+)+$' },
  { type: 'string', pattern: '^(a|a)*$' },
  { type: 'string', pattern: '^(\\w+\\s?)*$' },
  { type: 'string', pattern: '(x{100}){100}' },
  { type: 'string', pattern: 'a'.repeat(2000) },
  { enum: Array.from({ length: 100_000 }, (_, i) => i) },
  { enum: Array.from({ length: 1000 }, (_, i) => ({ k: i })) },
  { enum: Array.from({ length: 2000 }, () => 'same') },
  (() => {
    let schema: unknown = { type: 'string' }
    for (let i = 0; i < 100; i++) schema = { type: 'array', items: schema }
    return schema
  })(),
  (() => {
    let schema: unknown = { type: 'string' }
    for (let i = 0; i < 40; i++) schema = { type: 'object', required: ['a'], properties: { a: schema } }
    return schema
  })(),
  { anyOf: Array.from({ length: 400 }, (_, i) => ({ const: i })) },
  {
    oneOf: Array.from({ length: 30 }, (_, i) => ({
      type: 'object',
      required: ['x'],
      properties: { x: { const: i } },
    })),
  },
  { type: 'array', minItems: 10_000, items: { type: 'string', minLength: 10_000 } },
  {
    type: 'object',
    required: Array.from({ length: 600 }, (_, i) => `k${i}`),
    properties: Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`k${i}`, { type: 'string', minLength: 2000 }]),
    ),
  },
  {
    $defs: {
      a: { type: 'array', minItems: 50, items: { $ref: '#/$defs/b' } },
      b: { type: 'array', minItems: 50, items: { type: 'string', minLength: 500 } },
    },
    $ref: '#/$defs/a',
  },
]

const schemaLike = fc.oneof(
  odd,
  fc.constantFrom<unknown>(...HOSTILE_SCHEMAS),
  fc.constantFrom<unknown>(
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    { type: 'string', pattern: '(' },
    { type: 'string', pattern: '^(a+)+$' },
    { type: 'integer', minimum: 5, maximum: 1 },
    { type: 'number', multipleOf: 0 },
    { type: 'bogus' },
    { $ref: '#/nowhere' },
    { type: 'array', minItems: 1e9 },
    { type: 'string', minLength: 1e9 },
    { type: 'object', required: ['x'], additionalProperties: false },
    { not: {} },
    false,
    true,
    { anyOf: [] },
    { allOf: [{ type: 'string' }, { type: 'number' }] },
    { type: 'string', format: 'no-such-format' },
    { enum: [] },
  ),
)

const messages = fc.oneof(
  odd,
  fc.array(
    fc.oneof(
      odd,
      fc.record(
        {
          role: fc.oneof(
            fc.constantFrom('user', 'assistant', 'system', 'tool', 'developer', 'function'),
            odd,
          ),
          content: fc.oneof(
            fc.string(),
            odd,
            fc.array(
              fc.record({ type: fc.oneof(fc.constant('text'), odd), text: odd }, { requiredKeys: [] }),
            ),
          ),
          tool_calls: fc.array(
            fc.record({ id: odd, type: odd, function: fc.record({ name: odd, arguments: odd }) }),
          ),
          tool_call_id: odd,
          name: odd,
          type: fc.oneof(
            fc.constantFrom('message', 'function_call', 'function_call_output', 'reasoning'),
            odd,
          ),
          arguments: odd,
          output: odd,
          call_id: odd,
        },
        { requiredKeys: [] },
      ),
    ),
    { maxLength: 4 },
  ),
)

const tools = fc.oneof(
  odd,
  fc.array(
    fc.oneof(
      odd,
      fc.record(
        {
          type: fc.oneof(fc.constant('function'), odd),
          name: fc.oneof(fc.constantFrom('f', 'g', 'bad name'), odd),
          parameters: schemaLike,
          function: fc.record(
            { name: fc.oneof(fc.constantFrom('f', 'g', 'bad name'), odd), parameters: schemaLike },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    { maxLength: 3 },
  ),
)

const format = fc.oneof(
  odd,
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('text', 'json_object', 'json_schema'), odd),
      name: fc.oneof(fc.constant('out'), odd),
      schema: schemaLike,
      json_schema: fc.oneof(
        odd,
        fc.record(
          { name: fc.oneof(fc.constant('out'), odd), schema: schemaLike, strict: odd },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
)

const fieldValue: Record<(typeof FIELDS)[number], fc.Arbitrary<unknown>> = {
  model: fc.oneof(fc.constantFrom('gpt-4o-mini', 'text-embedding-3-large'), odd),
  messages,
  stream: fc.oneof(fc.boolean(), odd),
  stream_options: fc.oneof(fc.record({ include_usage: fc.oneof(fc.boolean(), odd) }), odd),
  tools,
  tool_choice: fc.oneof(
    fc.constantFrom('auto', 'none', 'required', { type: 'function', name: 'f' }),
    fc.constant({ type: 'function', function: { name: 'f' } }),
    odd,
  ),
  parallel_tool_calls: odd,
  response_format: format,
  max_tokens: odd,
  max_completion_tokens: odd,
  n: odd,
  stop: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), odd),
  seed: odd,
  input: fc.oneof(
    fc.string(),
    fc.array(fc.array(fc.nat(), { maxLength: 3 }), { maxLength: 2 }),
    messages,
    odd,
  ),
  instructions: odd,
  text: fc.oneof(fc.record({ format }, { requiredKeys: [] }), odd),
  previous_response_id: odd,
  max_output_tokens: odd,
  dimensions: fc.oneof(fc.integer({ min: -2, max: 4000 }), odd),
  encoding_format: fc.oneof(fc.constantFrom('float', 'base64'), odd),
  system: fc.oneof(fc.string(), odd),
  stop_sequences: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), odd),
  output_config: fc.oneof(
    fc.record({ format: fc.oneof(fc.record({ type: fc.constant('json_schema'), schema: schemaLike }), odd) }),
    odd,
  ),
  temperature: fc.oneof(fc.double(), odd),
  top_p: fc.oneof(fc.double(), odd),
  __proto__: odd,
  constructor: odd,
  toString: odd,
}

const BASES: readonly Record<string, unknown>[] = [
  { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  { model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
  { model: 'gpt-4o-mini', input: 'hi' },
  { model: 'text-embedding-3-small', input: 'hi' },
]

/** A valid body with some fields replaced by arbitrary (often wrongly typed) values, as JSON text. */
const mutatedBody = fc
  .tuple(
    fc.constantFrom(...BASES),
    fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 5 }),
  )
  .chain(([base, keys]) =>
    fc.tuple(...keys.map((k) => fieldValue[k])).map((values) => {
      // Built by JSON so that "__proto__" becomes an own key, as JSON.parse makes it.
      // A repeated key (the base's "model", say) is allowed: the last one wins, as in JSON.parse.
      const parts: [string, unknown][] = [
        ...Object.entries(base),
        ...keys.map((k, i): [string, unknown] => [k, values[i]]),
      ]
      return `{${parts.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`
    }),
  )

const VALID_TOOL = {
  type: 'object',
  required: ['q'],
  properties: { q: { type: 'string', minLength: 1 }, n: { type: 'integer', minimum: 1, maximum: 9 } },
}

/** Valid chat and Responses bodies with valid optional fields, so the property reaches real answers too. */
const validBody = fc
  .record(
    {
      responses: fc.boolean(),
      stream: fc.boolean(),
      usage: fc.boolean(),
      tools: fc.boolean(),
      toolChoice: fc.constantFrom('auto', 'none', 'required'),
      format: fc.constantFrom('text', 'json_object', 'json_schema'),
      maxTokens: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
      seed: fc.option(fc.integer(), { nil: undefined }),
      content: fc.string({ maxLength: 60 }),
    },
    { requiredKeys: ['responses', 'stream', 'content'] },
  )
  .map((v) => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
    }
    const body: Record<string, unknown> = { model: 'gpt-4o-mini', stream: v.stream }
    if (v.responses) {
      body.input = v.content
      if (v.tools) body.tools = [{ type: 'function', name: 'look', parameters: VALID_TOOL }]
      if (v.format && v.format !== 'text')
        body.text = {
          format: v.format === 'json_schema' ? { type: v.format, name: 'o', schema } : { type: v.format },
        }
      if (v.maxTokens) body.max_output_tokens = v.maxTokens
    } else {
      body.messages = [{ role: 'user', content: v.content }]
      if (v.stream && v.usage) body.stream_options = { include_usage: true }
      if (v.tools) body.tools = [{ type: 'function', function: { name: 'look', parameters: VALID_TOOL } }]
      if (v.format)
        body.response_format =
          v.format === 'json_schema'
            ? { type: v.format, json_schema: { name: 'o', schema } }
            : { type: v.format }
      if (v.maxTokens) body.max_tokens = v.maxTokens
      if (v.seed !== undefined) body.seed = v.seed
    }
    if (v.tools && v.toolChoice) body.tool_choice = v.toolChoice
    return JSON.stringify(body)
  })

const RAW_BODIES = [
  '{',
  '[',
  'null',
  '""',
  '123',
  '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"max_tokens":1e999}',
  '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"seed":-1e999}',
  '{"model":"text-embedding-3-small","input":"x","dimensions":1e999}',
  `{"model":"gpt-4o-mini","messages":[{"role":"user","content":${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`,
  `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${'{"items":'.repeat(20_000)}{}${'}'.repeat(20_000)}}}]}`,
  `{"model":"gpt-4o-mini","input":"x","text":{"format":{"type":"json_schema","name":"o","schema":${'{"type":"array","items":'.repeat(5000)}{}${'}'.repeat(5000)}}}}`,
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  '\ufeff{"model":"gpt-4o-mini","input":"x"}',
]

const bodyText = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
  { weight: 6, arbitrary: mutatedBody },
  { weight: 3, arbitrary: validBody },
)

const PATHS = [
  '/v1/chat/completions',
  '/v1/messages',
  '/test/a/v1/chat/completions',
  '/test/%FF/v1/models',
  '/test//v1/models',
  '/test/b/_mock/requests?offset=x',
  '/_mock/requests?limit=0',
  '/v1/responses',
  '/v1/embeddings',
  '/v1/models',
  '/v1/models/gpt-4o-mini',
  '/v1/models/%E0%A4%A',
  '/v1/models/%',
  '/v1/models/',
  '/_mock/requests',
  '/_mock/usage',
  '/_mock/script',
  '/v1/chat/completions/?x=1#y',
  '/V1/MODELS',
  '/constructor',
  '/__proto__',
  '/v1/toString',
]

const RAW_URLS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', '', '*', 'http://h', 'x://', '?']

const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'post', 'get')

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'Bearer sk-robust',
    'bearer   sk-robust',
    'Bearer ',
    'Bearer',
    'sk-robust',
    'Basic abc',
    '',
  ),
)

/** Header values a `fetch` `Headers` accepts (no control characters, no surrounding whitespace). */
const fetchHeaderValue = headerValue.map((v) => v.replace(/[^\x21-\x7e ]/g, '').trim())

const headers = (value: fc.Arbitrary<string>) =>
  fc.record(
    {
      authorization: value,
      origin: value,
      'content-type': fc.oneof(fc.constantFrom('application/json', 'text/plain'), value),
      'access-control-request-headers': value,
      'x-test-id': value,
      'x-api-key': value,
      'x-odd': value,
    },
    { requiredKeys: [] },
  )

const anyRequest = fc.record({
  method: fc.oneof(method, fc.string({ maxLength: 8 })),
  url: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...PATHS) },
    fc.constantFrom(...RAW_URLS),
    fc.string(),
  ),
  headers: headers(headerValue),
  body: bodyText,
})

/** A POST to a model route with the right key: only the body is arbitrary. */
const modelRequest = fc.record({
  method: fc.constant('POST'),
  url: fc.constantFrom('/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/v1/messages'),
  headers: fc.constant({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }),
  body: bodyText,
})

const engineRequest = fc.oneof(anyRequest, modelRequest)

// biome-ignore lint/suspicious/noExplicitAny: test-side access to JSON bodies
type Json = Record<string, any>

/**
 * Asserts `text` is an OpenAI error body (or, on the Anthropic route, an Anthropic one); a 500 is allowed
 * only as the documented generator check.
 */
function expectOpenAIError(status: number, text: string): void {
  const body = JSON.parse(text) as Json
  if (body.type === 'error') {
    expect(Object.keys(body)).toEqual(['type', 'error', 'request_id'])
    expect(typeof body.error.type).toBe('string')
    expect(typeof body.error.message).toBe('string')
    expect(status).toBeLessThan(500)
    return
  }
  expect(Object.keys(body)).toEqual(['error'])
  const error = body.error as Json
  expect(typeof error.message).toBe('string')
  expect(error.message.length).toBeGreaterThan(0)
  expect(typeof error.type).toBe('string')
  expect(error.param === null || typeof error.param === 'string').toBe(true)
  expect(error.code === null || typeof error.code === 'string').toBe(true)
  if (status >= 500)
    expect({ status, code: error.code }).toEqual({ status: 500, code: 'generated_value_invalid' })
}

/** Reads every step of a stream body synchronously or not, bounded; returns the text. */
async function drain(steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep>): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  let count = 0
  for await (const step of steps as AsyncIterable<MockStreamStep>) {
    expect(step.type).toBe('data')
    if (step.type === 'data')
      text += typeof step.chunk === 'string' ? step.chunk : decoder.decode(step.chunk, { stream: true })
    expect(++count).toBeLessThan(100_000)
  }
  return text
}

function expectSse(text: string): void {
  const data = text
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => line.slice('data: '.length))
  expect(data.length).toBeGreaterThan(0)
  const last = data.at(-1)
  if (last !== '[DONE]') {
    // The Responses and Anthropic streams end with their terminal event, not [DONE].
    expect(JSON.parse(last as string).type).toMatch(
      /^(response\.(completed|incomplete|failed)|message_stop)$/,
    )
  }
  for (const d of data) if (d !== '[DONE]') expect(typeof JSON.parse(d)).toBe('object')
}

/** What the property runs answered, to prove they reach real answers and not only early 400s. */
const seen = { statuses: new Set<number>(), streams: 0 }

async function checkResponse(response: MockHttpResponse): Promise<void> {
  seen.statuses.add(response.status)
  if (response.body.type === 'stream') seen.streams++
  expect(Number.isInteger(response.status)).toBe(true)
  expect(response.status).toBeGreaterThanOrEqual(200)
  expect(response.status).toBeLessThan(600)
  for (const value of Object.values(response.headers)) expect(typeof value).toBe('string')
  expect(response.firstByteDelayMs).toBe(0)
  const body = response.body
  expect(body.type).not.toBe('hang')
  if (body.type === 'text') {
    if (response.status >= 400) expectOpenAIError(response.status, body.text)
    else expect(() => JSON.parse(body.text)).not.toThrow()
  } else if (body.type === 'stream') {
    expect(response.status).toBe(200)
    expectSse(await drain(body.steps))
  } else {
    expect(response.status).toBe(204)
  }
}

describe('MockGPT robustness (property)', () => {
  const engines: MockGPT[] = [createMockGPT({ seed: 3 }), createMockGPT({ seed: 4, apiKey: KEY })]

  it('answers any request through the engine with a valid response or an OpenAI-shaped error', async () => {
    await fc.assert(
      fc.asyncProperty(engineRequest, fc.boolean(), async (request, keyed) => {
        const mock = engines[keyed ? 1 : 0] as MockGPT
        let response: MockHttpResponse | undefined
        expect(() => {
          response = mock.handle(request)
        }).not.toThrow()
        await checkResponse(response as MockHttpResponse)
        if (mock.requests.length > 200) mock.reset()
      }),
      { numRuns: 600 },
    )
    expect([...seen.statuses]).toEqual(expect.arrayContaining([200, 400, 404, 405]))
    expect(seen.streams).toBeGreaterThan(0)
  })

  it('survives a malformed request object (missing headers, non-string fields)', async () => {
    const mock = createMockGPT({ apiKey: KEY })
    const odd = [
      { method: 'GET', url: '/v1/models' },
      { method: 'POST', url: '/v1/chat/completions', headers: null, body: '{}' },
      { method: undefined, url: undefined, headers: undefined },
      { method: 'GET', url: '/v1/models', headers: { authorization: 42, origin: ['x'] } },
      { method: 'POST', url: '/v1/embeddings', headers: { authorization: `Bearer ${KEY}` }, body: 17 },
    ]
    for (const request of odd) {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately violating the request type
      const response = mock.handle(request as any)
      await checkResponse(response)
    }
  })

  it('answers any request through the fetch handler, never rejecting', async () => {
    const handler = createMockGPTFetchHandler({ seed: 5, apiKey: KEY })
    const request = fc.record({
      method,
      path: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PATHS) }, fc.webPath()),
      headers: headers(fetchHeaderValue),
      body: bodyText,
    })
    try {
      await fc.assert(
        fc.asyncProperty(request, async ({ method, path, headers, body }) => {
          const hasBody = method.toUpperCase() !== 'GET' && method.toUpperCase() !== 'HEAD'
          const response = await handler(
            new Request(`http://mockgpt.local${path.startsWith('/') ? path : `/${path}`}`, {
              method,
              headers,
              ...(hasBody && body !== undefined ? { body } : {}),
            }),
          )
          expect(response.status).toBeGreaterThanOrEqual(200)
          expect(response.status).toBeLessThan(600)
          const text = await response.text()
          if (method.toUpperCase() === 'HEAD' || response.status === 204) return
          if (response.status >= 400) expectOpenAIError(response.status, text)
          else if (response.headers.get('content-type')?.startsWith('text/event-stream')) expectSse(text)
          else expect(() => JSON.parse(text)).not.toThrow()
          if (handler.mock.requests.length > 200) handler.mock.reset()
        }),
        { numRuns: 250 },
      )
    } finally {
      handler.close()
    }
  })
})
