/** Agents as tools: the child's answer as output, its events under the call, budgets, and a child's approval resumed from JSON. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineModelTool } from '@agent-core/core/tools'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type AgentEvent,
  type AgentRunState,
  agentAsTool,
  type ChildStateStore,
  createAgentBudget,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  type ScriptedTurn,
} from './index.js'

const ask = (prompt: string): ScriptedTurn => ({ toolCalls: [{ name: 'research', input: { prompt } }] })

describe('agentAsTool', () => {
  it('returns the child’s answer as the tool output, with its own history and its events under the call', async () => {
    const childModel = createScriptedModel([{ text: 'Three sources agree.' }])
    const researcher = defineAgent({ model: childModel, system: 'You research.' })
    const lead = defineAgent({
      model: createScriptedModel([ask('Check the claim.'), { text: 'The claim holds.' }]),
      tools: [agentAsTool(researcher, { id: 'research', description: 'Researches a question' })],
    })
    const events: AgentEvent[] = []
    const result = await lead.run({
      prompt: 'Does the claim hold?',
      onEvent: (event) => void events.push(event),
    })
    expect(result.reason === 'final' && result.answer).toBe('The claim holds.')
    expect(result.messages[2]).toMatchObject({ role: 'tool', content: 'Three sources agree.' })
    // The child read only its prompt, not the parent's conversation.
    expect(childModel.calls[0]?.messages.filter((message) => message.role !== 'system')).toEqual([
      { role: 'user', content: 'Check the claim.' },
    ])
    const nested = events.filter((event) => event.type === 'tool-progress')
    expect(nested.map((event) => (event as { data?: { type?: string } }).data?.type)).toContain('run-done')
  })

  it('takes the child’s turns, tokens and tool calls off the caller’s budget', async () => {
    const lookup = defineModelTool({
      id: 'lookup',
      description: 'Looks up',
      inputSchema: {},
      execute: () => 'found',
    })
    const researcher = defineAgent({
      model: createScriptedModel([
        {
          toolCalls: [{ name: 'lookup', input: {} }],
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        },
        { text: 'Found it.', usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
      ]),
      tools: [lookup],
    })
    const budget = createAgentBudget({ turns: 5, tokens: 1000, toolCalls: 3 })
    const lead = defineAgent({
      model: createScriptedModel([ask('Find it.'), { text: 'Done.' }]),
      tools: [agentAsTool(researcher, { id: 'research', description: 'Researches', budget })],
    })
    await lead.run({ prompt: 'Go.' })
    expect(budget.remaining()).toEqual({ turns: 3, tokens: 960, toolCalls: 2 })
  })

  it('stops a child that needs more turns than are left, and refuses to start one with nothing left', async () => {
    const lookup = defineModelTool({
      id: 'lookup',
      description: 'Looks up',
      inputSchema: {},
      execute: () => 'found',
    })
    const researcher = defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'lookup', input: {} }] },
        { toolCalls: [{ name: 'lookup', input: {} }] },
        { text: 'never' },
      ]),
      tools: [lookup],
    })
    const budget = createAgentBudget({ turns: 1 })
    const lead = defineAgent({
      model: createScriptedModel([ask('Dig.'), ask('Dig again.'), { text: 'Gave up.' }]),
      tools: [agentAsTool(researcher, { id: 'research', description: 'Researches', budget })],
    })
    const result = await lead.run({ prompt: 'Go.' })
    expect(result.reason === 'final' && result.answer).toBe('Gave up.')
    const tools = result.messages.filter((message) => message.role === 'tool')
    expect(tools[0]).toMatchObject({ isError: true })
    expect(tools[0]?.content).toContain('used up its 1 turns')
    expect(tools[1]?.content).toContain('has no turns left')
    expect(budget.remaining().turns).toBe(0)
  })
})

describe('a child that suspends on an approval', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loop-agent-tool-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** A store on a JSON file, so a fresh set of agents (as in another process) finds the child's state. */
  function fileStore(): ChildStateStore {
    const file = join(dir, 'children.json')
    const read = (): Record<string, AgentRunState> => {
      try {
        return JSON.parse(readFileSync(file, 'utf8'))
      } catch {
        return {}
      }
    }
    return {
      get: (key) => read()[key],
      set: (key, state) => writeFileSync(file, JSON.stringify({ ...read(), [key]: state })),
      delete: (key) => {
        const all = read()
        delete all[key]
        writeFileSync(file, JSON.stringify(all))
      },
    }
  }

  function build(leadTurns: readonly ScriptedTurn[], childTurns: readonly ScriptedTurn[], refunds: number[]) {
    const refund = defineAgentTool(
      defineModelTool<{ amount: number }, string>({
        id: 'refund',
        description: 'Refunds',
        inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
        execute: ({ amount }) => {
          refunds.push(amount)
          return `refunded ${amount}`
        },
      }),
      { approval: 'ask' },
    )
    const clerk = defineAgent({ model: createScriptedModel(childTurns), tools: [refund] })
    return defineAgent({
      model: createScriptedModel(leadTurns),
      tools: [agentAsTool(clerk, { id: 'research', description: 'Handles refunds', store: fileStore() })],
    })
  }

  it('surfaces as a pending call of the parent and resumes from the parent’s JSON state', async () => {
    const refunds: number[] = []
    const childTurns: ScriptedTurn[] = [
      { toolCalls: [{ name: 'refund', input: { amount: 30 } }] },
      { text: 'Refunded 30.' },
    ]
    const leadTurns: ScriptedTurn[] = [ask('Refund 30.'), { text: 'All done.' }]
    const first = await build(leadTurns, childTurns, refunds).run({ prompt: 'Refund 30.', defer: true })
    expect(first.reason).toBe('suspended')
    const pending = first.reason === 'suspended' ? first.pending : []
    expect(pending).toEqual([expect.objectContaining({ toolId: 'research', waitingFor: 'approval' })])
    expect(pending[0]?.reason).toContain('refund')
    expect(refunds).toEqual([])
    // Fresh agents, the parent's state through JSON: only the scripts' remaining turns are left.
    const again = build(leadTurns.slice(1), childTurns.slice(1), refunds)
    const second = await again.run({
      resume: JSON.parse(JSON.stringify(first.state)),
      outcomes: {
        [pending[0]!.toolCallId]: { type: 'approve', toolCallId: pending[0]!.toolCallId, by: 'person' },
      },
      defer: true,
    })
    expect(second.reason === 'final' && second.answer).toBe('All done.')
    expect(refunds).toEqual([30])
    expect(second.messages.find((message) => message.role === 'tool')).toMatchObject({
      content: 'Refunded 30.',
    })
  })
})
