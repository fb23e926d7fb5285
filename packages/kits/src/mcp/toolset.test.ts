import { DuplicateIdError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { connectMcpServer, createMcpToolset, type McpConnection } from '@agent-core/kits/mcp'
import { ApprovalRequiredError, defineToolLifecycle } from '@agent-core/kits/tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, fixtureOverHttp, type LoopbackServer } from './testing/servers.js'

const clock = defineModelTool({
  id: 'clock',
  description: 'The time',
  inputSchema: {},
  execute: () => '12:00',
})

describe('createMcpToolset', () => {
  let upstream: LoopbackServer
  let alpha: McpConnection<'alpha'>
  let beta: McpConnection<'beta'>
  beforeAll(async () => {
    upstream = await fixtureOverHttp()
    alpha = await connectMcpServer({ name: 'alpha', transport: { type: 'http', url: upstream.url } })
    beta = await connectMcpServer({
      name: 'beta',
      transport: { type: 'http', url: upstream.url },
      filter: (tool) => tool.name === 'echo',
    })
  })
  afterAll(async () => {
    await alpha.close()
    await beta.close()
    await upstream.close()
  })

  it('joins local tools and the tools of several servers, local first', () => {
    const toolset = createMcpToolset({ servers: [alpha, beta], tools: [clock] })
    expect(toolset.tools.map((tool) => tool.id)).toEqual([
      'clock',
      ...alpha.tools.map((tool) => tool.id),
      'beta__echo',
    ])
    expect(toolset.lifecycles.every((lifecycle) => lifecycle.id === lifecycle.tool.id)).toBe(true)
  })

  it('refuses a collision, naming both origins', () => {
    const impostor = defineModelTool({
      id: 'alpha__echo',
      description: 'Local echo',
      inputSchema: {},
      execute: () => 'x',
    })
    expect(() => createMcpToolset({ servers: [alpha], tools: [impostor] })).toThrow(
      'Two tools would have the id "alpha__echo": the local tool "alpha__echo" and tool "echo" of MCP server "alpha".',
    )
    let error: unknown
    try {
      createMcpToolset({ servers: [beta, beta] })
    } catch (caught) {
      error = caught
    }
    expect(DuplicateIdError.isInstance(error)).toBe(true)
    expect((error as DuplicateIdError).details).toMatchObject({
      id: 'beta__echo',
      kind: 'tool',
      origins: ['tool "echo" of MCP server "beta"', 'tool "echo" of MCP server "beta"'],
    })
  })

  it('gives every MCP tool the same hooks, and runs through one registry', async () => {
    const toolset = createMcpToolset({
      servers: [alpha],
      tools: [clock],
      hooks: (tool) =>
        tool.mcp.annotations?.readOnlyHint
          ? undefined
          : {
              authorize() {
                throw new ApprovalRequiredError('Needs a person.')
              },
            },
    })
    const registry = toolset.registry({ timeoutMs: 5_000 })
    expect((await registry.run({ toolCallId: '1', toolId: 'clock', input: {} })).status).toBe('completed')
    expect(
      (await registry.run({ toolCallId: '2', toolId: 'alpha__echo', input: { text: 'a' } })).status,
    ).toBe('completed')
    expect((await registry.run({ toolCallId: '3', toolId: 'alpha__slow', input: { ms: 1 } })).status).toBe(
      'pending',
    )
  })

  it('changes only at refresh, and keeps the old set when the new one collides', async () => {
    const own = await connectMcpServer({ name: 'gamma', transport: { type: 'http', url: upstream.url } })
    try {
      const local = defineToolLifecycle(
        defineModelTool({
          id: 'gamma__clash',
          description: 'Local',
          inputSchema: {},
          execute: () => 'local',
        }),
      )
      const toolset = createMcpToolset({ servers: [own], tools: [local] })
      const before = toolset.lifecycles
      const registry = toolset.registry()
      await registry.run({ toolCallId: 'a', toolId: 'gamma__add_tool', input: { name: 'extra' } })
      expect(await eventually(() => toolset.toolsChanged)).toBe(true)
      expect(toolset.lifecycles).toBe(before)
      const refresh = await toolset.refresh()
      expect(refresh).toEqual({
        changed: true,
        servers: [{ name: 'gamma', changed: true, added: ['gamma__extra'], removed: [], updated: [] }],
      })
      expect(toolset.tools.map((tool) => tool.id)).toContain('gamma__extra')
      const current = toolset.lifecycles
      await registry.run({ toolCallId: 'b', toolId: 'gamma__add_tool', input: { name: 'clash' } })
      expect(await eventually(() => toolset.toolsChanged)).toBe(true)
      await expect(toolset.refresh()).rejects.toThrow(
        'Two tools would have the id "gamma__clash": the local tool "gamma__clash" and tool "clash" of MCP server "gamma".',
      )
      expect(toolset.lifecycles).toBe(current)
    } finally {
      await own.close()
    }
  })
})
