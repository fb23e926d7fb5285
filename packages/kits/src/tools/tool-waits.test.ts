import {
  createOperationContext,
  InvalidInputError,
  MemoryDiagnosticSink,
  UnauthorizedError,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  assertToolCallState,
  defineToolLifecycle,
  type PendingToolCall,
  signToolCall,
  ToolCallJournal,
  ToolLifecycleRegistry,
} from './index.js'

const KEY = 'a-test-secret-of-at-least-32-chars!'

function refundRegistry(policy: { decisionKeys?: readonly string[] } = {}) {
  const runs: string[] = []
  const refund = defineModelTool<{ amount: number }, string>({
    id: 'refund',
    description: 'Refunds an order',
    inputSchema: {
      type: 'object',
      required: ['amount'],
      additionalProperties: false,
      properties: { amount: { type: 'number', exclusiveMinimum: 0 } },
    },
    execute: ({ amount }, { invocationId }) => {
      runs.push(`${amount} ${invocationId}`)
      return `refunded ${amount}`
    },
  })
  const registry = ToolLifecycleRegistry.create(
    [
      defineToolLifecycle(refund, {
        authorize: (call) =>
          call.input.amount > 100
            ? { waitingFor: 'approval', reason: 'Large refunds need a manager.' }
            : undefined,
      }),
    ],
    policy,
  )
  return { registry, runs }
}

function browserRegistry() {
  const open = defineModelTool<{ url: string }, { opened: boolean }>({
    id: 'open_page',
    description: "Opens a page in the user's browser",
    inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
    outputSchema: { type: 'object', required: ['opened'], properties: { opened: { type: 'boolean' } } },
    execute: () => {
      throw new Error('never runs here: the host runs it')
    },
  })
  const completed: unknown[] = []
  const registry = ToolLifecycleRegistry.create([
    defineToolLifecycle(open, {
      awaitHost: (call) => ({ waitingFor: 'external', reason: `The browser opens ${call.input.url}.` }),
      complete: ({ output }) => void completed.push(output),
    }),
  ])
  return { registry, completed }
}

describe('waits as values', () => {
  it('an authorize hook returns an approval wait; the pending call says what it waits for', async () => {
    const { registry, runs } = refundRegistry()
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'refund', input: { amount: 250 } })
    expect(outcome.status).toBe('pending')
    const record = outcome.record as PendingToolCall
    expect(record).toMatchObject({ waitingFor: 'approval', reason: 'Large refunds need a manager.' })
    expect(runs).toEqual([])
    const done = await registry.resume(record, { type: 'approve', toolCallId: 'c1', by: 'person' })
    expect(done.status).toBe('completed')
    expect(runs).toEqual([`250 ${record.invocationId}`])
  })

  it('refuses an authorize hook that returns anything but a wait', async () => {
    const tool = defineModelTool({
      id: 't',
      description: 't',
      inputSchema: { type: 'object' },
      execute: () => 1,
    })
    const registry = ToolLifecycleRegistry.create([
      defineToolLifecycle(tool, { authorize: () => ({ waitingFor: 'nobody' }) as never }),
    ])
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 't', input: {} })
    expect(outcome).toMatchObject({ status: 'failed', phase: 'authorize' })
  })

  it('a tool the host runs waits for its result, which goes through complete and the templates (in another process: JSON)', async () => {
    const { registry, completed } = browserRegistry()
    const outcome = await registry.run({
      toolCallId: 'c1',
      toolId: 'open_page',
      input: { url: 'https://x.test' },
    })
    expect(outcome.record).toMatchObject({
      status: 'pending',
      waitingFor: 'external',
      reason: 'The browser opens https://x.test.',
    })
    const stored: unknown = JSON.parse(JSON.stringify(outcome.record))
    assertToolCallState(stored)
    const approval = { type: 'approve', toolCallId: 'c1', by: 'policy' } as const
    // An approval without the result: still waiting for the host.
    expect((await registry.resume(stored, approval)).record).toMatchObject({
      status: 'pending',
      waitingFor: 'external',
    })
    const done = await registry.resume(
      stored,
      approval,
      {},
      { result: { ok: true, output: { opened: true } } },
    )
    expect(done).toMatchObject({
      status: 'completed',
      output: { opened: true },
      message: { content: '{"opened":true}' },
    })
    expect(completed).toEqual([{ opened: true }])
  })

  it('checks a host result against the output schema; a host failure fails the call in execute', async () => {
    const { registry } = browserRegistry()
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'open_page', input: { url: 'u' } })
    const approval = { type: 'approve', toolCallId: 'c1', by: 'policy' } as const
    const wrong = await registry.resume(
      outcome.record as PendingToolCall,
      approval,
      {},
      { result: { ok: true, output: { opened: 'yes' } } },
    )
    expect(wrong).toMatchObject({ status: 'failed', phase: 'execute' })
    const failed = await registry.resume(
      outcome.record as PendingToolCall,
      approval,
      {},
      {
        result: { ok: false, error: new Error('Popup blocked.') },
      },
    )
    expect(failed).toMatchObject({
      status: 'failed',
      phase: 'execute',
      message: { content: 'The call to open_page failed: Popup blocked.' },
    })
  })

  it('refuses a result for a tool that runs itself, and a result given to run', async () => {
    const { registry } = refundRegistry()
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'refund', input: { amount: 250 } })
    await expect(
      registry.resume(
        outcome.record as PendingToolCall,
        { type: 'approve', toolCallId: 'c1', by: 'person' },
        {},
        { result: { ok: true, output: 1 } },
      ),
    ).rejects.toMatchObject({ details: { field: 'options.result' } })
    await expect(
      registry.run(
        { toolCallId: 'c2', toolId: 'refund', input: { amount: 1 } },
        {},
        { result: { ok: true } },
      ),
    ).rejects.toBeInstanceOf(InvalidInputError)
  })
})

