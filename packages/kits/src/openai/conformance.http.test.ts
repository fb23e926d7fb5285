/**
 * The chat model conformance suite (`@agent-core/kits/models/testing`) on the OpenAI adapter, against
 * MockGPT's chat completions over HTTP (loopback) through the official `openai` client.
 */
import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { createOpenAIChatModel } from './index.js'

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
  name: 'openai adapter',
  open: async (replies) => {
    server.mock.reset()
    scriptMockGPT(server.mock, replies)
    return {
      model: createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL }),
      requests: () => server.mock.requests.length,
      close: async () => server.mock.assertAllScriptsUsed(),
    }
  },
  reasoning: true,
  disconnects: true,
})
