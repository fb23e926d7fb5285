/**
 * The AI SDK adapter against the AI SDK's own mock model (`MockLanguageModelV4` from `ai/test`): the call
 * options it sends, how generate results and stream parts map to core shapes, errors, and bad input.
 */
import { collectModelStream, MemoryDiagnosticSink, type ModelStreamEvent } from '@agent-core/core'
import { defineAgent } from '@agent-core/kits/loop'
import { ModelProviderError } from '@agent-core/kits/models'
import { APICallError, type LanguageModelV4StreamPart, type LanguageModelV4Usage } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { createAiSdkChatModel } from './index.js'

const usage: LanguageModelV4Usage = {
  inputTokens: { total: 11, noCache: 9, cacheRead: 2, cacheWrite: undefined },
  outputTokens: { total: 5, text: 3, reasoning: 2 },
}

function streamOf(parts: readonly LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at < parts.length) controller.enqueue(parts[at++]!)
      else controller.close()
    },
  })
}

async function events(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const seen: ModelStreamEvent[] = []
  for await (const event of stream) seen.push(event)
  return seen
}

const finish: LanguageModelV4StreamPart = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'end_turn' },
  usage,
}

describe('the call options sent to the AI SDK model', () => {
  it('maps messages, images, tool calls and results (merged per turn), tools, tool choice and settings', async () => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-1',
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    })
    const model = createAiSdkChatModel({
      model: mock,
      providerOptions: { mock: { flavour: 'plain' } },
      headers: { 'x-app': 'test' },
    })
    await model.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image', url: 'https://example.com/cat.png' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          thinking: 'Two lookups.',
          toolCalls: [
            { id: 'c1', name: 'lookup', arguments: '{"q":"a"}' },
            { id: 'c2', name: 'lookup', arguments: '{"q":' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', content: 'A' },
        { role: 'tool', toolCallId: 'c2', content: 'bad arguments', isError: true },
      ],
      tools: [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object' } }],
      toolChoice: { name: 'lookup' },
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
      temperature: 0.2,
      maxOutputTokens: 50,
      seed: 3,
      stop: ['END'],
      parallelToolCalls: true,
    })
    const call = mock.doGenerateCalls[0]!
    expect(call.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          {
            type: 'file',
            mediaType: 'image/*',
            data: { type: 'url', url: new URL('https://example.com/cat.png') },
          },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two lookups.' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: '{"q":' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'A' } },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'lookup',
            output: { type: 'error-text', value: 'bad arguments' },
          },
        ],
      },
    ])
    expect(call).toMatchObject({
      tools: [{ type: 'function', name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'tool', toolName: 'lookup' },
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
      temperature: 0.2,
      maxOutputTokens: 50,
      seed: 3,
      stopSequences: ['END'],
      providerOptions: { mock: { flavour: 'plain' } },
      headers: { 'x-app': 'test' },
    })
    expect(call.abortSignal).toBeInstanceOf(AbortSignal)
  })

  it('refuses what it cannot say before calling the model, naming the field', async () => {
    const mock = new MockLanguageModelV4({ modelId: 'mock-1' })
    const model = createAiSdkChatModel({ model: mock })
    const user = { role: 'user', content: 'Hi' } as const
    expect(() => model.assertRequest({ messages: [user], parallelToolCalls: false })).toThrow(
      /providerOptions/,
    )
    expect(() => model.assertRequest({ messages: [user], model: 'other' })).toThrow(/bound to "mock-1"/)
    expect(() => model.assertRequest({ messages: [user], topP: 0.3 })).toThrow(/request.topP is not a field/)
    expect(() =>
      model.assertRequest({ messages: [user, { role: 'tool', toolCallId: 'nope', content: 'x' }] }),
    ).toThrow(/answers no tool call/)
    expect(() => model.assertRequest({ messages: [] })).toThrow(/non-empty array/)
    expect(() => model.assertRequest({ messages: [{ role: 'robot', content: 'x' }] })).toThrow(/role/)
    expect(() => model.assertRequest({ messages: [user], temperature: Number.NaN })).toThrow(/temperature/)
    expect(() => model.assertRequest({ messages: [user], maxOutputTokens: -1 })).toThrow(/maxOutputTokens/)
    expect(() => model.assertRequest({ messages: [user], toolChoice: 'sometimes' })).toThrow(/toolChoice/)
    expect(() => model.stream({ messages: 'hello' } as never)).toThrow(/request.messages must be an array/)
    expect(mock.doGenerateCalls).toHaveLength(0)
    expect(mock.doStreamCalls).toHaveLength(0)
    await expect(model.generate({ messages: [user], seed: 1.5 })).rejects.toMatchObject({
      code: 'invalid-input',
      details: { field: 'request.seed' },
    })
  })
})

