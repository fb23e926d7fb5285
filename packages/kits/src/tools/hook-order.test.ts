import { fileURLToPath } from 'node:url'
import { createOperationContext } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import type { PendingToolCall, ToolCallOutcome, ToolCallState, ToolDecision } from './index.js'
import {
  FINALIZE_ALL,
  HookFailure,
  INSPECT_ALL,
  type Recorder,
  recordingRegistry,
} from './testing/recording-tools.js'

const context = () => createOperationContext()
const small = { toolCallId: 'call_small', toolId: 'refund', input: { orderId: 'A-1', amount: 20 } }
const large = { toolCallId: 'call_large', toolId: 'refund', input: { orderId: 'A-2', amount: 250 } }

async function pendingCall(recorder: Recorder, keys?: string[]): Promise<PendingToolCall> {
  const { tools } = recordingRegistry(recorder, keys ? { decisionKeys: keys } : {})
  const outcome = await tools.run({ ...large, runId: 'run_1' }, context())
  expect(outcome.status).toBe('pending')
  return outcome.record as PendingToolCall
}

const childScript = fileURLToPath(new URL('./testing/resume-child.ts', import.meta.url))

interface ChildResult {
  log: string[]
  status?: string
  replayed?: boolean
  record?: ToolCallState
  executions?: number[]
  thrown?: string
}

/** Resumes in a fresh Node process that gets nothing but JSON on stdin. */
function resumeInChild(input: { state: unknown; decision: unknown; keys?: string[] }): Promise<ChildResult> {
  return runChildJson<ChildResult>(childScript, input)
}

