import assert from 'node:assert/strict'
import { defineModelTool } from '@agent-core/core/tools'
import { connectMcpServer, serveMcp } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'

// Our tools served over streamable HTTP on loopback, and used through this kit's client.
const sum = defineModelTool<{ a: number; b: number }, number>({
  id: 'sum',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    required: ['a', 'b'],
    properties: { a: { type: 'number' }, b: { type: 'number' } },
  },
  execute: ({ a, b }) => a + b,
})
const server = await serveMcp([sum], { type: 'http', port: 0 }, { name: 'math' })
const client = await connectMcpServer({ name: 'math', transport: { type: 'http', url: server.url ?? '' } })
try {
  assert.deepEqual(
    client.tools.map((tool) => tool.id),
    ['math__sum'],
  )
  const tools = ToolLifecycleRegistry.create(client.lifecycles())
  const done = await tools.run({ toolCallId: 'c1', toolId: 'math__sum', arguments: '{"a":2,"b":40}' })
  assert.equal(done.status === 'completed' && done.message.content, '42')
  // The input is checked against the server's schema before anything is sent.
  const wrong = await tools.run({ toolCallId: 'c2', toolId: 'math__sum', input: { a: 'two' } })
  assert.equal(wrong.status === 'failed' && wrong.phase, 'protocol')
} finally {
  await client.close()
  await server.close()
}