describe('answers', () => {
  it('generate: text, reasoning and tool calls; provider-executed calls left out; usage totals', async () => {
    const model = createAiSdkChatModel({
      model: new MockLanguageModelV4({
        modelId: 'mock-1',
        doGenerate: {
          content: [
            { type: 'reasoning', text: 'Hmm.' },
            { type: 'text', text: 'Calling ' },
            { type: 'text', text: 'now.' },
            { type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: '{"q":"x"}' },
            {
              type: 'tool-call',
              toolCallId: 'p1',
              toolName: 'web_search',
              input: '{}',
              providerExecuted: true,
            },
            { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage,
          warnings: [],
          response: { modelId: 'mock-1-2026' },
        },
      }),
    })
    expect(await model.generate({ messages: [{ role: 'user', content: 'x' }] })).toEqual({
      message: {
        role: 'assistant',
        content: 'Calling now.',
        thinking: 'Hmm.',
        toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"q":"x"}' }],
      },
      finishReason: 'tool-calls',
      usage: { inputTokens: 11, outputTokens: 5, totalTokens: 16, cacheReadTokens: 2 },
      model: 'mock-1-2026',
    })
  })

  it('stream: deltas in order, tool inputs keyed by id become indexed calls, a bare tool-call part is all three events', async () => {
    const model = createAiSdkChatModel({
      model: new MockLanguageModelV4({
        modelId: 'mock-1',
        doStream: {
          stream: streamOf([
            { type: 'stream-start', warnings: [] },
            { type: 'response-metadata', id: 'r1', modelId: 'mock-1-2026' },
            { type: 'reasoning-start', id: 'r' },
            { type: 'reasoning-delta', id: 'r', delta: 'Think.' },
            { type: 'reasoning-end', id: 'r' },
            { type: 'text-start', id: 'a' },
            { type: 'text-delta', id: 'a', delta: 'Hi ' },
            { type: 'text-delta', id: 'a', delta: '' },
            { type: 'text-end', id: 'a' },
            { type: 'tool-input-start', id: 'x', toolName: 'lookup' },
            { type: 'tool-input-start', id: 'y', toolName: 'clock' },
            { type: 'tool-input-delta', id: 'x', delta: '{"q":' },
            { type: 'tool-input-delta', id: 'y', delta: '{}' },
            { type: 'tool-input-delta', id: 'x', delta: '"a"}' },
            { type: 'tool-input-end', id: 'x' },
            { type: 'tool-call', toolCallId: 'x', toolName: 'lookup', input: '{"q":"a"}' },
            { type: 'tool-call', toolCallId: 'y', toolName: 'clock', input: '{}' },
            { type: 'tool-call', toolCallId: 'z', toolName: 'late', input: '{"n":1}' },
            { type: 'raw', rawValue: {} },
            { ...finish, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
          ]),
        },
      }),
    })
    expect(await events(model.stream({ messages: [{ role: 'user', content: 'x' }] }))).toEqual([
      { type: 'thinking-delta', text: 'Think.' },
      { type: 'text-delta', text: 'Hi ' },
      { type: 'tool-call-start', index: 0, id: 'x', name: 'lookup' },
      { type: 'tool-call-start', index: 1, id: 'y', name: 'clock' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"a"}' },
      { type: 'tool-call-end', index: 0, call: { id: 'x', name: 'lookup', arguments: '{"q":"a"}' } },
      { type: 'tool-call-end', index: 1, call: { id: 'y', name: 'clock', arguments: '{}' } },
      { type: 'tool-call-start', index: 2, id: 'z', name: 'late' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"n":1}' },
      { type: 'tool-call-end', index: 2, call: { id: 'z', name: 'late', arguments: '{"n":1}' } },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 11, outputTokens: 5, totalTokens: 16, cacheReadTokens: 2 },
        model: 'mock-1-2026',
      },
    ])
  })

  it("records the provider's warnings, cache reads and reasoning tokens on the model-request span", async () => {
    const sink = new MemoryDiagnosticSink()
    const model = createAiSdkChatModel({
      model: new MockLanguageModelV4({
        modelId: 'mock-1',
        doStream: {
          stream: streamOf([
            { type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'seed' }] },
            { type: 'text-delta', id: 'a', delta: 'ok' },
            finish,
          ]),
        },
      }),
    })
    await collectModelStream(
      model.stream({ messages: [{ role: 'user', content: 'x' }], seed: 1 }, { diagnostics: sink.sink }),
    )
    const end = sink.ofKind('model-request-end')[0]
    expect(end?.data).toMatchObject({
      warnings: [{ type: 'unsupported', feature: 'seed' }],
      cachedInputTokens: 2,
      reasoningTokens: 2,
      finishReason: 'stop',
      providerFinishReason: 'end_turn',
      inputTokens: 11,
    })
  })

  it('maps every unified finish reason (interrupted has no core form: other)', async () => {
    const reasons = [
      'stop',
      'length',
      'content-filter',
      'tool-calls',
      'error',
      'interrupted',
      'other',
    ] as const
    const seen: string[] = []
    for (const unified of reasons) {
      const model = createAiSdkChatModel({
        model: new MockLanguageModelV4({
          doGenerate: { content: [], finishReason: { unified, raw: undefined }, usage, warnings: [] },
        }),
      })
      seen.push((await model.generate({ messages: [{ role: 'user', content: 'x' }] })).finishReason)
    }
    expect(seen).toEqual(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other', 'other'])
  })

  it('runs an agent on the mock model: tool call, result, answer', async () => {
    let turn = 0
    const mock = new MockLanguageModelV4({
      doStream: async () => {
        turn++
        return {
          stream: streamOf(
            turn === 1
              ? [
                  { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' },
                  { ...finish, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
                ]
              : [{ type: 'text-delta', id: 't', delta: 'The sum is 5.' }, finish],
          ),
        }
      },
    })
    const { defineModelTool } = await import('@agent-core/core/tools')
    const add = defineModelTool<{ a: number; b: number }, number>({
      id: 'add',
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        required: ['a', 'b'],
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      },
      execute: ({ a, b }) => a + b,
    })
    const result = await defineAgent({ model: createAiSdkChatModel({ model: mock }), tools: [add] }).run({
      prompt: 'What is 2 + 3?',
    })
    expect(result.reason).toBe('final')
    expect(result.text).toBe('The sum is 5.')
    const second = mock.doStreamCalls[1]!.prompt
    expect(second.at(-1)).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'text', value: '5' } },
      ],
    })
  })
})

