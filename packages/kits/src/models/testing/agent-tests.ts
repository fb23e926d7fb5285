import { defineModelTool } from '@agent-core/core/tools'
import { assert } from './assert.js'
import type { ConformanceSuite } from './conformance.js'

/**
 * The loop kit, imported when the first agent test runs: importing this subpath does not load the loop
 * (with the tools kit, about 200 KB of built code that only these two tests use; docs/design/cold-import.md).
 */
const loadLoop = () => import('@agent-core/kits/loop')

/** The tool of the loop guide's first agent. */
function weatherTool(ran: string[]) {
  return defineModelTool<{ city: string }, string>({
    id: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    execute: ({ city }) => {
      ran.push(city)
      return `19 °C and sunny in ${city}`
    },
  })
}

/** The loop guide's first agent, unchanged, on the model under test. */
export function registerAgentTests(suite: ConformanceSuite): void {
  suite.test(
    "runs the loop guide's first agent: model, tool, model, final answer",
    [
      { type: 'tool-calls', calls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] },
      { type: 'tool-results' },
    ],
    async (model) => {
      const { defineAgent } = await loadLoop()
      const ran: string[] = []
      const agent = defineAgent({ model, tools: [weatherTool(ran)] })
      const result = await agent.run({ prompt: 'Use get_weather: how is Lisbon today?' })
      assert.equal(result.reason, 'final', `the run ended with ${result.reason}`)
      assert.equal(result.turns, 2) // model -> tool -> model
      assert.deepEqual(ran, ['Lisbon'])
      assert.match(result.text, /^get_weather: .*19 °C and sunny in Lisbon/) // the model read the tool's result
      assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0, 'the run sums the usage')
    },
  )

  suite.test(
    'runs an agent whose model calls the tool twice in parallel, each result paired with its call',
    [
      {
        type: 'tool-calls',
        calls: [
          { name: 'get_weather', arguments: { city: 'Lisbon' } },
          { name: 'get_weather', arguments: { city: 'Porto' } },
        ],
      },
      { type: 'tool-results' },
    ],
    async (model) => {
      const { defineAgent } = await loadLoop()
      const ran: string[] = []
      const agent = defineAgent({ model, tools: [weatherTool(ran)], system: 'Answer from the tools.' })
      const result = await agent.run({ prompt: 'Use get_weather: Lisbon or Porto, where is it nicer?' })
      assert.equal(result.reason, 'final', `the run ended with ${result.reason}`)
      assert.equal(result.turns, 2)
      assert.deepEqual([...ran].sort(), ['Lisbon', 'Porto'])
      const lines = result.text.split('\n')
      assert.equal(lines.length, 2)
      assert.match(lines[0]!, /^get_weather: .*sunny in Lisbon/)
      assert.match(lines[1]!, /^get_weather: .*sunny in Porto/)
    },
  )
}
