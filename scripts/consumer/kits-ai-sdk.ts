import assert from 'node:assert/strict'
import { collectModelStream } from '@agent-core/core'
import { createAiSdkChatModel, toAiSdkLanguageModel } from '@agent-core/kits/ai-sdk'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import { ModelProviderError } from '@agent-core/kits/models'

// An agent-core model served as an AI SDK language model, and wrapped back as a ChatModel: the two
// directions of the adapter, without any provider package.
const scripted = createScriptedModel([
  { toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] },
  (request) => ({ text: `Oslo: ${request.messages.at(-1)?.content}.` }),
  { error: new ModelProviderError('Slow down.', { status: 429, retryAfterMs: 1200, provider: 'scripted' }) },
])
const model = createAiSdkChatModel({ model: toAiSdkLanguageModel(scripted), provider: 'round-trip' })
assert.equal(model.identity, 'scripted')
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
    { role: 'tool', toolCallId: call?.id ?? '', content: 'sunny' },
  ],
  tools,
})
assert.equal(second.message.content, 'Oslo: sunny.')

const failure = await model
  .generate({ messages: [{ role: 'user', content: 'Again?' }] })
  .catch((error) => error)
assert.ok(ModelProviderError.isInstance(failure))
assert.equal(failure.kind, 'rate-limit')
assert.equal(failure.retryAfterMs, 1200)
scripted.assertDone()