describe('order of hooks', () => {
  it('runs inspect of every tool, then authorize, execute, complete, template, and finalize of every tool', async () => {
    const recorder: Recorder = { log: [] }
    const { tools } = recordingRegistry(recorder)
    const outcome = await tools.run(small, context())
    expect(outcome.status).toBe('completed')
    expect(recorder.log).toEqual([
      ...INSPECT_ALL,
      'refund.authorize',
      'refund.execute',
      'refund.complete',
      'refund.template',
      ...FINALIZE_ALL,
    ])
  })

  it('stops at authorize when a policy refuses, and still finalizes every tool', async () => {
    const recorder: Recorder = { log: [] }
    const { tools, executions } = recordingRegistry(recorder)
    const outcome = await tools.run({ ...small, input: { orderId: 'A-1', amount: -5 } }, context())
    expect(outcome.status).toBe('rejected')
    expect(outcome.status === 'rejected' && outcome.rejection).toEqual({
      reason: 'A refund cannot be negative.',
      by: 'policy',
    })
    expect(recorder.log).toEqual([...INSPECT_ALL, 'refund.authorize', 'refund.template', ...FINALIZE_ALL])
    expect(executions.size).toBe(0)
  })

  it("lets another tool's inspect refuse the selected tool's call (the global check)", async () => {
    const recorder: Recorder = { log: [] }
    const { tools } = recordingRegistry(recorder)
    const outcome = await tools.run({ ...small, input: { orderId: 'blocked', amount: 5 } }, context())
    expect(outcome.status === 'rejected' && outcome.rejection.reason).toBe(
      'Order "blocked" is under investigation.',
    )
    expect(recorder.log).toEqual([...INSPECT_ALL, 'refund.template', ...FINALIZE_ALL])
  })

  it('pends at authorize without running the tool; a person approves and the tool runs once', async () => {
    const recorder: Recorder = { log: [] }
    const { tools, executions } = recordingRegistry(recorder)
    const pending = await tools.run(large, context())
    expect(pending.status).toBe('pending')
    expect(recorder.log).toEqual([...INSPECT_ALL, 'refund.authorize', ...FINALIZE_ALL])
    recorder.log.length = 0
    const resumed = await tools.resume(
      pending.record as PendingToolCall,
      { type: 'approve', toolCallId: large.toolCallId, by: 'person' },
      context(),
    )
    expect(resumed.status).toBe('completed')
    expect(recorder.log).toEqual([
      ...INSPECT_ALL,
      'refund.resume',
      'refund.execute',
      'refund.complete',
      'refund.template',
      ...FINALIZE_ALL,
    ])
    expect([...executions.values()]).toEqual([1])
    expect(resumed.invocationId).toBe(pending.invocationId)
    expect(resumed.record).toMatchObject({ status: 'completed', approvedBy: 'person' })
  })

  it('settles a rejected decision without resume, execute or complete', async () => {
    const recorder: Recorder = { log: [] }
    const { tools, executions } = recordingRegistry(recorder)
    const pending = await tools.run(large, context())
    recorder.log.length = 0
    const decision: ToolDecision = {
      type: 'reject',
      toolCallId: large.toolCallId,
      by: 'person',
      reason: 'The manager said no.',
      instruction: 'Offer a voucher instead.',
    }
    const outcome = await tools.resume(pending.record as PendingToolCall, decision, context())
    expect(outcome.status).toBe('rejected')
    expect(recorder.log).toEqual([...INSPECT_ALL, 'refund.template', ...FINALIZE_ALL])
    expect(executions.size).toBe(0)
    expect(outcome.status === 'rejected' && outcome.message.content).toContain('Offer a voucher instead.')
  })

  it('resumes a pending call in a child process from the JSON alone, and never runs it twice', async () => {
    const parentLog: Recorder = { log: [] }
    const keys = ['a-signing-key-of-at-least-16-bytes']
    const pending = await pendingCall(parentLog, keys)
    expect(parentLog.log).toEqual([...INSPECT_ALL, 'refund.authorize', ...FINALIZE_ALL])
    const state = JSON.parse(JSON.stringify(pending))
    const decision = {
      type: 'approve',
      toolCallId: pending.toolCallId,
      by: 'person',
      signature: pending.signature,
    }

    const first = await resumeInChild({ state, decision, keys })
    expect(first.status).toBe('completed')
    expect(first.log).toEqual([
      ...INSPECT_ALL,
      'refund.resume',
      'refund.execute',
      'refund.complete',
      'refund.template',
      ...FINALIZE_ALL,
    ])
    expect(first.executions).toEqual([1])
    expect(first.record).toMatchObject({
      status: 'completed',
      invocationId: pending.invocationId,
      output: { refunded: 250, invocationId: pending.invocationId },
    })

    // The stored state is now the completed record: resuming it (in yet another process) runs nothing.
    const second = await resumeInChild({ state: first.record, decision, keys })
    expect(second).toMatchObject({ status: 'completed', replayed: true, log: [], executions: [] })

    // A decision whose call was changed on the way (a bigger amount) is refused before any hook.
    const tampered = { ...state, input: { orderId: 'A-2', amount: 25_000 } }
    const forged = await resumeInChild({ state: tampered, decision, keys })
    expect(forged).toEqual({ log: [], thrown: 'unauthorized' })
  })

  describe('a throwing hook at each position', () => {
    const cases: readonly {
      throwAt: string
      resume?: boolean
      log: readonly string[]
      status: ToolCallOutcome['status']
      phase?: string
    }[] = [
      {
        throwAt: 'refund.inspect',
        log: ['refund.inspect', 'refund.template', ...FINALIZE_ALL],
        status: 'failed',
        phase: 'inspect',
      },
      {
        throwAt: 'search.inspect',
        log: ['refund.inspect', 'search.inspect', 'refund.template', ...FINALIZE_ALL],
        status: 'failed',
        phase: 'inspect',
      },
      {
        throwAt: 'refund.authorize',
        log: [...INSPECT_ALL, 'refund.authorize', 'refund.template', ...FINALIZE_ALL],
        status: 'failed',
        phase: 'authorize',
      },
      {
        throwAt: 'refund.resume',
        resume: true,
        log: [...INSPECT_ALL, 'refund.resume', 'refund.template', ...FINALIZE_ALL],
        status: 'failed',
        phase: 'resume',
      },
      {
        throwAt: 'refund.execute',
        log: [...INSPECT_ALL, 'refund.authorize', 'refund.execute', 'refund.template', ...FINALIZE_ALL],
        status: 'failed',
        phase: 'execute',
      },
      {
        throwAt: 'refund.complete',
        log: [
          ...INSPECT_ALL,
          'refund.authorize',
          'refund.execute',
          'refund.complete',
          'refund.template',
          ...FINALIZE_ALL,
        ],
        status: 'failed',
        phase: 'complete',
      },
      {
        throwAt: 'refund.template',
        log: [
          ...INSPECT_ALL,
          'refund.authorize',
          'refund.execute',
          'refund.complete',
          'refund.template',
          ...FINALIZE_ALL,
        ],
        status: 'failed',
        phase: 'render',
      },
      {
        throwAt: 'search.finalize',
        log: [
          ...INSPECT_ALL,
          'refund.authorize',
          'refund.execute',
          'refund.complete',
          'refund.template',
          ...FINALIZE_ALL,
        ],
        status: 'completed',
      },
    ]
    for (const c of cases) {
      it(`${c.throwAt}${c.resume ? ' (resumed call)' : ''}`, async () => {
        const recorder: Recorder = { log: [] }
        const { tools } = recordingRegistry(recorder)
        let outcome: ToolCallOutcome
        if (c.resume) {
          const pending = await tools.run(large, context())
          recorder.log.length = 0
          recorder.throwAt = c.throwAt
          outcome = await tools.resume(
            pending.record as PendingToolCall,
            { type: 'approve', toolCallId: large.toolCallId, by: 'person' },
            context(),
          )
        } else {
          recorder.throwAt = c.throwAt
          outcome = await tools.run(small, context())
        }
        expect(recorder.log).toEqual(c.log)
        expect(outcome.status).toBe(c.status)
        if (outcome.status === 'failed') {
          expect(outcome.phase).toBe(c.phase)
          expect(outcome.error).toBeInstanceOf(HookFailure)
          expect(outcome.record.error).toEqual({
            name: 'Error',
            message: `${c.throwAt} failed on purpose`,
          })
          expect(outcome.message.isError).toBe(true)
        } else {
          expect(outcome.finalizeErrors).toHaveLength(1)
          expect(outcome.finalizeErrors[0]).toBeInstanceOf(HookFailure)
        }
      })
    }
  })
})
