/**
 * The chat model conformance suite (`@agent-core/kits/models/testing`) on AI SDK models against MockGPT
 * over HTTP (loopback): `@ai-sdk/openai-compatible` on chat completions and `@ai-sdk/anthropic` on the
 * Messages API, each through `createAiSdkChatModel`; and an agent-core model served to the AI SDK and
 * wrapped back (`createAiSdkChatModel(toAiSdkLanguageModel(model))`), which must change nothing.
 */

import { ModelProviderError } from '@agent-core/kits/models'
import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAiSdkChatModel, toAiSdkLanguageModel } from './index.js'

let server: MockGPTServer

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 13, apiKey: 'sk-test' })
})
afterAll(async () => {
  await server.close()
})

function harness(
  replies: Parameters<typeof scriptMockGPT>[1],
  model: () => ReturnType<typeof createAiSdkChatModel>,
) {
  server.mock.reset()
  scriptMockGPT(server.mock, replies)
  return {
    model: model(),
    requests: () => server.mock.requests.length,
    close: async () => server.mock.assertAllScriptsUsed(),
  }
}

describeChatModelConformance({
  describe,
  it,
  name: 'ai-sdk over @ai-sdk/openai-compatible',
  open: async (replies) =>
    harness(replies, () => {
      const provider = createOpenAICompatible({
        name: 'mockgpt',
        baseURL: server.baseURL,
        apiKey: 'sk-test',
        includeUsage: true,
      })
      return createAiSdkChatModel({ model: provider.chatModel('gpt-4o-mini') })
    }),
  reasoning: true,
  disconnects: true,
})

describeChatModelConformance({
  describe,
  it,
  name: 'ai-sdk over @ai-sdk/anthropic',
  open: async (replies) =>
    harness(replies, () => {
      const provider = createAnthropic({ baseURL: server.baseURL, apiKey: 'sk-test' })
      return createAiSdkChatModel({ model: provider('claude-sonnet-4-5') })
    }),
  reasoning: true,
  disconnects: true,
})

describeChatModelConformance({
  describe,
  it,
  name: 'ai-sdk round trip (toAiSdkLanguageModel of the OpenAI adapter, wrapped back)',
  open: async (replies) =>
    harness(replies, () => {
      const inner = createOpenAIChatModel({
        model: 'gpt-4o-mini',
        apiKey: 'sk-test',
        baseURL: server.baseURL,
      })
      return createAiSdkChatModel({ model: toAiSdkLanguageModel(inner) })
    }),
  reasoning: true,
  disconnects: true,
})

describe('provider errors over HTTP carry what the server said', () => {
  it('a 429 from MockGPT reaches the caller with its retry-after and request id, through either provider', async () => {
    const models = [
      createAiSdkChatModel({
        model: createOpenAICompatible({
          name: 'mockgpt',
          baseURL: server.baseURL,
          apiKey: 'sk-test',
        }).chatModel('gpt-4o-mini'),
      }),
      createAiSdkChatModel({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'sk-test' })('claude-sonnet-4-5'),
      }),
    ]
    for (const model of models) {
      server.mock.reset()
      server.mock.script({ reply: { type: 'error', status: 429, retryAfterMs: 700, message: 'Slow down' } })
      const failure = await model
        .generate({ messages: [{ role: 'user', content: 'Hi' }] })
        .catch((error) => error)
      expect(ModelProviderError.isInstance(failure)).toBe(true)
      expect(failure).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 700, retryable: true })
      expect(failure.details.requestId).toEqual(expect.any(String))
      expect(failure.details.provider).toBe(model.provider)
      expect(failure.message).toMatch(/Slow down/)
    }
  })
})
