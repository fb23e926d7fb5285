/**
 * An agent-core ChatModel served as an AI SDK language model, driven by the AI SDK's own `generateText`
 * and `streamText`: text, streaming, a tool loop run by the AI SDK, warnings, and provider errors retried
 * (or not) by the AI SDK from the `APICallError` they become.
 */
import { createScriptedModel } from '@agent-core/kits/loop'
import { ModelProviderError } from '@agent-core/kits/models'
import { APICallError } from '@ai-sdk/provider'
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { toAiSdkLanguageModel } from './index.js'

// The warnings are asserted on the result; the AI SDK need not also print them.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

describe('toAiSdkLanguageModel', () => {
  it('answers generateText with the text, reasoning and usage of the chat model', async () => {
    const scripted = createScriptedModel([
      { text: 'Hello from agent-core.', thinking: 'Greet.', usage: { inputTokens: 4, outputTokens: 5 } },
    ])
    const result = await generateText({
      model: toAiSdkLanguageModel(scripted),
      system: 'Be kind.',
      prompt: 'Hi',
      temperature: 0,
      maxOutputTokens: 20,
    })
    expect(result.text).toBe('Hello from agent-core.')
    expect(result.reasoningText).toBe('Greet.')
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject({ inputTokens: 4, outputTokens: 5, totalTokens: 9 })
    expect(scripted.calls[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0,
      maxOutputTokens: 20,
    })
  })

  it('streams through streamText, piece by piece, for models with and without stream', async () => {
    for (const stream of [true, false]) {
      const scripted = createScriptedModel([{ text: 'one two three four' }], { stream })
      const result = streamText({ model: toAiSdkLanguageModel(scripted), prompt: 'Count' })
      const pieces: string[] = []
      for await (const piece of result.textStream) pieces.push(piece)
      expect(pieces.join('')).toBe('one two three four')
      expect(pieces.length).toBe(stream ? 4 : 1)
      expect(await result.finishReason).toBe('stop')
    }
  })

  it('carries a tool loop run by generateText: the call, the result sent back, the answer', async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'add', input: { a: 2, b: 3 } }] },
      (request) => ({ text: `The sum is ${request.messages.at(-1)?.content}.` }),
    ])
    const result = await generateText({
      model: toAiSdkLanguageModel(scripted, { provider: 'agent-core.scripted', modelId: 'scripted-1' }),
      prompt: 'What is 2 + 3?',
      tools: {
        add: tool({
          description: 'Adds two numbers',
          inputSchema: jsonSchema<{ a: number; b: number }>({
            type: 'object',
            required: ['a', 'b'],
            properties: { a: { type: 'number' }, b: { type: 'number' } },
          }),
          execute: async ({ a, b }) => a + b,
        }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe('The sum is 5.')
    expect(result.steps).toHaveLength(2)
    expect(scripted.calls[0]?.tools?.map((spec) => spec.name)).toEqual(['add'])
    expect(scripted.calls[1]?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: '5' },
    ])
    expect(result.response.modelId).toBe('scripted')
  })

  it('reports settings a ChatModel has no field for as unsupported warnings', async () => {
    const scripted = createScriptedModel([{ text: 'ok' }])
    const result = await generateText({
      model: toAiSdkLanguageModel(scripted),
      prompt: 'x',
      topP: 0.5,
      topK: 3,
    })
    expect(result.warnings?.map((warning) => (warning as { feature?: string }).feature)).toEqual([
      'topP',
      'topK',
    ])
  })

  it('a retryable ModelProviderError is retried by the AI SDK; a permanent one reaches it as APICallError', async () => {
    const busy = new ModelProviderError('busy', { status: 429, retryAfterMs: 5, provider: 'scripted' })
    const retried = createScriptedModel([{ error: busy }, { text: 'Recovered.' }])
    const ok = await generateText({ model: toAiSdkLanguageModel(retried), prompt: 'x', maxRetries: 2 })
    expect(ok.text).toBe('Recovered.')
    expect(retried.calls).toHaveLength(2)

    const refused = new ModelProviderError('bad request', { status: 400, provider: 'scripted' })
    const failed = await generateText({
      model: toAiSdkLanguageModel(createScriptedModel([{ error: refused }])),
      prompt: 'x',
      maxRetries: 2,
    }).catch((error: unknown) => error)
    expect(APICallError.isInstance(failed)).toBe(true)
    expect((failed as APICallError).statusCode).toBe(400)
    expect((failed as APICallError).isRetryable).toBe(false)
    expect((failed as APICallError).cause).toBe(refused)
  })

  it('refuses what is no chat model, and unknown options', () => {
    expect(() => toAiSdkLanguageModel(null as never)).toThrow(/agent-core chat model/)
    const scripted = createScriptedModel([])
    expect(() => toAiSdkLanguageModel(scripted, { modelID: 'x' } as never)).toThrow(
      /options.modelID is not a known field/,
    )
    expect(() => toAiSdkLanguageModel(scripted, { provider: '' })).toThrow(/options.provider/)
    const served = toAiSdkLanguageModel(scripted)
    expect([served.specificationVersion, served.provider, served.modelId]).toEqual([
      'v4',
      'agent-core',
      'scripted',
    ])
  })
})
