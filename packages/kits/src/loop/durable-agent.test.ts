import { BudgetExhaustedError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
import { ModelProviderError } from '@agent-core/kits/models'
import { describe, expect, it } from 'vitest'
import {
  type AgentRunState,
  agentRunStep,
  createAgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  isAgentRunState,
  type ScriptedTurn,
} from './index.js'

function setup(
  turns: readonly ScriptedTurn[],
  modelBudget: { maxCalls: number; maxCallsPerAttempt: number },
) {
  const effects = new Map<string, number>()
  const lookups: string[] = []
  const charge = defineModelTool<{ amount: number }, string>({
    id: 'charge',
    description: 'Charges the card',
    inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
    execute: ({ amount }, { invocationId }) => {
      effects.set(invocationId, (effects.get(invocationId) ?? 0) + 1)
      return `charged ${amount}`
    },
  })
  const lookup = defineAgentTool(
    defineModelTool({
      id: 'lookup',
      description: 'Reads the balance',
      inputSchema: {},
      execute: (_input, { invocationId }) => {
        lookups.push(invocationId)
        return 100
      },
    }),
    { replayPolicy: 'safe' },
  )
  const model = createScriptedModel(turns)
  const agent = defineAgent({ model, tools: [charge, lookup] })
  const task = defineDurableTask(
    { id: 'agent-run', revision: '1', isState: isAgentRunState, steps: [agentRunStep(agent)] },
    { modelBudget, maxAttempts: 3 },
  )
  return { task, effects, lookups, model, store: createMemoryDurableStore() }
}

describe('agentRunStep: an agent run as one durable step', () => {
  it('a restarted attempt continues from the saved progress: no saved call runs again, no model call is repeated', async () => {
    const { task, effects, lookups, model, store } = setup(
      [
        { toolCalls: [{ name: 'lookup' }, { name: 'charge', input: { amount: 30 } }] },
        { error: new ModelProviderError('the worker was restarted', { kind: 'network' }) },
        { text: 'Charged 30.' },
      ],
      { maxCalls: 4, maxCallsPerAttempt: 2 },
    )
    const input = createAgentRunState({ prompt: 'Charge 30 if the balance allows.', runId: 'run-1' })
    await expect(task.run({ taskId: 't1', store, input })).rejects.toThrow('the worker was restarted')
    const saved = (await task.inspect({ taskId: 't1', store }))!
    expect(saved).toMatchObject({ status: 'running', attemptCount: 1 })
    expect((saved.state as AgentRunState).messages.filter((m) => m.role === 'tool')).toHaveLength(2)

    const done = await task.run({ taskId: 't1', store })
    expect(done).toMatchObject({ status: 'done', reason: 'final', answer: 'Charged 30.', runId: 'run-1' })
    expect([...effects.values()]).toEqual([1])
    expect(lookups).toHaveLength(1)
    expect(model.calls).toHaveLength(3)
    model.assertDone()
  })

  it("builds the run's attempt budget from maxModelCalls, so a resumed run cannot overspend", async () => {
    const { task, store } = setup(
      [
        { toolCalls: [{ name: 'lookup' }] },
        { error: new ModelProviderError('the worker was restarted', { kind: 'network' }) },
        { text: 'never reached' },
      ],
      { maxCalls: 2, maxCallsPerAttempt: 2 },
    )
    await expect(
      task.run({ taskId: 't2', store, input: createAgentRunState({ prompt: 'go' }) }),
    ).rejects.toThrow()
    const error = await task.run({ taskId: 't2', store }).catch((e: unknown) => e)
    expect(BudgetExhaustedError.isInstance(error)).toBe(true)
  })

  it('refuses options the step sets itself, and starts no run without a conversation', () => {
    const { task } = setup([], { maxCalls: 1, maxCallsPerAttempt: 1 })
    expect(task.id).toBe('agent-run')
    const agent = defineAgent({ model: createScriptedModel([]) })
    expect(() => agentRunStep(agent, { request: { onProgress: () => undefined } as never })).toThrow(
      expect.objectContaining({
        code: 'invalid-definition',
        details: expect.objectContaining({ field: 'options.request.onProgress' }),
      }),
    )
    expect(() => agentRunStep({} as never)).toThrow(expect.objectContaining({ code: 'invalid-definition' }))
    expect(() => createAgentRunState({})).toThrow(expect.objectContaining({ code: 'invalid-input' }))
    expect(isAgentRunState(createAgentRunState({ prompt: 'x' }))).toBe(true)
    expect(isAgentRunState({ version: 2 })).toBe(false)
  })
})
