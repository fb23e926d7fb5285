/**
 * One call's way through the lifecycle, as a state machine checked against a reference model: random
 * tools (approval or not, run by the host or not, an execution that succeeds, throws or outlives its time
 * limit) and random answers to each wait (approve, approve with an edit, reject, a host result, a bad
 * result, a host failure, or "not now", which ends the pass pending and resumes it from JSON later, in a
 * new registry).
 */
import { createOperationContext, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  assertToolCallState,
  defineToolLifecycle,
  type PendingToolCall,
  signToolCall,
  type ToolCallOutcome,
  type ToolDecision,
  type ToolHostResult,
  ToolLifecycleRegistry,
  type ToolResume,
} from './index.js'

const KEY = 'a-property-secret-of-at-least-32-chars!'

type Execution = 'ok' | 'throw' | 'timeout'
type Answer = 'approve' | 'edit' | 'reject' | 'result' | 'bad-result' | 'failure' | 'later'

interface Scenario {
  readonly approval: boolean
  readonly host: boolean
  readonly execution: Execution
  readonly answers: readonly Answer[]
}

interface Expected {
  readonly status: 'completed' | 'rejected' | 'failed' | 'pending'
  readonly executions: number
  readonly passes: number
  readonly input: number
}

/** The reference: what the call must end as, how often the tool runs and how many passes it takes. */
function reference(scenario: Scenario): Expected {
  let state: 'approval' | 'host' | 'run' = scenario.approval ? 'approval' : scenario.host ? 'host' : 'run'
  let passes = 1
  let resumed = false
  let input = 1
  const end = (status: Expected['status'], executions = 0): Expected => ({
    status,
    executions,
    passes,
    input,
  })
  for (const answer of scenario.answers) {
    if (state === 'run') break
    if (answer === 'later') {
      // The pass ends pending; every later answer is a resume from JSON: one pass each.
      resumed = true
      continue
    }
    if (resumed) passes++
    if (answer === 'reject') return end('rejected')
    if (state === 'approval') {
      if (answer === 'approve' || answer === 'edit') {
        if (answer === 'edit') input = 2
        state = scenario.host ? 'host' : 'run'
        continue
      }
      // Anything else answers an approval as an approval (the generator only sends what fits).
      state = scenario.host ? 'host' : 'run'
      continue
    }
    // state === 'host'
    if (answer === 'result') return end('completed')
    if (answer === 'bad-result' || answer === 'failure') return end('failed')
    // approve / edit for a host wait: still waiting for the result (edits only apply to approvals here).
  }
  if (state === 'run') return end(scenario.execution === 'ok' ? 'completed' : 'failed', 1)
  return end('pending')
}

function build(scenario: Scenario, executions: string[]) {
  const tool = defineModelTool<{ n: number }, { n: number }>({
    id: 'act',
    description: 'acts',
    inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
    outputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
    execute: ({ n }, { invocationId }) => {
      executions.push(`${n} ${invocationId}`)
      if (scenario.execution === 'throw') throw new Error('boom')
      if (scenario.execution === 'timeout') return new Promise(() => {})
      return { n }
    },
  })
  return ToolLifecycleRegistry.create(
    [
      defineToolLifecycle(tool, {
        timeoutMs: 5,
        ...(scenario.approval
          ? { authorize: () => ({ waitingFor: 'approval' as const, reason: 'ask' }) }
          : {}),
        ...(scenario.host ? { awaitHost: () => ({ waitingFor: 'external' as const, reason: 'host' }) } : {}),
      }),
    ],
    { decisionKeys: [KEY] },
  )
}

/** An answer as the lifecycle takes it, for a call that waits for `waitingFor`. */
function toResume(answer: Answer, pending: PendingToolCall): ToolResume {
  const toolCallId = pending.toolCallId
  const approve: ToolDecision = { type: 'approve', toolCallId, by: 'person' }
  const result = (value: ToolHostResult): ToolResume => ({ decision: approve, result: value })
  switch (answer) {
    case 'reject':
      return { decision: { type: 'reject', toolCallId, by: 'person', reason: 'no' } }
    case 'edit':
      return pending.waitingFor === 'approval'
        ? { decision: { ...approve, input: { n: 2 } } }
        : { decision: approve }
    case 'result':
      return pending.waitingFor === 'external'
        ? result({ ok: true, output: { n: 7 } })
        : { decision: approve }
    case 'bad-result':
      return pending.waitingFor === 'external'
        ? result({ ok: true, output: { n: 'x' } as never })
        : { decision: approve }
    case 'failure':
      return pending.waitingFor === 'external'
        ? result({ ok: false, error: new Error('host failed') })
        : { decision: approve }
    default:
      return { decision: approve }
  }
}

const scenarios = fc.record({
  approval: fc.boolean(),
  host: fc.boolean(),
  execution: fc.constantFrom<Execution>('ok', 'throw', 'timeout'),
  answers: fc.array(
    fc.constantFrom<Answer>('approve', 'edit', 'reject', 'result', 'bad-result', 'failure', 'later'),
    {
      maxLength: 5,
    },
  ),
})

describe('the per-call state machine (property, against a reference model)', () => {
  it('ends as the model says, runs the tool at most once, keeps its invocation id, one pass per resume', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const executions: string[] = []
        const sink = new MemoryDiagnosticSink()
        const context = createOperationContext({ diagnostics: sink.sink })
        const answers = [...scenario.answers]
        let invocationId: string | undefined
        // In process: `decide` answers each wait until an answer is "later".
        const decide = (pending: PendingToolCall): ToolResume | undefined => {
          invocationId ??= pending.invocationId
          expect(pending.invocationId).toBe(invocationId)
          const answer = answers.shift()
          return answer === undefined || answer === 'later' ? undefined : toResume(answer, pending)
        }
        let outcome: ToolCallOutcome = await build(scenario, executions).run(
          { toolCallId: 'c1', toolId: 'act', input: { n: 1 } },
          context,
          { decide },
        )
        // Then from JSON, in new registries: each resume takes the next answer.
        while (outcome.status === 'pending' && answers.length > 0) {
          const stored: unknown = JSON.parse(JSON.stringify(outcome.record))
          assertToolCallState(stored)
          const pending = stored as PendingToolCall
          expect(pending.invocationId).toBe(outcome.invocationId)
          let answer = answers.shift()!
          while (answer === 'later' && answers.length > 0) answer = answers.shift()!
          if (answer === 'later') break
          const { decision, result } = toResume(answer, pending)
          // An edit is signed over the edited input; anything else echoes the pending call's signature.
          const edit = decision.type === 'approve' ? decision.input : undefined
          const signature =
            edit === undefined ? pending.signature : await signToolCall({ ...pending, input: edit }, KEY)
          outcome = await build(scenario, executions).resume(
            pending,
            { ...decision, signature },
            context,
            result === undefined ? {} : { result },
          )
          if (outcome.status === 'pending' && answers.length > 0) {
          }
        }
        const expected = reference(scenario)
        expect(outcome.status).toBe(expected.status)
        expect(executions.length).toBe(expected.executions)
        if (executions.length === 1) expect(executions[0]).toBe(`${expected.input} ${outcome.invocationId}`)
        if (outcome.status === 'failed' && scenario.execution === 'timeout' && expected.executions === 1) {
          expect(outcome.error).toMatchObject({ code: 'timeout' })
        }
        // Every pass is one span that ends exactly once.
        const starts = sink.ofKind('tool-call-start')
        expect(sink.ofKind('tool-call-end')).toHaveLength(starts.length)
        expect(starts.length).toBe(expected.passes)
      }),
      { numRuns: 200 },
    )
  })
})
