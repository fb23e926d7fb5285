import { defineArtifactCatalog } from '@agent-core/kits/artifacts'
import { connectMcpServer, type McpConnection, type McpToolResult } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { everythingOverStdio } from './testing/servers.js'

describe('a third-party server: @modelcontextprotocol/server-everything over stdio', () => {
  let everything: McpConnection<'everything'>
  let tools: ToolLifecycleRegistry
  beforeAll(async () => {
    everything = await connectMcpServer({ name: 'everything', transport: everythingOverStdio() })
    tools = ToolLifecycleRegistry.create(everything.lifecycles())
  })
  afterAll(() => everything?.close())

  it('offers its tools, and says which one it cannot (task-based execution)', () => {
    const ids = everything.tools.map((tool) => tool.id)
    expect(ids).toEqual(
      expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image']),
    )
    for (const id of ids) expect(id).toMatch(/^everything__[A-Za-z0-9_-]+$/)
    expect(everything.skippedTools).toEqual([
      {
        name: 'simulate-research-query',
        reason: 'it requires task-based execution, which this client does not support',
      },
    ])
    expect(everything.serverInfo.name).toMatch(/everything/)
  })

  it('runs its tools through the lifecycle, draft-07 input schemas included', async () => {
    const echo = await tools.run({
      toolCallId: 'e1',
      toolId: 'everything__echo',
      input: { message: 'hello' },
    })
    expect(echo.status === 'completed' && echo.message.content).toBe('Echo: hello')
    const sum = await tools.run({
      toolCallId: 'e2',
      toolId: 'everything__get-sum',
      arguments: '{"a":2,"b":40}',
    })
    expect(sum.status === 'completed' && sum.message.content).toMatch(/42/)
    const wrong = await tools.run({ toolCallId: 'e3', toolId: 'everything__get-sum', input: { a: 'two' } })
    expect(wrong.status === 'failed' && wrong.phase).toBe('protocol')
  })

  it('keeps its structured content and its image as typed parts', async () => {
    const weather = await tools.run({
      toolCallId: 'e4',
      toolId: 'everything__get-structured-content',
      input: { location: 'Chicago' },
    })
    if (weather.status !== 'completed') throw new Error(weather.status)
    expect((weather.output as McpToolResult).structuredContent).toHaveProperty('temperature')
    expect(everything.tool('everything__get-structured-content').mcp.outputSchema).toBeDefined()
    const image = await tools.run({ toolCallId: 'e5', toolId: 'everything__get-tiny-image', input: {} })
    if (image.status !== 'completed') throw new Error(image.status)
    const parts = (image.output as McpToolResult).content
    expect(
      parts.some((part) => part.type === 'image' && part.mimeType === 'image/png' && part.data.length > 100),
    ).toBe(true)
    expect(image.message.content).toMatch(/\[image: image\/png, [\d.]+ KB\]/)
  })

  it('reads its resources through an artifact catalog', async () => {
    const listed = await everything.listResources()
    expect(listed.length).toBeGreaterThan(0)
    const first = listed[0]!
    const catalog = defineArtifactCatalog([everything.resources])
    const resource = await catalog.resolve({ resolverId: 'everything', artifactId: first.artifactId })
    expect(resource.uri).toBe(first.uri)
    expect(resource.contents.length).toBeGreaterThan(0)
  })
})
