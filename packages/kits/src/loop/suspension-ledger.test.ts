import {
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  UnauthorizedError,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
import { ModelProviderError } from '@agent-core/kits/models'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, garbage } from '../testing/garbage.js'
import { describeSuspensionLedgerConformance } from '../testing/suspension-ledger-conformance.js'
import {
  type AgentRunState,
  agentRunStep,
  assertAgentRunState,
  createAgentRunState,
  createMemorySuspensionLedger,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  inspectAgentRunTask,
  isAgentRunState,
  resumeAgentRunTask,
  runAgentRunTask,
  type ScriptedTurn,
  SuspensionConsumedError,
  type SuspensionLedger,
  suspensionKey,
} from './index.js'

describeSuspensionLedgerConformance({
  describe,
  it,
  name: 'memory ledger',
  open: async () => ({ ledger: createMemorySuspensionLedger(), close: () => undefined }),
})

function refundAgent(
  turns: readonly ScriptedTurn[],
  options: { ledger?: SuspensionLedger; keys?: string[] } = {},
) {
  const refunds: string[] = []
  const refund = defineAgentTool(
    defineModelTool<{ orderId: string; amount: number }, string>({
      id: 'refund',
      description: 'Refunds an order',
      inputSchema: {
        type: 'object',
        required: ['orderId', 'amount'],
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      },
      execute: ({ orderId, amount }, { invocationId }) => {
        refunds.push(`${orderId}:${amount}:${invocationId}`)
        return `refunded ${amount} on ${orderId}`
      },
    }),
    { approval: 'ask' },
  )
  const model = createScriptedModel(turns)
  const agent = defineAgent({
    model,
    tools: [refund],
    ...(options.ledger ? { suspensionLedger: options.ledger } : {}),
    ...(options.keys ? { decisionKeys: options.keys } : {}),
  })
  return { agent, model, refunds }
}

const TWO_REFUNDS: ScriptedTurn = {
  toolCalls: [
    { name: 'refund', input: { orderId: 'A-1', amount: 250 } },
    { name: 'refund', input: { orderId: 'A-2', amount: 80 } },
  ],
}
const approve = (toolCallId: string, signature?: string) =>
  ({ type: 'approve', toolCallId, by: 'person', ...(signature ? { signature } : {}) }) as const

