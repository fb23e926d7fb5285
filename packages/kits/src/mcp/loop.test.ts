/** MCP tools in an agent run of the loop kit: approvals, suspension and resumption, cancellation, refresh. */
import { MemoryDiagnosticSink } from '@agent-core/core'
import { createScriptedModel, defineAgent, defineAgentTool } from '@agent-core/kits/loop'
import { connectMcpServer, createMcpToolset, type McpConnection } from '@agent-core/kits/mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, eventuallyAsync, fixtureOverHttp, type LoopbackServer } from './testing/servers.js'

describe('MCP tools in an agent run', () => {
  let upstream: LoopbackServer
  let fixture: McpConnection<'fixture'>
  beforeAll(async () => {
    upstream = await fixtureOverHttp()
    fixture = await connectMcpServer({ name: 'fixture', transport: { type: 'http', url: upstream.url } })
  })
  afterAll(async () => {
    await fixture.close()
    await upstream.close()
  })

  const agentTools = () =>
    fixture
      .lifecycles()
      .map((lifecycle) =>
        lifecycle.id === 'fixture__slow' ? defineAgentTool(lifecycle, { approval: 'ask' }) : lifecycle,
      )

  it('runs a read-only MCP tool, suspends on one behind an approval, and resumes from JSON', async () => {
    const memory = new MemoryDiagnosticSink()
    const agent = defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'fixture__echo', input: { text: 'order A-7' } }] },
        { toolCalls: [{ name: 'fixture__slow', input: { ms: 5 } }] },
        (request) => ({ text: `Done: ${request.messages.at(-1)?.content}` }),
      ]),
      tools: agentTools(),
    })
    const first = await agent.run({ prompt: 'Process order A-7', defer: true }, { diagnostics: memory.sink })
    expect(first.reason).toBe('suspended')
    if (first.reason !== 'suspended') return
    expect(first.pending.map((call) => [call.toolId, call.waitingFor])).toEqual([
      ['fixture__slow', 'approval'],
    ])
    expect(first.messages.find((message) => message.role === 'tool')).toMatchObject({ content: 'order A-7' })
    const calls = () =>
      memory.events.filter((event) => event.kind === 'mcp-call-start').map((event) => event.data.tool)
    expect(calls()).toEqual(['echo'])

    const stored = JSON.parse(JSON.stringify(first.state))
    const { toolCallId } = first.pending[0]!
    const second = await agent.run(
      { resume: stored, outcomes: { [toolCallId]: { type: 'approve', toolCallId, by: 'person' } } },
      { diagnostics: memory.sink },
    )
    expect(second.reason).toBe('final')
    expect(second.reason === 'final' && second.answer).toBe('Done: after 5 ms')
    expect(calls()).toEqual(['echo', 'slow'])
  })

  it('answers an approval in the run and lets the model read a refusal', async () => {
    const agent = defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'fixture__slow', input: { ms: 1 } }] },
        (request) => ({ text: String(request.messages.at(-1)?.content) }),
      ]),
      tools: agentTools(),
    })
    const result = await agent.run({
      prompt: 'Go',
      resolveApproval: () => ({ type: 'reject', reason: 'Not now.', instruction: 'Ask again tomorrow.' }),
    })
    expect(result.reason === 'final' && result.answer).toMatch(
      /Not now\.\nInstruction from the person who refused it: Ask again tomorrow\./,
    )
  })

  it('cancels an MCP call when the run is stopped (the server gets the cancellation)', async () => {
    const agent = defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'fixture__hang', input: {} }] },
        { text: 'unreachable' },
      ]),
      tools: fixture.lifecycles(),
    })
    const memory = new MemoryDiagnosticSink()
    const controller = new AbortController()
    const running = agent.run({ prompt: 'Hang' }, { signal: controller.signal, diagnostics: memory.sink })
    expect(await eventually(() => memory.events.some((event) => event.kind === 'mcp-call-start'))).toBe(true)
    controller.abort(new Error('stop button'))
    expect((await running).reason).toBe('stopped')
    expect(memory.events.find((event) => event.kind === 'mcp-call-end')?.data).toMatchObject({
      outcome: 'aborted',
      tool: 'hang',
    })
    const cancellations = async () => {
      const check = await defineAgent({
        model: createScriptedModel([
          { toolCalls: [{ name: 'fixture__cancellations', input: {} }] },
          (request) => ({ text: String(request.messages.at(-1)?.content) }),
        ]),
        tools: fixture.lifecycles(),
      }).run({ prompt: 'cancellations?' })
      return check.reason === 'final' ? (JSON.parse(check.answer) as string[]) : []
    }
    expect(
      await eventuallyAsync(async () => (await cancellations()).some((reason) => /stop button/.test(reason))),
    ).toBe(true)
  })

  it('offers new server tools from the next run on, after the refresh at the boundary', async () => {
    const own = await connectMcpServer({ name: 'fixture', transport: { type: 'http', url: upstream.url } })
    try {
      const toolset = createMcpToolset({ servers: [own] })
      const offered: string[][] = []
      const model = createScriptedModel([
        (request) => {
          offered.push((request.tools ?? []).map((tool) => tool.name))
          return { toolCalls: [{ name: 'fixture__add_tool', input: { name: 'extra' } }] }
        },
        (request) => {
          offered.push((request.tools ?? []).map((tool) => tool.name))
          return { text: 'added' }
        },
        (request) => {
          offered.push((request.tools ?? []).map((tool) => tool.name))
          return { text: 'second run' }
        },
      ])
      await defineAgent({ model, tools: toolset.lifecycles }).run({ prompt: 'Add a tool' })
      // Both turns of the first run saw one set, although the server changed it in between.
      expect(offered[0]).toEqual(offered[1])
      expect(offered[1]).not.toContain('fixture__extra')
      expect(await eventually(() => toolset.toolsChanged)).toBe(true)
      await toolset.refresh()
      await defineAgent({ model, tools: toolset.lifecycles }).run({ prompt: 'Again' })
      expect(offered[2]).toContain('fixture__extra')
    } finally {
      await own.close()
    }
  })
})
