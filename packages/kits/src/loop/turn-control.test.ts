import { InvalidInputError, InvalidOutputError, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { signToolCall } from '@agent-core/kits/tools'
import { describe, expect, it } from 'vitest'
import { type AgentEvent, createScriptedModel, defineAgent, defineAgentTool } from './index.js'

const object = { type: 'object' } as const

function shop() {
  const ran: string[] = []
  const tool = (id: string) =>
    defineModelTool({
      id,
      description: id,
      inputSchema: object,
      execute: (input, { invocationId }) => {
        ran.push(`${id} ${JSON.stringify(input)} ${invocationId}`)
        return `${id} done`
      },
    })
  const refund = defineAgentTool(
    defineModelTool<{ amount: number }, string>({
      id: 'refund',
      description: 'Refunds',
      inputSchema: {
        type: 'object',
        required: ['amount'],
        additionalProperties: false,
        properties: { amount: { type: 'number', exclusiveMinimum: 0 } },
      },
      execute: ({ amount }, { invocationId }) => {
        ran.push(`refund ${amount} ${invocationId}`)
        return `refunded ${amount}`
      },
    }),
    { approval: () => ({ type: 'ask', reason: 'A manager approves refunds.' }) },
  )
  return { ran, tools: [tool('lookup'), tool('search'), refund] }
}

const offered = (request: { tools?: readonly { name: string }[] | undefined }) =>
  (request.tools ?? []).map((tool) => tool.name)

describe('per-run and per-turn tools', () => {
  it('run({ tools }) narrows the tools the model is offered; a call of another tool is refused', async () => {
    const { ran, tools } = shop()
    const model = createScriptedModel([{ toolCalls: [{ name: 'search', input: {} }] }, { text: 'ok' }])
    const events: AgentEvent[] = []
    const result = await defineAgent({ model, tools }).run({
      prompt: 'go',
      tools: ['lookup'],
      onEvent: (event) => void events.push(event),
    })
    expect(result.reason).toBe('final')
    expect(model.calls.map(offered)).toEqual([['lookup'], ['lookup']])
    expect(ran).toEqual([])
    expect(events.find((event) => event.type === 'tool-rejected')).toMatchObject({
      toolId: 'search',
      by: 'policy',
      reason: expect.stringContaining('not one of the tools of this turn'),
    })
  })

  it('refuses tool ids the agent does not have', async () => {
    const { tools } = shop()
    const agent = defineAgent({ model: createScriptedModel([{ text: 'x' }]), tools })
    await expect(agent.run({ prompt: 'go', tools: ['nope'] })).rejects.toMatchObject({
      details: { field: 'request.tools' },
    })
    await expect(agent.run({ prompt: 'go', tools: 'lookup' as never })).rejects.toBeInstanceOf(
      InvalidInputError,
    )
  })

  it('beforeTurn returns the tools and toolChoice of the next model call', async () => {
    const { tools } = shop()
    const model = createScriptedModel([{ toolCalls: [{ name: 'lookup', input: {} }] }, { text: 'done' }])
    const agent = defineAgent({
      model,
      tools,
      beforeTurn: ({ turn }) =>
        turn === 1 ? { tools: ['lookup'], toolChoice: { name: 'lookup' } } : { toolChoice: 'none' },
    })
    const result = await agent.run({ prompt: 'go' })
    expect(result.reason).toBe('final')
    expect(model.calls.map(offered)).toEqual([['lookup'], ['lookup', 'search', 'refund']])
    expect(model.calls.map((call) => call.toolChoice)).toEqual([{ name: 'lookup' }, 'none'])
  })

  it("beforeTurn may only narrow the run's tools, and must return what it may", async () => {
    const { tools } = shop()
    const narrowing = defineAgent({
      model: createScriptedModel([{ text: 'x' }]),
      tools,
      beforeTurn: () => ({ tools: ['search'] }),
    })
    const refused = await narrowing.run({ prompt: 'go', tools: ['lookup'] })
    expect(refused.reason === 'error' && refused.error).toBeInstanceOf(InvalidOutputError)
    const wrong = defineAgent({
      model: createScriptedModel([{ text: 'x' }]),
      tools,
      beforeTurn: () => ({ toolChoice: 'sometimes' }) as never,
    })
    const bad = await wrong.run({ prompt: 'go' })
    expect(bad.reason === 'error' && bad.error).toMatchObject({ details: { hook: 'beforeTurn' } })
  })
})

describe('forced toolChoice: { name, input }', () => {
  it('runs that tool before the first model call, through its lifecycle', async () => {
    const { ran, tools } = shop()
    const model = createScriptedModel([{ text: 'looked up' }])
    const result = await defineAgent({ model, tools }).run({
      prompt: 'go',
      toolChoice: { name: 'lookup', input: { id: 7 } },
    })
    expect(result.reason).toBe('final')
    expect(ran).toEqual([expect.stringMatching(/^lookup \{"id":7\} inv_/)])
    // The model's first call reads the forced call and its result.
    const first = model.calls[0]!.messages
    expect(first.at(-2)).toMatchObject({
      role: 'assistant',
      toolCalls: [{ name: 'lookup', arguments: '{"id":7}' }],
    })
    expect(first.at(-1)).toMatchObject({ role: 'tool', content: 'lookup done' })
  })
})

describe('one lifecycle pass per call', () => {
  it('an approval decided in this process continues the same pass: one tool-call span, select/protocol/inspect once', async () => {
    const { ran, tools } = shop()
    const memory = new MemoryDiagnosticSink()
    const model = createScriptedModel([
      { toolCalls: [{ name: 'refund', input: { amount: 30 } }] },
      { text: 'ok' },
    ])
    const result = await defineAgent({
      model,
      tools,
      decisionKeys: ['a-test-secret-of-at-least-32-chars!'],
    }).run({ prompt: 'go', resolveApproval: () => ({ type: 'approve' }) }, { diagnostics: memory.sink })
    expect(result.reason).toBe('final')
    expect(ran).toHaveLength(1)
    const spans = memory.ofKind('tool-call-start')
    expect(spans).toHaveLength(1)
    const phases = memory.events
      .filter((event) => event.kind === 'phase-enter' && event.parentSpanId === spans[0]!.spanId)
      .map((event) => event.data.phase)
    expect(phases).toEqual([
      'select',
      'protocol',
      'inspect',
      'authorize',
      'decision',
      'resume',
      'execute',
      'complete',
      'render',
      'finalize',
    ])
  })

  it('approve with edits in this process: the edited input runs and the model reads that it changed', async () => {
    const { ran, tools } = shop()
    const model = createScriptedModel([
      { toolCalls: [{ name: 'refund', input: { amount: 300 } }] },
      { text: 'ok' },
    ])
    const result = await defineAgent({ model, tools }).run({
      prompt: 'go',
      resolveApproval: () => ({ type: 'approve', input: { amount: 100 } }),
    })
    expect(result.reason).toBe('final')
    expect(ran).toEqual([expect.stringMatching(/^refund 100 /)])
    expect(result.messages.find((message) => message.role === 'tool')?.content).toBe(
      'Note: the person who approved this call changed its input before it ran, from {"amount":300} to {"amount":100}.\nrefunded 100',
    )
  })

  it("refuses an edit that does not match the tool's input schema", async () => {
    const { ran, tools } = shop()
    const model = createScriptedModel([
      { toolCalls: [{ name: 'refund', input: { amount: 300 } }] },
      { text: 'ok' },
    ])
    const result = await defineAgent({ model, tools }).run({
      prompt: 'go',
      resolveApproval: () => ({ type: 'approve', input: { amount: -5 } }),
    })
    expect(result.reason).toBe('error')
    expect(result.reason === 'error' && result.error).toMatchObject({
      details: { hook: 'request.resolveApproval', field: 'input' },
    })
    expect(ran).toEqual([])
  })
})

describe('approve with edits from outside (resume)', () => {
  it('a signed edit resumes the stored call with the changed input; the signature must cover the edit', async () => {
    const key = 'a-test-secret-of-at-least-32-chars!'
    const { ran, tools } = shop()
    const turns = [{ toolCalls: [{ name: 'refund', input: { amount: 300 } }] }, { text: 'ok' }] as const
    const first = await defineAgent({
      model: createScriptedModel([turns[0]]),
      tools,
      decisionKeys: [key],
    }).run({
      prompt: 'go',
      defer: true,
    })
    expect(first.reason).toBe('suspended')
    const state = JSON.parse(JSON.stringify(first.state))
    const pending = state.pending[0]
    const edited = {
      type: 'approve',
      toolCallId: pending.toolCallId,
      by: 'person',
      input: { amount: 100 },
    } as const
    const agent = defineAgent({ model: createScriptedModel([turns[1]]), tools, decisionKeys: [key] })
    await expect(
      agent.run({
        resume: state,
        outcomes: { [pending.toolCallId]: { ...edited, signature: pending.signature } },
      }),
    ).rejects.toMatchObject({ code: 'unauthorized' })
    const signature = await signToolCall({ ...pending, input: { amount: 100 } }, key)
    const done = await agent.run({
      resume: state,
      outcomes: { [pending.toolCallId]: { ...edited, signature } },
    })
    expect(done.reason).toBe('final')
    expect(ran).toEqual([`refund 100 ${pending.invocationId}`])
    expect(done.messages.find((message) => message.role === 'tool')?.content).toContain('changed its input')
  })
})
