import assert from 'node:assert/strict'
import { describeChatModelConformance, scriptMockGPT } from '@agent-core/kits/models/testing'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'

// The suite registers its tests with any runner's describe and it; here a runner of a few lines, and the
// OpenAI adapter talking to MockGPT in this process through its fetch.
const handler = createMockGPTFetchHandler({ apiKey: 'sk-test' })
const tests: { readonly name: string; readonly body: () => Promise<void> }[] = []
describeChatModelConformance({
  describe: (_group, body) => body(),
  it: (name, body) => void tests.push({ name, body }),
  name: 'openai over MockGPT',
  open: async (replies) => {
    handler.mock.reset()
    scriptMockGPT(handler.mock, replies)
    return {
      model: createOpenAIChatModel({
        model: 'gpt-4o-mini',
        apiKey: 'sk-test',
        baseURL: 'http://mockgpt.local/v1',
        clientOptions: { fetch: handler.fetch },
      }),
      requests: () => handler.mock.requests.length,
      close: async () => handler.mock.assertAllScriptsUsed(),
    }
  },
  reasoning: true,
})
assert.ok(tests.length > 25, `only ${tests.length} tests registered`)
try {
  for (const test of tests) {
    try {
      await test.body()
    } catch (error) {
      assert.fail(`conformance test "${test.name}" failed: ${String(error)}`)
    }
  }
} finally {
  await handler.close()
}
