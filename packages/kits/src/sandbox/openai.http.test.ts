/**
 * The code tool end to end: an agent on the OpenAI adapter (official `openai` client) against MockGPT over
 * real HTTP on loopback. The model's scripted code calls two tools in one step; the computed reply reads the
 * script's result from the conversation.
 */
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterEach, describe, expect, it } from 'vitest'
import { defineCodeTool } from './index.js'

const servers: MockGPTServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('the code tool against MockGPT through the OpenAI adapter', () => {
  it("runs the model's script, which calls two tools, and sends its result back", async () => {
    const calls: string[] = []
    const weather = defineModelTool<{ city: string }, { city: string; celsius: number }>({
      id: 'get_weather',
      description: 'Current temperature in a city',
      inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
      outputSchema: {
        type: 'object',
        required: ['city', 'celsius'],
        properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      },
      execute: ({ city }) => {
        calls.push(`weather ${city}`)
        return { city, celsius: ({ Lisbon: 19, Oslo: 4 } as Record<string, number>)[city] ?? 10 }
      },
    })
    const convert = defineModelTool<{ celsius: number }, number>({
      id: 'to_fahrenheit',
      description: 'Converts Celsius to Fahrenheit',
      inputSchema: { type: 'object', required: ['celsius'], properties: { celsius: { type: 'number' } } },
      execute: ({ celsius }) => {
        calls.push(`convert ${celsius}`)
        return Math.round((celsius * 9) / 5 + 32)
      },
    })
    const runCode = defineCodeTool({ tools: [weather, convert] })
    const code = `const cities = ['Lisbon', 'Oslo']
const readings = await Promise.all(cities.map((city) => get_weather({ city })))
const warmest = readings.reduce((a, b) => (a.celsius >= b.celsius ? a : b))
const fahrenheit: number = await to_fahrenheit({ celsius: warmest.celsius })
console.log('warmest', warmest.city)
return { city: warmest.city, fahrenheit }`
    const server = await startMockGPTServer({
      apiKey: 'sk-test',
      script: [
        { reply: { type: 'tool-calls', calls: [{ name: 'run_code', arguments: { code } }] } },
        {
          reply: (request) => {
            const result = JSON.parse(String(request.toolResults[0]?.output)) as {
              value: { city: string; fahrenheit: number }
            }
            return { type: 'text', text: `Warmest: ${result.value.city} at ${result.value.fahrenheit} °F.` }
          },
        },
      ],
    })
    servers.push(server)
    const model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL })
    const result = await defineAgent({ model, tools: [runCode] }).run({
      prompt: 'Which city is warmer, in °F?',
    })
    expect(result.reason === 'final' && result.answer).toBe('Warmest: Lisbon at 66 °F.')
    expect(calls).toEqual(['weather Lisbon', 'weather Oslo', 'convert 19'])
    // MockGPT received the tool with its description, and the script's result as the tool message.
    const first = server.mock.requests[0]!.body as {
      tools: { function: { name: string; description: string } }[]
    }
    expect(first.tools.map((tool) => tool.function.name)).toEqual(['run_code'])
    expect(first.tools[0]!.function.description).toContain('declare function to_fahrenheit(input: {')
    const second = server.mock.requests[1]!.body as { messages: { role: string; content: string }[] }
    const tool = second.messages.find((message) => message.role === 'tool')
    expect(JSON.parse(tool!.content)).toEqual({
      ok: true,
      value: { city: 'Lisbon', fahrenheit: 66 },
      logs: [{ level: 'log', text: 'warmest Lisbon' }],
    })
  })
})
