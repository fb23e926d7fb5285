/**
 * The chat model conformance suite (`@agent-core/kits/models/testing`) on the Anthropic adapter, against
 * MockGPT's `/v1/messages` over HTTP (loopback) through the official `@anthropic-ai/sdk` client.
 */
import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { createAnthropicChatModel } from './index.js'

let server: MockGPTServer

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 11, apiKey: 'sk-test' })
})
afterAll(async () => {
  await server.close()
})

describeChatModelConformance({
  describe,
  it,
  name: 'anthropic adapter',
  open: async (replies) => {
    server.mock.reset()
    scriptMockGPT(server.mock, replies)
    return {
      // The Anthropic SDK takes the server's URL without `/v1`.
      model: createAnthropicChatModel({ model: 'claude-sonnet-4-6', apiKey: 'sk-test', baseURL: server.url }),
      requests: () => server.mock.requests.length,
      close: async () => server.mock.assertAllScriptsUsed(),
    }
  },
  reasoning: true,
  disconnects: true,
})