describe('a suspended state is resumed once', () => {
  it('a second resume with the same honest decision is refused, runs nothing and calls no model', async () => {
    const { agent, model, refunds } = refundAgent([
      TWO_REFUNDS,
      { text: 'Refunded both.' },
      { text: 'twice!' },
    ])
    const first = await agent.run({ prompt: 'Refund A-1 and A-2.', defer: true })
    expect(first.reason).toBe('suspended')
    const stored = JSON.stringify(first.state)
    expect(first.state.suspensionId).toMatch(/^suspension_/)
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }

    const done = await agent.run({ resume: JSON.parse(stored), outcomes })
    expect(done.reason === 'final' && done.answer).toBe('Refunded both.')
    expect(refunds).toHaveLength(2)

    const again = await agent.run({ resume: JSON.parse(stored), outcomes }).catch((error: unknown) => error)
    expect(SuspensionConsumedError.isInstance(again)).toBe(true)
    const error = again as SuspensionConsumedError
    expect(error.code).toBe('suspension-consumed')
    expect(error.message).toMatch(/already resumed/)
    expect(error.message).toMatch(/latest state/)
    expect(error.details).toMatchObject({
      field: 'resume',
      runId: first.runId,
      key: `${first.runId}/${first.state.suspensionId}`,
      decided: ['call_1_0', 'call_1_1'],
    })
    expect(refunds).toHaveLength(2) // nothing ran again
    expect(model.calls).toHaveLength(2) // and the model was not called again
  })

  it('two resumes at once: one runs, the other is refused', async () => {
    const { agent, refunds } = refundAgent([TWO_REFUNDS, { text: 'Done.' }, { text: 'Done again.' }])
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    const settled = await Promise.allSettled([
      agent.run({ resume: first.state, outcomes }),
      agent.run({ resume: first.state, outcomes }),
    ])
    expect(settled.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected'])
    const refused = settled.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(SuspensionConsumedError.isInstance(refused.reason)).toBe(true)
    expect(refunds).toHaveLength(2)
  })

  it('a refused resume (a forged signature, an outcome that does not fit) does not consume the suspension', async () => {
    const keys = ['a-32-byte-secret-kept-on-server!']
    const { agent, refunds } = refundAgent([TWO_REFUNDS, { text: 'Done.' }], { keys })
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    const [a, b] = first.state.pending
    await expect(
      agent.run({ resume: first.state, outcomes: { call_1_0: approve('call_1_0', 'v1.forged') } }),
    ).rejects.toSatisfy((error: unknown) => UnauthorizedError.isInstance(error))
    await expect(
      agent.run({ resume: first.state, outcomes: { call_9: approve('call_9') } }),
    ).rejects.toSatisfy((error: unknown) => InvalidInputError.isInstance(error))
    const done = await agent.run({
      resume: first.state,
      outcomes: { call_1_0: approve('call_1_0', a?.signature), call_1_1: approve('call_1_1', b?.signature) },
    })
    expect(done.reason).toBe('final')
    expect(refunds).toHaveLength(2)
  })

  it('partial decisions: the old state is consumed, the new suspension is resumed once in its turn', async () => {
    const { agent, refunds } = refundAgent([TWO_REFUNDS, { text: 'Done.' }])
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    const second = await agent.run({
      resume: first.state,
      outcomes: { call_1_0: approve('call_1_0') },
      defer: true,
    })
    expect(second.reason).toBe('suspended')
    expect(second.state.suspensionId).not.toBe(first.state.suspensionId)
    // A second approver working from the first state is told to load the latest one.
    await expect(
      agent.run({ resume: first.state, outcomes: { call_1_1: approve('call_1_1') } }),
    ).rejects.toSatisfy((error: unknown) => SuspensionConsumedError.isInstance(error))
    const done = await agent.run({ resume: second.state, outcomes: { call_1_1: approve('call_1_1') } })
    expect(done.reason).toBe('final')
    expect(refunds.map((line) => line.split(':')[0])).toEqual(['A-1', 'A-2'])
  })

  it('a resume without decisions consumes the state too, so the fresh suspension is the only one left', async () => {
    const { agent, refunds } = refundAgent([TWO_REFUNDS, { text: 'Done.' }])
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    const waitedAgain = await agent.run({ resume: first.state, defer: true })
    expect(waitedAgain.reason).toBe('suspended')
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    await expect(agent.run({ resume: first.state, outcomes })).rejects.toSatisfy((error: unknown) =>
      SuspensionConsumedError.isInstance(error),
    )
    expect((await agent.run({ resume: waitedAgain.state, outcomes })).reason).toBe('final')
    expect(refunds).toHaveLength(2)
  })

  it('agents sharing one ledger (two servers of one process pool) refuse each other’s repeats', async () => {
    const ledger = createMemorySuspensionLedger()
    const one = refundAgent([TWO_REFUNDS, { text: 'Done.' }], { ledger })
    const first = await one.agent.run({ prompt: 'Refund.', defer: true })
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    const two = refundAgent([{ text: 'Done.' }], { ledger })
    const three = refundAgent([{ text: 'Done again.' }], { ledger })
    expect((await two.agent.run({ resume: first.state, outcomes })).reason).toBe('final')
    await expect(three.agent.run({ resume: first.state, outcomes })).rejects.toSatisfy((error: unknown) =>
      SuspensionConsumedError.isInstance(error),
    )
    expect(three.refunds).toHaveLength(0)
    expect(ledger.size).toBe(1)
  })

  it('saved progress (a running state) resumes as often as a crash needs: it is recovery, not a decision', async () => {
    const { agent } = refundAgent([{ text: 'Hello.' }, { text: 'Hello again.' }])
    const running = createAgentRunState({ prompt: 'Hi', runId: 'run_p' })
    expect((await agent.run({ resume: running })).reason).toBe('final')
    expect((await agent.run({ resume: running })).reason).toBe('final')
  })
})

