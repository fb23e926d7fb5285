/**
 * Garbage in, typed errors out: every public entry of the Anthropic adapter (property), then the specific
 * refusals a user meets, each naming the field and what to do. Requests that pass the checks are answered
 * in process by MockGPT's fetch handler, so nothing leaves the test.
 */
import { AgentCoreError, AttemptBudget, InvalidInputError, type ModelRequest } from '@agent-core/core'
import { ModelCalls } from '@agent-core/kits/models'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'
import Anthropic from '@anthropic-ai/sdk'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import { anthropicChatBinding, createAnthropicChatModel, fromAnthropicError } from './index.js'

const handler = createMockGPTFetchHandler({ seed: 2 })
const inProcess = {
  apiKey: 'sk-test',
  baseURL: 'http://mockgpt.local',
  clientOptions: { fetch: handler.fetch, logLevel: 'off' as const },
}
const model = createAnthropicChatModel({ model: 'claude-sonnet-4-6', ...inProcess })

/** A thenable that settles at once, so no call under test can hang on it. */
const settling = { then: (resolve: (value: unknown) => void) => resolve('{}') }

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [settling, () => settling, new AbortController().signal, { role: 'user' }, { type: 'image' }],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

async function typedOrSuccess(run: () => unknown): Promise<void> {
  try {
    const result = await run()
    if (typeof (result as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function') {
      for await (const _ of result as AsyncIterable<unknown>) {
        // drained
      }
    }
  } catch (error) {
    if (error instanceof AppError) return
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

const message = fc.oneof(
  maybe({ role: 'user', content: 'hi' }),
  maybe({ role: 'system', content: 'be brief' }),
  fc.record(
    {
      role: maybe('assistant'),
      content: maybe(''),
      toolCalls: maybe([{ id: 'c1', name: 'f', arguments: '{}' }]),
      thinkingBlocks: maybe([{ text: 't', signature: 's' }]),
    },
    { requiredKeys: [] },
  ),
  fc.record({ role: maybe('tool'), toolCallId: maybe('c1'), content: maybe('ok') }, { requiredKeys: [] }),
  fc.record(
    {
      role: maybe('user'),
      content: maybe([
        { type: 'text', text: 'a' },
        { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
      ]),
    },
    { requiredKeys: [] },
  ),
)

const request = fc.record(
  {
    model: maybe('claude-sonnet-4-6'),
    messages: fc.oneof(garbage, fc.array(message, { maxLength: 3 })),
    tools: maybe([{ name: 'f', description: 'F', parameters: { type: 'object' } }]),
    toolChoice: maybe({ name: 'f' }),
    responseFormat: maybe({ type: 'json_schema', name: 'n', schema: { type: 'object' } }),
    temperature: maybe(0.5),
    maxOutputTokens: maybe(5),
    seed: maybe(1),
    stop: maybe(['x']),
    parallelToolCalls: maybe(true),
  },
  { requiredKeys: ['messages'] },
)

describe('anthropic adapter: garbage input (property)', () => {
  it('generate, stream and assertRequest reject garbage requests and contexts only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(garbage, request),
        fc.oneof(
          garbage,
          fc.record({ signal: garbage, diagnostics: garbage, now: garbage }, { requiredKeys: [] }),
        ),
        async (input, context) => {
          await typedOrSuccess(() => model.generate(input as Loose, context as Loose))
          await typedOrSuccess(() => model.stream(input as Loose, context as Loose))
          await typedOrSuccess(() => model.assertRequest(input))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('createAnthropicChatModel, anthropicChatBinding and fromAnthropicError reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record(
          {
            id: maybe('chat'),
            model: maybe('claude-sonnet-4-6'),
            apiKey: maybe('sk-test'),
            baseURL: maybe('http://mockgpt.local'),
            clientOptions: garbage,
            client: garbage,
            chatModel: garbage,
            provider: maybe('bedrock-proxy'),
            body: maybe({ top_k: 5 }),
            maxTokens: maybe(2048),
            thinking: maybe({ budgetTokens: 1024 }),
            promptCache: maybe({ ttl: '1h' }),
            stream: maybe(true),
          },
          { requiredKeys: [] },
        ),
        garbage,
        async (whole, options, error) => {
          await typedOrSuccess(() => createAnthropicChatModel(whole as Loose))
          await typedOrSuccess(() => createAnthropicChatModel(options as Loose))
          await typedOrSuccess(() => anthropicChatBinding(whole as Loose))
          await typedOrSuccess(() => anthropicChatBinding(options as Loose))
          await typedOrSuccess(() => fromAnthropicError(error, whole as Loose))
          expect(AgentCoreError.isInstance(fromAnthropicError(error))).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })
})

function refusal(run: () => unknown): InvalidInputError {
  try {
    run()
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected an InvalidInputError')
}

const user: ModelRequest['messages'] = [{ role: 'user', content: 'hi' }]

describe('anthropic adapter: refusals name the field and what to do', () => {
  it('options, unknown ones included', () => {
    const field = (options: unknown) =>
      refusal(() => createAnthropicChatModel(options as Loose)).details.field
    expect(field({ model: '' })).toBe('options.model')
    expect(field({ model: 'm', apiKey: 'x', temperature: 1 })).toBe('options.temperature')
    expect(
      refusal(() => createAnthropicChatModel({ model: 'm', apiKey: 'x', maxToken: 5 } as Loose)).message,
    ).toMatch(
      /options\.maxToken is not a known field \(known: .*maxTokens.*\); remove it or fix its spelling/,
    )
    expect(field({ model: 'm', baseURL: 'not a url' })).toBe('options.baseURL')
    expect(field({ model: 'm', apiKey: 'x', maxTokens: 0 })).toBe('options.maxTokens')
    expect(field({ model: 'm', apiKey: 'x', thinking: { budgetTokens: 100 } })).toBe(
      'options.thinking.budgetTokens',
    )
    expect(field({ model: 'm', apiKey: 'x', thinking: { budget: 2048 } })).toBe(
      'options.thinking.budgetTokens',
    )
    expect(field({ model: 'm', apiKey: 'x', thinking: { budgetTokens: 4096 }, maxTokens: 4096 })).toBe(
      'options.thinking.budgetTokens',
    )
    expect(field({ model: 'm', apiKey: 'x', promptCache: 'on' })).toBe('options.promptCache')
    expect(field({ model: 'm', apiKey: 'x', promptCache: { ttl: '1d' } })).toBe('options.promptCache.ttl')
    expect(field({ model: 'm', apiKey: 'x', promptCache: { breakpoints: ['system'] } })).toBe(
      'options.promptCache.breakpoints',
    )
    const client = new Anthropic({ apiKey: 'x' })
    expect(refusal(() => createAnthropicChatModel({ model: 'm', client, apiKey: 'x' })).message).toMatch(
      /either a ready client or options\.apiKey/,
    )
    expect(field({ model: 'm', client: {} })).toBe('options.client')
    const retries = refusal(() =>
      createAnthropicChatModel({ model: 'm', apiKey: 'x', clientOptions: { maxRetries: 2 } as never }),
    )
    expect(retries.details.field).toBe('options.clientOptions.maxRetries')
    expect(retries.message).toMatch(/withRetry/)
    expect(field({ model: 'm', apiKey: 'x', body: { thinking: { type: 'enabled' } } })).toBe(
      'options.body.thinking',
    )
    expect(field({ model: 'm', apiKey: 'x', body: { metadata: { big: 1n } } })).toBe('options.body.metadata')
    const chat = createAnthropicChatModel({ model: 'm', apiKey: 'x' })
    expect(
      refusal(() => anthropicChatBinding({ id: 'a', chatModel: chat, model: 'other' } as never)).message,
    ).toMatch(/either chatModel or the options/)
    expect(
      refusal(() => anthropicChatBinding({ id: 'a', chatModel: chat, stream: 'yes' } as never)).details.field,
    ).toBe('options.stream')
  })

  it('a client without an API key says how to give one', () => {
    const saved = process.env.ANTHROPIC_API_KEY
    const token = process.env.ANTHROPIC_AUTH_TOKEN
    delete process.env.ANTHROPIC_API_KEY
    delete process.env.ANTHROPIC_AUTH_TOKEN
    try {
      const quiet = createAnthropicChatModel({ model: 'm', baseURL: 'http://127.0.0.1:1' })
      // The SDK builds a client without a key and refuses at the first request: a typed error then.
      return expect(quiet.generate({ messages: user })).rejects.toSatisfy((error: unknown) =>
        AgentCoreError.isInstance(error),
      )
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
      if (token !== undefined) process.env.ANTHROPIC_AUTH_TOKEN = token
    }
  })

  it('requests, before anything is sent', () => {
    const field = (request: unknown) => refusal(() => model.assertRequest(request)).details.field
    expect(field({ messages: [] })).toBe('request.messages')
    expect(field({ messages: [{ role: 'system', content: 'only rules' }] })).toBe('request.messages')
    expect(field({ messages: [{ role: 'robot', content: 'x' }] })).toBe('request.messages[0].role')
    expect(field({ messages: [{ role: 'user', content: [{ type: 'audio' }] }] })).toBe(
      'request.messages[0].content[0].type',
    )
    expect(
      field({ messages: [{ role: 'user', content: [{ type: 'image', url: 'data:text/plain,hi' }] }] }),
    ).toBe('request.messages[0].content[0].url')
    expect(field({ messages: [{ role: 'tool', content: 'x' }] })).toBe('request.messages[0].toolCallId')
    expect(
      field({
        messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: '[1]' }] }],
      }),
    ).toBe('request.messages[0].toolCalls[0].arguments')
    expect(
      field({
        messages: [{ role: 'assistant', content: 'x', thinkingBlocks: [{ text: 1, signature: 's' }] }],
      }),
    ).toBe('request.messages[0].thinkingBlocks[0].text')
    expect(field({ messages: user, tools: [{ name: 'has space', description: '', parameters: {} }] })).toBe(
      'request.tools[0].name',
    )
    expect(
      field({ messages: user, tools: [{ name: 'f', description: '', parameters: { type: 'array' } }] }),
    ).toBe('request.tools[0].parameters.type')
    expect(field({ messages: user, toolChoice: { name: 'f' } })).toBe('request.toolChoice.name')
    expect(field({ messages: user, toolChoice: 'required' })).toBe('request.toolChoice')
    const json = refusal(() =>
      model.assertRequest({
        messages: user,
        responseFormat: { type: 'json_object' },
        tools: [{ name: 'f', description: '', parameters: {} }],
      }),
    )
    expect(json.details.field).toBe('request.responseFormat.type')
    expect(json.message).toMatch(/cannot go with tools.*json_schema/)
    expect(field({ messages: user, temperature: Number.NaN })).toBe('request.temperature')
    expect(field({ messages: user, maxOutputTokens: 0 })).toBe('request.maxOutputTokens')
    expect(field({ messages: user, seed: 1.5 })).toBe('request.seed')
    expect(field({ messages: user, stop: ['a', 1] })).toBe('request.stop[1]')
    expect(field({ messages: user, parallelToolCalls: 'yes' })).toBe('request.parallelToolCalls')
    const thinker = createAnthropicChatModel({ model: 'm', ...inProcess, thinking: { budgetTokens: 2048 } })
    expect(
      refusal(() => thinker.assertRequest({ messages: user, maxOutputTokens: 1024 })).details.field,
    ).toBe('request.maxOutputTokens')
  })

  it('breakpoints placed by hand: at most four, each naming something the request has', () => {
    const placing = (points: unknown) =>
      createAnthropicChatModel({
        model: 'm',
        ...inProcess,
        promptCache: { breakpoints: () => points as never },
      })
    const field = (points: unknown, request: ModelRequest = { messages: user }) =>
      refusal(() => placing(points).assertRequest(request)).details.field
    expect(field('system')).toBe('promptCache.breakpoints(request)')
    expect(field(['tools'])).toBe('promptCache.breakpoints(request)[0]')
    expect(field(['system'])).toBe('promptCache.breakpoints(request)[0]')
    expect(field([{ message: 3 }])).toBe('promptCache.breakpoints(request)[0].message')
    expect(field(['everything'])).toBe('promptCache.breakpoints(request)[0]')
    expect(
      refusal(() =>
        placing([0, 1, 2, 3, 4].map((message) => ({ message }))).assertRequest({ messages: user }),
      ).message,
    ).toMatch(/at most 4/)
  })

  it('a ModelCalls binding refuses a malformed request before taking an attempt', async () => {
    handler.mock.reset()
    const models = new ModelCalls([anthropicChatBinding({ id: 'chat', chatModel: model })])
    const budget = new AttemptBudget(1)
    await expect(
      models.invoke({ modelId: 'chat', input: { messages: [] }, timeoutMs: 1000 }, { attemptBudget: budget }),
    ).rejects.toSatisfy((error: unknown) => InvalidInputError.isInstance(error))
    expect(budget.used).toBe(0)
    expect(handler.mock.requests.length).toBe(0)
  })

  it('stream checks the request when called, before iteration, and keeps a snapshot of it', async () => {
    handler.mock.reset()
    expect(() => model.stream({ messages: [] })).toThrow(InvalidInputError)
    const messages = [{ role: 'user' as const, content: 'first words' }]
    const parameters = { type: 'object', properties: { q: { type: 'string' } } }
    const stream = model.stream({ messages, tools: [{ name: 'search', description: 'Search', parameters }] })
    messages[0] = { role: 'user', content: 'changed later' }
    parameters.properties.q.type = 'number'
    for await (const _ of stream) {
      // read to the end
    }
    const body = handler.mock.requests.at(-1)?.body as { messages: unknown; tools: unknown }
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'first words', cache_control: { type: 'ephemeral' } }],
      },
    ])
    expect(body.tools).toEqual([
      {
        name: 'search',
        description: 'Search',
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
        cache_control: { type: 'ephemeral' },
      },
    ])
  })
})
