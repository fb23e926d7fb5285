/**
 * Tools whose schemas are zod, valibot or arktype, served over MCP: clients see each library's JSON
 * Schema, and calls are validated by the library itself (its issues are what the client reads).
 */
import { defineModelTool } from '@agent-core/core/tools'
import { type McpHttpServerHandle, serveMcp } from '@agent-core/kits/mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'

const weather = defineModelTool({
  id: 'weather',
  description: 'Weather in a city',
  inputSchema: z.object({ city: z.string().trim().min(1) }),
  outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  execute: ({ city }) => ({ city, celsius: 19 }),
})
const shout = defineModelTool({
  id: 'shout',
  description: 'Shouts a word',
  inputSchema: toStandardJsonSchema(v.object({ word: v.pipe(v.string(), v.minLength(2)) })),
  execute: ({ word }) => word.toUpperCase(),
})
const add = defineModelTool({
  id: 'add',
  description: 'Adds',
  inputSchema: type({ a: 'number', b: 'number' }),
  execute: ({ a, b }) => String(a + b),
})

describe('serveMcp with Standard Schema tools', () => {
  let handle: McpHttpServerHandle
  let sdk: Client
  beforeAll(async () => {
    handle = await serveMcp([weather, shout, add], { type: 'http' }, { name: 'schemas', version: '1.0.0' })
    sdk = new Client({ name: 'test-client', version: '1.0.0' })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(handle.url!)))
  })
  afterAll(async () => {
    await sdk?.close()
    await handle?.close()
  })

  it("publishes each library's JSON Schema, input and output", async () => {
    const { tools } = await sdk.listTools()
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    expect(byName.weather?.inputSchema).toMatchObject({
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string', minLength: 1 } },
    })
    expect(byName.weather?.outputSchema).toMatchObject({
      type: 'object',
      required: ['city', 'celsius'],
      properties: { celsius: { type: 'number' } },
    })
    expect(byName.shout?.inputSchema).toMatchObject({
      properties: { word: { type: 'string', minLength: 2 } },
    })
    expect(byName.add?.inputSchema).toMatchObject({
      required: ['a', 'b'],
      properties: { a: { type: 'number' } },
    })
    for (const tool of tools) expect(tool.inputSchema).not.toHaveProperty('$schema')
  })

  it('validates calls through the library: transforms apply, issues come back to the client', async () => {
    expect(await sdk.callTool({ name: 'weather', arguments: { city: '  Lisbon ' } })).toMatchObject({
      structuredContent: { city: 'Lisbon', celsius: 19 },
    })
    expect(await sdk.callTool({ name: 'shout', arguments: { word: 'hey' } })).toMatchObject({
      content: [{ type: 'text', text: 'HEY' }],
    })
    expect(await sdk.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    const refused = await sdk.callTool({ name: 'shout', arguments: { word: 'x' } })
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.content)).toContain('/word')
    const wrongType = await sdk.callTool({ name: 'add', arguments: { a: 'two', b: 3 } })
    expect(wrongType.isError).toBe(true)
    expect(JSON.stringify(wrongType.content)).toContain('/a')
  })
})