describe('suspensionKey', () => {
  it('is the run and suspension id, or a digest of the canonical JSON that ignores key order', async () => {
    const { agent } = refundAgent([TWO_REFUNDS])
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    expect(await suspensionKey(first.state)).toBe(`${first.runId}/${first.state.suspensionId}`)
    const { suspensionId: _, ...legacy } = first.state
    const key = await suspensionKey(legacy as AgentRunState)
    expect(key).toMatch(new RegExp(`^${first.runId}/sha256:[0-9a-f]{64}$`))
    const reordered = Object.fromEntries(Object.entries(legacy).reverse()) as unknown as AgentRunState
    expect(await suspensionKey(reordered)).toBe(key)
    expect(await suspensionKey({ ...legacy, turns: 2 } as AgentRunState)).not.toBe(key)
  })
})

describe('bad input', () => {
  it('defineAgent refuses a suspensionLedger that is not one', () => {
    const model = createScriptedModel([])
    for (const value of [null, 1, 'ledger', {}, { claim: () => undefined }, { get: () => undefined }]) {
      expect(() => defineAgent({ model, suspensionLedger: value as never })).toThrow(
        expect.objectContaining({
          code: 'invalid-definition',
          details: expect.objectContaining({ field: 'suspensionLedger' }),
        }),
      )
    }
  })

  it('a suspensionId is only read in a suspended state, as a non-empty string', () => {
    const running = createAgentRunState({ prompt: 'x' })
    expect(() => assertAgentRunState({ ...running, suspensionId: 'suspension_1' })).toThrow(
      expect.objectContaining({
        code: 'invalid-input',
        details: expect.objectContaining({ field: 'state.suspensionId' }),
      }),
    )
    expect(isAgentRunState({ ...running, suspensionId: '' })).toBe(false)
  })

  it('suspensionKey refuses what is not a state', async () => {
    for (const value of [undefined, null, 3, {}, { runId: '' }]) {
      await expect(suspensionKey(value as never)).rejects.toSatisfy((error: unknown) =>
        InvalidInputError.isInstance(error),
      )
    }
    await fc.assert(
      fc.asyncProperty(garbage, async (value) => {
        await suspensionKey(value as never).then(
          (key) => expect(typeof key).toBe('string'),
          (error: unknown) =>
            expect(error instanceof AppError || InvalidInputError.isInstance(error)).toBe(true),
        )
      }),
      { numRuns: 50 },
    )
  })

  it("a ledger that answers garbage is the ledger's fault: InvalidOutputError, and nothing runs", async () => {
    const lying: SuspensionLedger = {
      claim: async () => ({ key: 5 }) as never,
      get: async () => undefined,
    }
    const { agent, refunds } = refundAgent([TWO_REFUNDS, { text: 'Done.' }], { ledger: lying })
    const first = await agent.run({ prompt: 'Refund.', defer: true })
    await expect(
      agent.run({ resume: first.state, outcomes: { call_1_0: approve('call_1_0') } }),
    ).rejects.toSatisfy((error: unknown) => InvalidOutputError.isInstance(error))
    expect(refunds).toHaveLength(0)
  })
})