describe('the save-before-run stage (write-ahead)', () => {
  it('hands the call to the host as a pending write-ahead call before it runs, in the same pass (one span)', async () => {
    const { registry, runs } = refundRegistry()
    const sink = new MemoryDiagnosticSink()
    const saved: { record: PendingToolCall; runsThen: number; journal: string | undefined }[] = []
    const journal = new ToolCallJournal()
    const outcome = await registry.run(
      { toolCallId: 'c1', toolId: 'refund', input: { amount: 5 } },
      createOperationContext({ diagnostics: sink.sink }),
      {
        journal,
        saveBeforeRun: async (record) => {
          saved.push({ record, runsThen: runs.length, journal: journal.find('c1')?.status })
        },
      },
    )
    expect(outcome.status).toBe('completed')
    expect(saved).toEqual([
      {
        record: expect.objectContaining({
          status: 'pending',
          waitingFor: 'write-ahead',
          invocationId: outcome.invocationId,
        }),
        runsThen: 0,
        journal: 'pending',
      },
    ])
    expect(sink.ofKind('tool-call-start')).toHaveLength(1)
    // A restart resumes the saved call; it runs with the same invocation id and is not saved again.
    const again = await registry.resume(
      saved[0]!.record,
      { type: 'approve', toolCallId: 'c1', by: 'policy' },
      {},
      {
        saveBeforeRun: () => {
          throw new Error('not saved twice')
        },
      },
    )
    expect(again.status).toBe('completed')
    expect(runs).toEqual([`5 ${outcome.invocationId}`, `5 ${outcome.invocationId}`])
  })

  it('a failing save fails the call in phase write-ahead, before the tool runs', async () => {
    const { registry, runs } = refundRegistry()
    const outcome = await registry.run(
      { toolCallId: 'c1', toolId: 'refund', input: { amount: 5 } },
      {},
      {
        saveBeforeRun: () => Promise.reject(new Error('disk full')),
      },
    )
    expect(outcome).toMatchObject({ status: 'failed', phase: 'write-ahead' })
    expect(runs).toEqual([])
  })
})

describe('approve with edits', () => {
  it('runs the approved input, tells the model it was changed, and records what ran', async () => {
    const { registry, runs } = refundRegistry()
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'refund', input: { amount: 250 } })
    const done = await registry.resume(outcome.record as PendingToolCall, {
      type: 'approve',
      toolCallId: 'c1',
      by: 'person',
      input: { amount: 90 },
    })
    expect(done.status).toBe('completed')
    expect(runs).toEqual([`90 ${outcome.invocationId}`])
    expect(done.record.input).toEqual({ amount: 90 })
    expect(done.status === 'completed' && done.message.content).toBe(
      'Note: the person who approved this call changed its input before it ran, from {"amount":250} to {"amount":90}.\nrefunded 90',
    )
  })

  it('checks the edit against the input schema before anything runs', async () => {
    const { registry, runs } = refundRegistry()
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'refund', input: { amount: 250 } })
    await expect(
      registry.resume(outcome.record as PendingToolCall, {
        type: 'approve',
        toolCallId: 'c1',
        by: 'person',
        input: { amount: -1 },
      }),
    ).rejects.toMatchObject({ details: { field: 'decision.input' } })
    expect(runs).toEqual([])
  })

  it('with decision keys, the signature must cover the changed input', async () => {
    const { registry, runs } = refundRegistry({ decisionKeys: [KEY] })
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'refund', input: { amount: 250 } })
    const pending = outcome.record as PendingToolCall
    const edited = { type: 'approve', toolCallId: 'c1', by: 'person', input: { amount: 90 } } as const
    // The pending call's own signature covers the old input, not the edit.
    await expect(
      registry.resume(pending, { ...edited, signature: pending.signature }),
    ).rejects.toBeInstanceOf(UnauthorizedError)
    const signature = await signToolCall({ ...pending, input: { amount: 90 } }, KEY)
    expect((await registry.resume(pending, { ...edited, signature })).status).toBe('completed')
    expect(runs).toEqual([`90 ${pending.invocationId}`])
  })
})
