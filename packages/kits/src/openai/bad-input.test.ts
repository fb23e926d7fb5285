/**
 * Garbage in, typed errors out: every public entry of the OpenAI adapter (property), then the specific
 * refusals a user meets, each naming the field and what to do. Requests that pass the checks are answered
 * in process by MockGPT's fetch handler, so nothing leaves the test.
 */
import { AgentCoreError, AttemptBudget, InvalidInputError, type ModelRequest } from '@agent-core/core'
import { ModelCalls } from '@agent-core/kits/models'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'
import fc from 'fast-check'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import { createOpenAIChatModel, fromOpenAIError, openAIChatBinding } from './index.js'

const handler = createMockGPTFetchHandler({ seed: 2 })
const inProcess = {
  apiKey: 'sk-test',
  baseURL: 'http://mockgpt.local/v1',
  clientOptions: { fetch: handler.fetch },
}
const model = createOpenAIChatModel({ model: 'gpt-4o-mini', ...inProcess })

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
    // A stream must be read to fail.
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
  fc.record(
    {
      role: maybe('assistant'),
      content: maybe(''),
      toolCalls: maybe([{ id: 'c1', name: 'f', arguments: '{}' }]),
    },
    { requiredKeys: [] },
  ),
  fc.record({ role: maybe('tool'), toolCallId: maybe('c1'), content: maybe('ok') }, { requiredKeys: [] }),
  fc.record(
    {
      role: maybe('user'),
      content: maybe([
        { type: 'text', text: 'a' },
        { type: 'image', url: 'data:,' },
      ]),
    },
    { requiredKeys: [] },
  ),
)

