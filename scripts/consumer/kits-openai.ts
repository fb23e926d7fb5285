import assert from 'node:assert/strict'
import { collectModelStream } from '@agent-core/core'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { createMockGPTFetchHandler } from '@agent-core/mock/web'

// The official openai client talks to MockGPT in this process, through its fetch.
const handler = createMockGPTFetchHandler({
  script: [
    { reply: { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] } },
    { reply: (request) => ({ type: 'text', text: `Oslo: ${request.toolResults[0]?.output}.` }) },
  ],
})
try {
  const model = createOpenAIChatModel({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    baseURL: 'http://mockgpt.local/v1',
    clientOptions: { fetch: handler.fetch },
  })
  const tools = [{ name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object' } }]
  const first = await collectModelStream(
    model.stream({ messages: [{ role: 'user', content: 'Oslo?' }], tools }),
  )
  assert.equal(first.finishReason, 'tool-calls')
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
  assert.equal(handler.mock.requests.length, 2)
} finally {
  handler.close()
}
