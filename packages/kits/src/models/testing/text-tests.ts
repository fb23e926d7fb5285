import type { ModelRequest, ModelResponse } from '@agent-core/core'
import { assert } from './assert.js'
import { type ConformanceSuite, generate, streamEvents, streamed } from './conformance.js'

const FOX = 'The quick brown fox jumps over the lazy dog, twice.'
const hello: ModelRequest = { messages: [{ role: 'user', content: 'Hello there' }] }

/** The parts of an answer that a stream and a whole response must agree on. */
function essence(response: ModelResponse) {
  return {
    content: response.message.content,
    toolCalls: response.message.toolCalls ?? [],
    thinking: response.message.thinking,
    finishReason: response.finishReason,
    usage: {
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      totalTokens: response.usage.totalTokens,
    },
  }
}

/** Identity, text, finish reasons, usage, JSON output and reasoning. */
export function registerTextTests(suite: ConformanceSuite): void {
  const { streams, options } = suite

  suite.test('names its model: identity is a non-empty string', [], async (model) => {
    assert.equal(typeof model.identity, 'string')
    assert.notEqual(model.identity, '')
    assert.equal(typeof model.stream === 'function', streams, `stream is offered iff options.stream`)
  })

  suite.test(
    'generate answers the whole text with finish reason stop',
    [{ type: 'text', text: FOX }],
    async (model) => {
      const response = await generate(model, hello)
      assert.equal(response.message.content, FOX)
      assert.deepEqual(response.message.toolCalls ?? [], [])
      assert.equal(response.finishReason, 'stop')
      assert.ok(response.usage.outputTokens > 0, 'usage.outputTokens counts the answer')
      assert.ok(response.usage.inputTokens > 0, 'usage.inputTokens counts the prompt')
    },
  )

  suite.test(
    'usage follows the request: a longer prompt counts more input tokens',
    [
      { type: 'text', text: 'Short.' },
      { type: 'text', text: 'Short.' },
    ],
    async (model) => {
      const short = await generate(model, { messages: [{ role: 'user', content: 'Hi' }] })
      const long = await generate(model, {
        messages: [
          { role: 'system', content: 'You are a careful assistant who answers in one short sentence.' },
          { role: 'user', content: `Please read all of this before answering: ${FOX} ${FOX} ${FOX}` },
        ],
      })
      assert.ok(
        long.usage.inputTokens > short.usage.inputTokens,
        `a longer prompt counts more input tokens (${long.usage.inputTokens} vs ${short.usage.inputTokens})`,
      )
    },
  )

  suite.test(
    'a cut answer finishes with reason length',
    [{ type: 'text', text: 'This answer was cut', finishReason: 'length' }],
    async (model) => {
      const response = await generate(model, { ...hello, maxOutputTokens: 5 })
      assert.equal(response.finishReason, 'length')
      assert.equal(response.message.content, 'This answer was cut')
    },
  )

  suite.test(
    'accepts the common request fields: a system message, history, content parts, temperature, maxOutputTokens, stop',
    [{ type: 'text', text: 'Fine.' }],
    async (model) => {
      const response = await generate(model, {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'How are you?' },
          { role: 'assistant', content: 'Well.' },
          { role: 'user', content: [{ type: 'text', text: 'Really?' }] },
        ],
        temperature: 0,
        maxOutputTokens: 64,
        stop: ['\n\n'],
      })
      assert.equal(response.message.content, 'Fine.')
    },
  )

  suite.test(
    'answers a JSON schema response format with the JSON value as content',
    [{ type: 'json', value: { ok: true, reason: 'all checks passed' } }],
    async (model) => {
      const response = await generate(model, {
        messages: [{ role: 'user', content: 'Is the build green? Answer as JSON.' }],
        responseFormat: {
          type: 'json_schema',
          name: 'verdict',
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['ok', 'reason'],
            properties: { ok: { type: 'boolean' }, reason: { type: 'string' } },
          },
        },
      })
      assert.deepEqual(JSON.parse(response.message.content), { ok: true, reason: 'all checks passed' })
      assert.equal(response.finishReason, 'stop')
    },
  )

  if (streams) {
    suite.test(
      'streams text as several deltas that join to the answer, then one finish with the usage',
      [{ type: 'text', text: FOX }],
      async (model) => {
        const events = await streamEvents(model, hello)
        const deltas = events.filter((event) => event.type === 'text-delta')
        assert.ok(deltas.length > 1, `the text streams in pieces (got ${deltas.length} text-delta)`)
        assert.equal(deltas.map((event) => event.text).join(''), FOX)
        assert.ok(!events.some((event) => event.type.startsWith('tool-call')), 'no tool-call events')
        const finish = events.at(-1)
        assert.ok(finish?.type === 'finish')
        assert.equal(finish.finishReason, 'stop')
        assert.ok(finish.usage.outputTokens > 0, 'the finish carries the output token count')
        assert.ok(finish.usage.inputTokens > 0, 'the finish carries the input token count')
      },
    )

    suite.test(
      'generate answers what the stream folds to: same text, finish reason and usage',
      [
        { type: 'text', text: FOX },
        { type: 'text', text: FOX },
      ],
      async (model) => {
        const whole = await generate(model, hello)
        const folded = await streamed(model, hello)
        assert.deepEqual(essence(folded), essence(whole))
      },
    )

    suite.test(
      'a streamed cut answer finishes with reason length',
      [{ type: 'text', text: 'This answer was cut', finishReason: 'length' }],
      async (model) => {
        const folded = await streamed(model, { ...hello, maxOutputTokens: 5 })
        assert.equal(folded.finishReason, 'length')
      },
    )

    suite.test(
      'streams a JSON response format as text that parses to the value',
      [{ type: 'json', value: { answer: 42, unit: 'none' } }],
      async (model) => {
        const folded = await streamed(model, {
          messages: [{ role: 'user', content: 'Answer as a JSON object.' }],
          responseFormat: { type: 'json_object' },
        })
        assert.deepEqual(JSON.parse(folded.message.content), { answer: 42, unit: 'none' })
      },
    )
  }

  if (options.reasoning === true) {
    const reasoning = 'Two plus two makes four.'
    const sum: ModelRequest = { messages: [{ role: 'user', content: 'What is 2 + 2?' }] }
    suite.test(
      'reports the reasoning as thinking, beside the answer',
      [{ type: 'text', text: 'Four.', reasoning }],
      async (model) => {
        const response = await generate(model, sum)
        assert.equal(response.message.thinking, reasoning)
        assert.equal(response.message.content, 'Four.')
      },
    )
    if (streams) {
      suite.test(
        'streams the reasoning as thinking-delta events before the text',
        [{ type: 'text', text: 'Four.', reasoning }],
        async (model) => {
          const events = await streamEvents(model, sum)
          const thinking = events.filter((event) => event.type === 'thinking-delta')
          assert.equal(thinking.map((event) => event.text).join(''), reasoning)
          const firstText = events.findIndex((event) => event.type === 'text-delta')
          const lastThinking = events.findLastIndex((event) => event.type === 'thinking-delta')
          assert.ok(lastThinking < firstText, 'every thinking-delta comes before the first text-delta')
        },
      )
    }
  }
}