const request = fc.record(
  {
    model: maybe('gpt-4o-mini'),
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

describe('openai adapter: garbage input (property)', () => {
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

  it('createOpenAIChatModel, openAIChatBinding and fromOpenAIError reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record(
          {
            id: maybe('chat'),
            model: maybe('gpt-4o-mini'),
            apiKey: maybe('sk-test'),
            baseURL: maybe('http://mockgpt.local/v1'),
            clientOptions: garbage,
            client: garbage,
            chatModel: garbage,
            provider: maybe('vllm'),
            body: maybe({ top_p: 1 }),
            streamUsage: maybe(false),
            maxTokensParameter: maybe('max_tokens'),
            stream: maybe(true),
          },
          { requiredKeys: [] },
        ),
        garbage,
        async (whole, options, error) => {
          await typedOrSuccess(() => createOpenAIChatModel(whole as Loose))
          await typedOrSuccess(() => createOpenAIChatModel(options as Loose))
          await typedOrSuccess(() => openAIChatBinding(whole as Loose))
          await typedOrSuccess(() => openAIChatBinding(options as Loose))
          await typedOrSuccess(() => fromOpenAIError(error, whole as Loose))
          // Whatever was thrown, the mapping answers with a typed error (never throws it).
          expect(AgentCoreError.isInstance(fromOpenAIError(error))).toBe(true)
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

describe('openai adapter: refusals name the field and what to do', () => {
  it('options', () => {
    expect(refusal(() => createOpenAIChatModel({ model: '' })).details).toMatchObject({ field: 'model' })
    expect(refusal(() => createOpenAIChatModel({ model: 'm', baseURL: 'not a url' })).details.field).toBe(
      'baseURL',
    )
    const client = new OpenAI({ apiKey: 'x' })
    expect(refusal(() => createOpenAIChatModel({ model: 'm', client, apiKey: 'x' })).message).toMatch(
      /either a ready client or apiKey/,
    )
    expect(refusal(() => createOpenAIChatModel({ model: 'm', client: {} as OpenAI })).details.field).toBe(
      'client',
    )
    const retries = refusal(() =>
      createOpenAIChatModel({ model: 'm', apiKey: 'x', clientOptions: { maxRetries: 2 } as never }),
    )
    expect(retries.details.field).toBe('clientOptions.maxRetries')
    expect(retries.message).toMatch(/withRetry/)
    const reserved = refusal(() =>
      createOpenAIChatModel({ model: 'm', apiKey: 'x', body: { temperature: 1 } }),
    )
    expect(reserved.details.field).toBe('body.temperature')
    expect(
      refusal(() => createOpenAIChatModel({ model: 'm', apiKey: 'x', maxTokensParameter: 'tokens' as never }))
        .details.field,
    ).toBe('maxTokensParameter')
    const chat = createOpenAIChatModel({ model: 'm', apiKey: 'x' })
    expect(
      refusal(() => openAIChatBinding({ id: 'a', chatModel: chat, model: 'other' } as never)).message,
    ).toMatch(/either chatModel or the options/)
  })

  it('unknown options are refused, a misspelt one with the option it meant', () => {
    const misspelt = (() => {
      try {
        createOpenAIChatModel({
          model: 'gpt-4o-mini',
          apiKey: 'x',
          baseUrl: 'http://127.0.0.1:1/v1',
        } as never)
      } catch (error) {
        return error
      }
    })()
    expect(InvalidInputError.isInstance(misspelt)).toBe(true)
    expect((misspelt as Error).message).toMatch(
      /^baseUrl is not an option of the OpenAI chat model; did you mean baseURL\?/,
    )
    expect((misspelt as InvalidInputError).details).toMatchObject({
      field: 'baseUrl',
      received: 'the string "http://127.0.0.1:1/v1"',
    })
    expect(() =>
      createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'x', temperature: 0 } as never),
    ).toThrow(/temperature is not an option of the OpenAI chat model\. Known options: model, client/)
  })

  it('a client without an API key says how to give one', () => {
    const saved = process.env.OPENAI_API_KEY
    delete process.env.OPENAI_API_KEY
    try {
      const error = refusal(() => createOpenAIChatModel({ model: 'm', baseURL: 'http://127.0.0.1:1/v1' }))
      expect(error.message).toMatch(/Pass apiKey .*set OPENAI_API_KEY, or pass a ready client/)
      expect(error.cause).toBeInstanceOf(Error)
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved
    }
  })

  it('requests, before anything is sent', () => {
    const field = (request: unknown) => refusal(() => model.assertRequest(request)).details.field
    expect(field({ messages: [] })).toBe('request.messages')
    expect(field({ messages: [{ role: 'robot', content: 'x' }] })).toBe('request.messages[0].role')
    expect(field({ messages: [{ role: 'user', content: [{ type: 'audio' }] }] })).toBe(
      'request.messages[0].content[0].type',
    )
    expect(field({ messages: [{ role: 'tool', content: 'x' }] })).toBe('request.messages[0].toolCallId')
    expect(
      field({
        messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: '', arguments: '{}' }] }],
      }),
    ).toBe('request.messages[0].toolCalls[0].name')
    expect(field({ messages: user, tools: [{ name: 'has space', description: '', parameters: {} }] })).toBe(
      'request.tools[0].name',
    )
    expect(field({ messages: user, tools: [{ name: 'f', description: '', parameters: 'x' }] })).toBe(
      'request.tools[0].parameters',
    )
    expect(field({ messages: user, toolChoice: { name: 'f' } })).toBe('request.toolChoice.name')
    expect(field({ messages: user, toolChoice: 'required' })).toBe('request.toolChoice')
    expect(field({ messages: user, responseFormat: { type: 'json_schema', name: 'n', schema: true } })).toBe(
      'request.responseFormat.schema',
    )
    expect(field({ messages: user, temperature: Number.NaN })).toBe('request.temperature')
    expect(field({ messages: user, maxOutputTokens: 0 })).toBe('request.maxOutputTokens')
    expect(field({ messages: user, seed: 1.5 })).toBe('request.seed')
    expect(field({ messages: user, stop: ['a', 1] })).toBe('request.stop[1]')
    expect(field({ messages: user, parallelToolCalls: 'yes' })).toBe('request.parallelToolCalls')
    const twice = refusal(() =>
      model.assertRequest({
        messages: user,
        tools: [
          { name: 'f', description: '', parameters: {} },
          { name: 'f', description: '', parameters: {} },
        ],
      }),
    )
    expect(twice.message).toMatch(/offers "f" twice/)
  })

  it('a ModelCalls binding refuses a malformed request before taking an attempt', async () => {
    handler.mock.reset()
    const models = new ModelCalls([openAIChatBinding({ id: 'chat', chatModel: model })])
    const budget = new AttemptBudget(1)
    await expect(
      models.invoke({ modelId: 'chat', input: { messages: [] }, timeoutMs: 1000 }, { attemptBudget: budget }),
    ).rejects.toSatisfy((error: unknown) => InvalidInputError.isInstance(error))
    expect(budget.used).toBe(0)
    expect(handler.mock.requests.length).toBe(0)
  })

  it('stream checks the request when called, before iteration, and keeps a snapshot of it', async () => {
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
    expect(body.messages).toEqual([{ role: 'user', content: 'first words' }])
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Search',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
      },
    ])
  })

  it('schemas and body extras must be JSON: a cycle or a BigInt is refused with its field', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.self = cyclic
    const tools = [{ name: 'f', description: '', parameters: cyclic }]
    const error = refusal(() => model.assertRequest({ messages: user, tools }))
    expect(error.details.field).toBe('request.tools[0].parameters')
    expect(error.message).toMatch(/must be plain JSON/)
    const format = { type: 'json_schema', name: 'n', schema: { maximum: 10n } }
    expect(refusal(() => model.assertRequest({ messages: user, responseFormat: format })).details.field).toBe(
      'request.responseFormat.schema',
    )
    expect(
      refusal(() => createOpenAIChatModel({ model: 'm', apiKey: 'x', body: { metadata: { big: 1n } } }))
        .details.field,
    ).toBe('body.metadata')
  })
})
