import assert from 'node:assert/strict'
import { collectModelStream } from '@agent-core/core'
import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'

// The official @anthropic-ai/sdk client talks to MockGPT's /v1/messages in this process, through its fetch.
const handler = createMockGPTFetchHandler({
  script: [
    {
      reply: {
        type: 'tool-calls',
        reasoning: 'Look it up.',
        calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      },
    },
    { reply: (request) => ({ type: 'text', text: `Oslo: ${request.toolResults[0]?.output}.` }) },
  ],
})
try {
  const model = createAnthropicChatModel({
    model: 'claude-sonnet-4-6',
    apiKey: 'sk-ant-test',
    baseURL: 'http://mockgpt.local',
    clientOptions: { fetch: handler.fetch },
    thinking: { budgetTokens: 1024 },
  })
  const tools = [{ name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object' } }]
  const first = await collectModelStream(
    model.stream({ messages: [{ role: 'user', content: 'Oslo?' }], tools }),
  )
  assert.equal(first.finishReason, 'tool-calls')
  assert.ok(first.message.thinkingBlocks?.[0]?.signature)
  const call = first.message.toolCalls?.[0]
  assert.deepEqual(JSON.parse(call?.arguments ?? ''), { city: 'Oslo' })

  const second = await model.generate({
    messages: [
      { role: 'user', content: 'Oslo?' },
      first.message,
      { role: 'tool', toolCallId: call?.id ?? '', content: '4 °C' },
    ],
    tools,
  })
  assert.equal(second.message.content, 'Oslo: 4 °C.')
  assert.ok((second.usage.cacheReadTokens ?? 0) > 0) // the first turn's prefix, read back
  assert.equal(handler.mock.requests.length, 2)
} finally {
  handler.close()
}
