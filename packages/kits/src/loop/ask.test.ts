import { InvalidInputError, InvalidStateError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { toolRefusal } from '@agent-core/kits/tools'
import { describe, expect, it } from 'vitest'
import { AgentRunError, agentTrace, ask, createScriptedModel, defineAgent, defineAgentTool } from './index.js'

const clock = defineModelTool({
  id: 'clock',
  description: 'The time',
  inputSchema: {},
  execute: () => '12:00',
})
const broken = defineModelTool({
  id: 'broken',
  description: 'Always fails',
  inputSchema: {},
  execute: () => {
    throw new Error('disk full')
  },
})
const refund = defineAgentTool(
  defineModelTool<{ amount: number }, string>({
    id: 'refund',
    description: 'Refunds',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    execute: ({ amount }) => `refunded ${amount}`,
  }),
  { approval: 'ask' },
)

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('agentTrace', () => {
  it('lists every tool call with its result and why the run stopped', async () => {
    const agent = defineAgent({
      model: createScriptedModel([
        {
          text: 'Checking.',
          toolCalls: [
            { name: 'clock', input: {} },
            { name: 'broken', input: {} },
          ],
        },
        { text: 'It is noon.' },
      ]),
      tools: [clock, broken],
    })
    const result = await agent.run({ prompt: 'Time?' }, { app: undefined })
    const lines = agentTrace(result).split('\n')
    expect(lines[0]).toMatch(/^run run_\w+: 2 model call\(s\), \d+ tokens$/)
    expect(lines.slice(1)).toEqual([
      'step 1: the model called 2 tool(s) after saying "Checking."',
      '  clock {} -> 12:00',
      '  broken {} -> error: The call to broken failed: disk full',
      'stopped: the model answered and the answer was accepted',
    ])
  })

  it('shows what a suspended run waits for', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'refund', input: { amount: 5 } }] }]),
      tools: [refund],
    })
    const result = await agent.run({ prompt: 'Refund 5', defer: true })
    const trace = agentTrace(result)
    expect(trace).toContain(
      `refund {"amount":5} -> waiting for approval: Calls to refund need a person's approval.`,
    )
    expect(trace).toMatch(
      /stopped: suspended, waiting on 1 call\(s\): refund \(call_\w+\) waits for approval/,
    )
  })

  it('refuses what is not a result', () => {
    expect(() => agentTrace({} as never)).toThrow(InvalidInputError)
    expect(() => agentTrace(null as never)).toThrow(InvalidInputError)
  })
})

describe('ask', () => {
  it('returns the accepted answer', async () => {
    const agent = defineAgent({ model: createScriptedModel([{ text: 'Paris.' }]) })
    await expect(ask(agent, 'Capital of France?')).resolves.toBe('Paris.')
  })

  it('says which calls a suspended run waits on and how to resume', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'refund', input: { amount: 5 } }] }]),
      tools: [refund],
    })
    const error = (await thrown(ask(agent, 'Refund 5', { defer: true }))) as AgentRunError
    expect(AgentRunError.isInstance(error)).toBe(true)
    expect(error.details).toMatchObject({ reason: 'suspended', turns: 1 })
    expect(error.details.pending).toEqual([
      { toolCallId: expect.any(String), toolId: 'refund', waitingFor: 'approval' },
    ])
    expect(error.message).toMatch(
      /suspended on 1 call\(s\): refund .* waits for approval.*resume: error\.result\.state/,
    )
    expect(error.result.state.status).toBe('suspended')
  })

  it('names the limit reached and what to change', async () => {
    const agent = defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'clock', input: {} }] },
        { toolCalls: [{ name: 'clock', input: {} }] },
      ]),
      tools: [clock],
      maxTurns: 2,
    })
    const error = (await thrown(ask(agent, 'Loop'))) as AgentRunError
    expect(error.details.reason).toBe('turn-limit')
    expect(error.message).toMatch(/turn limit was reached after 2 model call\(s\).*maxTurns/)
  })

  it('carries the failure as its cause', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'refund', input: { amount: 5 } }] }]),
      tools: [refund],
    })
    const error = (await thrown(ask(agent, 'Refund 5'))) as AgentRunError
    expect(error.details.reason).toBe('error')
    expect(InvalidStateError.isInstance(error.cause)).toBe(true)
    expect(error.message).toMatch(/needs a person's approval.*resolveApproval/)
  })

  it('refuses bad input', async () => {
    const agent = defineAgent({ model: createScriptedModel([{ text: 'x' }]) })
    await expect(ask(agent, '')).rejects.toThrow(InvalidInputError)
    await expect(ask({} as never, 'x')).rejects.toThrow(InvalidInputError)
    await expect(ask(agent, 'x', { prompt: 'y' } as never)).rejects.toThrow(/request\.prompt/)
    await expect(ask(agent, 'x', null as never)).rejects.toThrow(InvalidInputError)
  })
})

describe('toolRefusal', () => {
  it('is the sentence the model reads about a refused call', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'refund', input: { amount: 5 } }] }, { text: 'ok' }]),
      tools: [refund],
    })
    const result = await agent.run({
      prompt: 'Refund 5',
      resolveApproval: () => ({ type: 'reject', reason: 'Too large.', instruction: 'Offer a voucher.' }),
    })
    const tool = result.messages.find((m) => m.role === 'tool')
    expect(tool?.content).toBe(
      toolRefusal({ by: 'person', reason: 'Too large.', instruction: 'Offer a voucher.', toolId: 'refund' }),
    )
    expect(toolRefusal({ by: 'policy' })).toBe(
      'The call was not run: it was refused by policy. The approval policy refused this call.',
    )
    expect(() => toolRefusal({ by: 'someone' } as never)).toThrow(InvalidInputError)
    expect(() => toolRefusal(null as never)).toThrow(InvalidInputError)
    expect(() => toolRefusal({ by: 'person', reason: 3 } as never)).toThrow(/decision\.reason/)
  })
})