describe('failures', () => {
  it('an error part, a stream without finish and a tool input never closed are ModelProviderErrors', async () => {
    const cases: LanguageModelV4StreamPart[][] = [
      [
        { type: 'text-delta', id: 'a', delta: 'x' },
        { type: 'error', error: { message: 'overloaded' } },
      ],
      [{ type: 'text-delta', id: 'a', delta: 'x' }],
      [{ type: 'tool-input-start', id: 'x', toolName: 'lookup' }, finish],
    ]
    const kinds: string[] = []
    for (const parts of cases) {
      const model = createAiSdkChatModel({
        model: new MockLanguageModelV4({ doStream: { stream: streamOf(parts) } }),
      })
      const failure = await events(model.stream({ messages: [{ role: 'user', content: 'x' }] })).catch(
        (e) => e,
      )
      expect(ModelProviderError.isInstance(failure)).toBe(true)
      kinds.push(`${failure.kind}:${failure.retryable}`)
    }
    expect(kinds).toEqual(['network:true', 'invalid-response:true', 'invalid-response:true'])
  })

  it('APICallError with a status goes through ModelProviderError.fromHttp (kind, retry-after, quota, request id)', async () => {
    const refusal = (statusCode: number, headers: Record<string, string>, data?: unknown) =>
      new APICallError({
        message: 'refused',
        url: 'https://api.example.com/v1/chat',
        requestBodyValues: {},
        statusCode,
        responseHeaders: headers,
        isRetryable: statusCode >= 429,
        data,
      })
    const thrown = [
      refusal(429, { 'retry-after': '2', 'x-request-id': 'req_1' }),
      refusal(429, {}, { error: { code: 'insufficient_quota', message: 'no money' } }),
      refusal(529, {}, { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }),
      new APICallError({
        message: 'Cannot connect to API: ECONNREFUSED',
        url: 'x',
        requestBodyValues: {},
        isRetryable: true,
      }),
    ]
    const seen: unknown[] = []
    for (const error of thrown) {
      const model = createAiSdkChatModel({
        model: new MockLanguageModelV4({
          doGenerate: async () => {
            throw error
          },
        }),
      })
      const failure = await model.generate({ messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
      expect(ModelProviderError.isInstance(failure)).toBe(true)
      expect(failure.cause).toBe(error)
      seen.push({
        kind: failure.kind,
        retryAfterMs: failure.retryAfterMs,
        code: failure.details.providerCode,
        id: failure.details.requestId,
      })
    }
    expect(seen).toEqual([
      { kind: 'rate-limit', retryAfterMs: 2000, code: undefined, id: 'req_1' },
      { kind: 'quota', retryAfterMs: undefined, code: 'insufficient_quota', id: undefined },
      { kind: 'overloaded', retryAfterMs: undefined, code: 'overloaded_error', id: undefined },
      { kind: 'network', retryAfterMs: undefined, code: undefined, id: undefined },
    ])
  })
})

describe('bad options', () => {
  it('refuses unknown options, models that are not v4 language models and malformed fields', () => {
    const model = new MockLanguageModelV4()
    expect(() => createAiSdkChatModel({ model, temperature: 0 } as never)).toThrow(
      /options.temperature is not a known field/,
    )
    expect(() =>
      createAiSdkChatModel({
        model: {
          ...model,
          doGenerate: model.doGenerate,
          doStream: model.doStream,
          specificationVersion: 'v3',
        } as never,
      }),
    ).toThrow(/'v4'/)
    expect(() => createAiSdkChatModel({ model: 'gpt-4o' as never })).toThrow(/AI SDK language model/)
    expect(() => createAiSdkChatModel(null as never)).toThrow(/options must be/)
    expect(() => createAiSdkChatModel({ model, identity: '' })).toThrow(/options.identity/)
    expect(() => createAiSdkChatModel({ model, providerOptions: [] as never })).toThrow(
      /options.providerOptions/,
    )
    expect(() => createAiSdkChatModel({ model, headers: { a: 1 } as never })).toThrow(/options.headers/)
    for (const bad of [
      { model, identity: 3 },
      { model, provider: Number.NaN },
    ]) {
      try {
        createAiSdkChatModel(bad as never)
        expect.unreachable()
      } catch (error) {
        expect(error).toMatchObject({ code: 'invalid-input' })
      }
    }
    const ready = createAiSdkChatModel({ model, identity: 'friendly', provider: 'local' })
    expect([ready.identity, ready.provider, ready.languageModel]).toEqual(['friendly', 'local', model])
    expect(Object.isFrozen(ready)).toBe(true)
  })

  it('an aborted signal is refused before the model is called', async () => {
    const mock = new MockLanguageModelV4()
    const model = createAiSdkChatModel({ model: mock })
    const controller = new AbortController()
    controller.abort()
    await expect(
      model.generate({ messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' })
    await expect(
      events(model.stream({ messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal })),
    ).rejects.toMatchObject({ code: 'aborted' })
    expect(mock.doGenerateCalls.length + mock.doStreamCalls.length).toBe(0)
  })
})
