import { InvalidDefinitionError, InvalidInputError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import { createScriptedModel, defineAgent, type ScriptedTurn } from './index.js'

const ran: string[] = []
const tool = (id: string) =>
  defineModelTool({
    id,
    description: `The ${id} tool`,
    inputSchema: {},
    execute: () => {
      ran.push(id)
      return `${id} ran`
    },
  })
const tools = ['search', 'read', 'shell'].map(tool)
const calls = (...names: string[]): ScriptedTurn[] => [
  { toolCalls: names.map((name, i) => ({ id: `c${i}`, name, input: {} })) },
  { text: 'done' },
]
const toolTexts = (messages: readonly { role: string; content: unknown }[]) =>
  messages.filter((m) => m.role === 'tool').map((m) => m.content as string)

describe('tool policy in the loop', () => {
  it('the model is offered only permitted tools, and a denied name is answered like an unknown one', async () => {
    ran.length = 0
    const model = createScriptedModel(calls('shell', 'nope', 'search'))
    const agent = defineAgent({ model, tools, toolPolicy: { deny: ['shell'] } })
    const result = await agent.run({ prompt: 'go' })
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(['search', 'read'])
    const [denied, unknown, allowed] = toolTexts(result.messages)
    expect(denied).toBe(unknown!.replaceAll('nope', 'shell'))
    expect(denied).toBe(
      'The call to shell failed: No tool "shell" is available. The tools available are: "search", "read".',
    )
    expect(allowed).toBe('search ran')
    expect(ran).toEqual(['search'])
    // The system text and tool descriptions the model read never name the hidden tool.
    expect(JSON.stringify(model.calls.map((c) => c.tools))).not.toContain('shell')
  })

  it('a run policy narrows the agent one; allow lists what is permitted, deny wins', async () => {
    ran.length = 0
    const model = createScriptedModel(calls('read', 'search'))
    const agent = defineAgent({ model, tools, toolPolicy: { deny: ['shell'] } })
    const result = await agent.run({
      prompt: 'go',
      toolPolicy: { allow: ['read', 'search', 'shell'], deny: ['read'] },
    })
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(['search'])
    expect(toolTexts(result.messages)).toEqual([
      'The call to read failed: No tool "read" is available. The tools available are: "search".',
      'search ran',
    ])
    expect(ran).toEqual(['search'])
  })

  it('request.tools cannot bring a hidden tool back', async () => {
    const model = createScriptedModel(calls('shell'))
    const agent = defineAgent({ model, tools })
    const result = await agent.run({
      prompt: 'go',
      tools: ['shell', 'read'],
      toolPolicy: { deny: ['shell'] },
    })
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(['read'])
    expect(toolTexts(result.messages)[0]).toMatch(/No tool "shell" is available/)
  })

  it('hides a denied tool from a resumed run', async () => {
    const approval = defineModelTool({
      id: 'deploy',
      description: 'Deploys',
      inputSchema: {},
      execute: () => 'deployed',
    })
    const { defineAgentTool } = await import('./index.js')
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] }, { text: 'ok' }]),
      tools: [defineAgentTool(approval, { approval: 'ask' })],
    })
    const first = await agent.run({ prompt: 'deploy', defer: true })
    expect(first.reason).toBe('suspended')
    const resumed = await agent.run({
      resume: JSON.parse(JSON.stringify(first.state)),
      outcomes: { d1: { type: 'approve', toolCallId: 'd1', by: 'person' } },
      toolPolicy: { deny: ['deploy'] },
    })
    expect(toolTexts(resumed.messages)).toEqual([
      'The call to deploy failed: No tool "deploy" is available. The tools available are: (none).',
    ])
  })

  it('refuses malformed policies', async () => {
    expect(() =>
      defineAgent({ model: createScriptedModel([]), tools, toolPolicy: { deny: 'shell' } as never }),
    ).toThrow(InvalidDefinitionError)
    const agent = defineAgent({ model: createScriptedModel([{ text: 'x' }]), tools })
    await expect(agent.run({ prompt: 'go', toolPolicy: { allow: [1] } as never })).rejects.toThrow(
      InvalidInputError,
    )
    await expect(agent.run({ prompt: 'go', toolPolicy: { only: [] } as never })).rejects.toThrow(
      /request\.toolPolicy\.only/,
    )
  })
})