describe('a durable agent run resumed with decisions through the durable runner', () => {
  function durable(turns: readonly ScriptedTurn[], options: { ledger?: SuspensionLedger | false } = {}) {
    const ledger = options.ledger === false ? undefined : (options.ledger ?? createMemorySuspensionLedger())
    const built = refundAgent(turns, ledger ? { ledger } : {})
    const store = createMemoryDurableStore()
    const task = defineDurableTask(
      {
        id: 'refunds',
        revision: '1',
        isState: isAgentRunState,
        steps: [agentRunStep(built.agent, { request: { defer: true } })],
      },
      { store, modelBudget: { maxCalls: 20, maxCallsPerAttempt: 5 }, maxAttempts: 5 },
    )
    return { ...built, task, store, ledger }
  }

  it('suspends, is resumed once in a follow-up task, and a second resume is refused', async () => {
    const { task, refunds } = durable([TWO_REFUNDS, { text: 'Refunded both.' }])
    const input = createAgentRunState({ prompt: 'Refund A-1 and A-2.' })
    const started = await runAgentRunTask(task, { taskId: 'ticket-7', input })
    expect(started).toMatchObject({ taskId: 'ticket-7', state: { status: 'suspended' } })
    const head = await inspectAgentRunTask(task, { taskId: 'ticket-7' })
    expect(head).toMatchObject({ taskId: 'ticket-7', resumes: 0, checkpoint: { status: 'completed' } })

    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    const resumed = await resumeAgentRunTask(task, { taskId: 'ticket-7', outcomes })
    expect(resumed.taskId).toBe('ticket-7/resume-1')
    expect(resumed.state).toMatchObject({ status: 'done', reason: 'final', answer: 'Refunded both.' })
    expect(refunds).toHaveLength(2)

    const again = await resumeAgentRunTask(task, { taskId: 'ticket-7', outcomes }).catch(
      (error: unknown) => error,
    )
    expect(InvalidStateError.isInstance(again)).toBe(true) // the run is done: nothing waits
    // The same call after every restart finds where the run stands.
    expect(await runAgentRunTask(task, { taskId: 'ticket-7' })).toEqual(resumed)
    expect(await inspectAgentRunTask(task, { taskId: 'ticket-7' })).toMatchObject({
      taskId: 'ticket-7/resume-1',
      resumes: 1,
      resumedFrom: started.state,
    })
    expect(refunds).toHaveLength(2)
  })

  it('two resumes at once: one follow-up runs, the other is refused with the task that holds the run', async () => {
    const { task, refunds } = durable([TWO_REFUNDS, { text: 'Done.' }])
    await runAgentRunTask(task, { taskId: 't', input: createAgentRunState({ prompt: 'Refund.' }) })
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    const settled = await Promise.allSettled([
      resumeAgentRunTask(task, { taskId: 't', outcomes }),
      resumeAgentRunTask(task, { taskId: 't', outcomes }),
    ])
    const refused = settled.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    expect(SuspensionConsumedError.isInstance(refused.reason)).toBe(true)
    expect((refused.reason as SuspensionConsumedError).details.taskId).toBe('t/resume-1')
    expect(refunds).toHaveLength(2)
  })

  it('partial decisions chain follow-ups, and an attempt that fails after the claim is continued with the claimed decisions', async () => {
    const { task, refunds, model } = durable([
      TWO_REFUNDS,
      { error: new ModelProviderError('the worker was restarted', { kind: 'network' }) },
      { text: 'Both refunded.' },
    ])
    await runAgentRunTask(task, { taskId: 'q', input: createAgentRunState({ prompt: 'Refund.' }) })
    const partial = await resumeAgentRunTask(task, {
      taskId: 'q',
      outcomes: { call_1_0: approve('call_1_0') },
    })
    expect(partial).toMatchObject({ taskId: 'q/resume-1', state: { status: 'suspended' } })
    await expect(
      resumeAgentRunTask(task, { taskId: 'q', outcomes: { call_1_1: approve('call_1_1') } }),
    ).rejects.toThrow('the worker was restarted')
    expect(refunds).toHaveLength(2)
    const head = await inspectAgentRunTask(task, { taskId: 'q' })
    expect(head).toMatchObject({ taskId: 'q/resume-2', resumes: 2, checkpoint: { status: 'running' } })
    // A repeat of the decision is refused; continuing the run is the way on.
    await expect(
      resumeAgentRunTask(task, { taskId: 'q', outcomes: { call_1_1: approve('call_1_1') } }),
    ).rejects.toSatisfy((error: unknown) => InvalidStateError.isInstance(error))
    const done = await runAgentRunTask(task, { taskId: 'q' })
    expect(done).toMatchObject({ taskId: 'q/resume-2', state: { status: 'done', answer: 'Both refunded.' } })
    expect(refunds).toHaveLength(2)
    model.assertDone()
  })

  it('a claim whose follow-up task was never created is picked up by runAgentRunTask', async () => {
    const { task, refunds, ledger } = durable([TWO_REFUNDS, { text: 'Done.' }])
    const started = await runAgentRunTask(task, {
      taskId: 'c',
      input: createAgentRunState({ prompt: 'Refund.' }),
    })
    // What resumeAgentRunTask writes first, as if its process died right after.
    await ledger!.claim({
      key: await suspensionKey(started.state),
      runId: started.state.runId,
      claimId: 'claim_crashed',
      taskId: 'c/resume-1',
      outcomes: { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') },
      claimedAtMs: 1,
    })
    expect(await inspectAgentRunTask(task, { taskId: 'c' })).toMatchObject({
      taskId: 'c/resume-1',
      checkpoint: undefined,
    })
    const done = await runAgentRunTask(task, { taskId: 'c' })
    expect(done.state).toMatchObject({ status: 'done', answer: 'Done.' })
    expect(refunds).toHaveLength(2)
  })

  it('a suspension consumed outside the runner is refused through it', async () => {
    const { task, agent } = durable([TWO_REFUNDS, { text: 'Done.' }])
    const started = await runAgentRunTask(task, {
      taskId: 'o',
      input: createAgentRunState({ prompt: 'Refund.' }),
    })
    const outcomes = { call_1_0: approve('call_1_0'), call_1_1: approve('call_1_1') }
    await agent.run({ resume: started.state, outcomes })
    await expect(resumeAgentRunTask(task, { taskId: 'o', outcomes })).rejects.toSatisfy((error: unknown) =>
      SuspensionConsumedError.isInstance(error),
    )
  })

  it('bad input: outcomes that do not fit are refused before anything is claimed', async () => {
    const { task, ledger, refunds } = durable([TWO_REFUNDS, { text: 'Done.' }])
    await runAgentRunTask(task, { taskId: 'b', input: createAgentRunState({ prompt: 'Refund.' }) })
    const invalidInput = (error: unknown) => InvalidInputError.isInstance(error)
    const invalidState = (error: unknown) => InvalidStateError.isInstance(error)
    const cases: [unknown, (error: unknown) => boolean][] = [
      [{ taskId: 'b', outcomes: {} }, invalidInput],
      [{ taskId: 'b', outcomes: { call_9: approve('call_9') } }, invalidInput],
      [
        { taskId: 'b', outcomes: { call_1_0: { type: 'answer', toolCallId: 'call_1_0', value: 1 } } },
        invalidInput,
      ],
      [{ taskId: 'b', outcomes: { call_1_0: approve('call_1_1') } }, invalidInput],
      [{ taskId: '', outcomes: { call_1_0: approve('call_1_0') } }, invalidInput],
      [{ taskId: 'nope', outcomes: { call_1_0: approve('call_1_0') } }, invalidState],
      [{ taskId: 'b', outcomes: { call_1_0: approve('call_1_0') }, extra: 1 }, invalidInput],
      [null, invalidInput],
    ]
    for (const [request, check] of cases) {
      await expect(resumeAgentRunTask(task, request as never)).rejects.toSatisfy(check)
    }
    expect((ledger as unknown as { size: number }).size).toBe(0)
    expect(refunds).toHaveLength(0)
    await fc.assert(
      fc.asyncProperty(garbage, async (value) => {
        await expect(resumeAgentRunTask(task, { taskId: 'b', outcomes: value as never })).rejects.toSatisfy(
          // The App's own getter may throw through; anything else is a typed refusal.
          (error: unknown) => error instanceof AppError || InvalidInputError.isInstance(error),
        )
      }),
      { numRuns: 40 },
    )
  })

  it('refuses a task that is not one agent run step over an agent with a shared ledger', async () => {
    const { agent } = refundAgent([])
    const step = agentRunStep(agent)
    const defaultLedger = defineDurableTask({
      id: 'x',
      revision: '1',
      isState: isAgentRunState,
      steps: [step],
    })
    await expect(runAgentRunTask(defaultLedger, { taskId: 'x' })).rejects.toThrow(/suspensionLedger/)
    const shared = refundAgent([], { ledger: createMemorySuspensionLedger() })
    const twoSteps = defineDurableTask({
      id: 'y',
      revision: '1',
      isState: isAgentRunState,
      steps: [
        agentRunStep(shared.agent),
        { id: 'after', replayPolicy: 'safe', run: (state: AgentRunState) => state },
      ],
    })
    for (const task of [twoSteps, {}, null, { run() {}, inspect() {}, steps: [{ id: 's' }] }]) {
      await expect(inspectAgentRunTask(task as never, { taskId: 'y' })).rejects.toSatisfy((error: unknown) =>
        InvalidDefinitionError.isInstance(error),
      )
    }
  })
})
