import type { ChatMessage, ModelRequest, ModelResponse, ToolSpec } from '@agent-core/core'
import { assert } from './assert.js'
import { type ConformanceSuite, generate, streamEvents, streamed } from './conformance.js'
import { type ConformanceToolCall, toolResultsText } from './replies.js'

/** The tools the suite offers: the weather and time tools of the guides. */
export const CONFORMANCE_TOOLS: readonly ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['city'],
      properties: { city: { type: 'string' } },
    },
  },
  {
    name: 'get_time',
    description: 'Local time in a timezone',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['zone'],
      properties: { zone: { type: 'string' } },
    },
  },
]

const ask: ModelRequest = {
  messages: [{ role: 'user', content: 'What is the weather in Lisbon, and the time there?' }],
  tools: CONFORMANCE_TOOLS,
}
const weather: ConformanceToolCall = { name: 'get_weather', arguments: { city: 'Lisbon' } }
const time: ConformanceToolCall = { name: 'get_time', arguments: { zone: 'Europe/Lisbon' } }

/** Asserts that `response` asks for exactly `expected`, in order, with distinct ids and parseable arguments. */
function assertCalls(response: ModelResponse, expected: readonly ConformanceToolCall[]): void {
  const calls = response.message.toolCalls ?? []
  assert.equal(response.finishReason, 'tool-calls')
  assert.deepEqual(
    calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
    expected.map((call) => ({ name: call.name, arguments: call.arguments })),
  )
  assert.equal(new Set(calls.map((call) => call.id)).size, calls.length, 'tool call ids are distinct')
}

/** The conversation after `response`: its assistant message, then one result per call. */
function withResults(response: ModelResponse, outputs: readonly string[]): ChatMessage[] {
  const calls = response.message.toolCalls ?? []
  return [
    ...ask.messages,
    response.message,
    ...calls.map((call, at): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: outputs[at]! })),
  ]
}

/** Tool calls (single, parallel, streamed) and tool results sent back. */
export function registerToolTests(suite: ConformanceSuite): void {
  suite.test(
    'generate asks for a tool call with its name and arguments (finish reason tool-calls)',
    [{ type: 'tool-calls', calls: [weather] }],
    async (model) => {
      assertCalls(await generate(model, ask), [weather])
    },
  )

  suite.test(
    'generate asks for parallel tool calls, in order, with distinct ids',
    [{ type: 'tool-calls', calls: [weather, time] }],
    async (model) => {
      assertCalls(await generate(model, { ...ask, parallelToolCalls: true }), [weather, time])
    },
  )

  suite.test(
    'accepts each tool choice: auto, required, none and a named tool',
    [
      { type: 'tool-calls', calls: [weather] },
      { type: 'tool-calls', calls: [time] },
      { type: 'text', text: 'No tools today.' },
      { type: 'tool-calls', calls: [time] },
    ],
    async (model) => {
      assertCalls(await generate(model, { ...ask, toolChoice: 'auto' }), [weather])
      assertCalls(await generate(model, { ...ask, toolChoice: 'required' }), [time])
      const none = await generate(model, { ...ask, toolChoice: 'none' })
      assert.equal(none.message.content, 'No tools today.')
      assertCalls(await generate(model, { ...ask, toolChoice: { name: 'get_time' } }), [time])
    },
  )

  suite.test(
    'sends tool results back paired with their calls',
    [
      {
        type: 'tool-calls',
        calls: [weather, { name: 'get_weather', arguments: { city: 'Porto' } }],
      },
      { type: 'tool-results' },
    ],
    async (model) => {
      const first = await generate(model, ask)
      const outputs = ['19 °C and sunny in Lisbon', '15 °C and rain in Porto']
      const second = await generate(model, { ...ask, messages: withResults(first, outputs) })
      assert.equal(
        second.message.content,
        toolResultsText(outputs.map((output) => ({ name: 'get_weather', output }))),
      )
      assert.equal(second.finishReason, 'stop')
    },
  )

  suite.test(
    'sends a failed tool result (isError) back as a result of its call',
    [{ type: 'tool-calls', calls: [weather] }, { type: 'tool-results' }],
    async (model) => {
      const first = await generate(model, ask)
      const call = first.message.toolCalls?.[0]
      assert.ok(call)
      const second = await generate(model, {
        ...ask,
        messages: [
          ...ask.messages,
          first.message,
          { role: 'tool', toolCallId: call.id, content: 'weather service down', isError: true },
        ],
      })
      assert.match(second.message.content, /^get_weather: .*weather service down/)
    },
  )

  if (!suite.streams) return

  suite.test(
    'streams parallel tool calls: start, argument deltas and end per index, then finish tool-calls',
    [{ type: 'tool-calls', calls: [weather, time] }],
    async (model) => {
      const events = await streamEvents(model, ask)
      const starts = events.filter((event) => event.type === 'tool-call-start')
      assert.equal(starts.length, 2)
      assert.deepEqual(
        starts.map((event) => event.name),
        ['get_weather', 'get_time'],
      )
      const ends = events.filter((event) => event.type === 'tool-call-end').sort((a, b) => a.index - b.index)
      assert.deepEqual(
        ends.map((event) => ({
          name: event.call.name,
          arguments: JSON.parse(event.call.arguments) as unknown,
        })),
        [weather, time],
      )
      const finish = events.at(-1)
      assert.ok(finish?.type === 'finish' && finish.finishReason === 'tool-calls')
    },
  )

  suite.test(
    'a streamed tool call folds to what generate answers',
    [
      { type: 'tool-calls', calls: [weather, time] },
      { type: 'tool-calls', calls: [weather, time] },
    ],
    async (model) => {
      const whole = await generate(model, ask)
      const folded = await streamed(model, ask)
      assertCalls(whole, [weather, time])
      assertCalls(folded, [weather, time])
      // Usage is not compared here: a provider may send tools differently when it streams (the Anthropic
      // SDKs ask for eager input streaming per tool), so the prompt it counts differs.
      assert.equal(folded.finishReason, whole.finishReason)
    },
  )

  suite.test(
    'streams the answer to tool results sent back',
    [{ type: 'tool-calls', calls: [weather] }, { type: 'tool-results' }],
    async (model) => {
      const first = await streamed(model, ask)
      const second = await streamed(model, { ...ask, messages: withResults(first, ['19 °C and sunny']) })
      assert.equal(second.message.content, 'get_weather: 19 °C and sunny')
    },
  )
}
