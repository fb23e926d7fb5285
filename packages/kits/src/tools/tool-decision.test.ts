import { InvalidInputError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { assertDecision, assertToolCallState } from './index.js'

function fieldOf(call: () => void): string | undefined {
  try {
    call()
  } catch (error) {
    expect(InvalidInputError.isInstance(error)).toBe(true)
    return (error as InvalidInputError).details.field
  }
  return undefined
}

describe('assertDecision', () => {
  it('accepts approvals and rejections as plain JSON', () => {
    for (const decision of [
      { type: 'approve', toolCallId: 'c', by: 'person' },
      { type: 'approve', toolCallId: 'c', by: 'policy', signature: 'v1.x' },
      { type: 'reject', toolCallId: 'c', by: 'earlier-refusal', reason: 'Another call was refused.' },
      { type: 'reject', toolCallId: 'c', by: 'person', reason: 'No.', instruction: 'Use staging.' },
      Object.assign(Object.create(null), { type: 'approve', toolCallId: 'c', by: 'person' }),
    ]) {
      expect(() => assertDecision(decision)).not.toThrow()
    }
  })

  it('names the offending field of a malformed decision', () => {
    const cases: [unknown, string][] = [
      [null, 'decision'],
      [[], 'decision'],
      [new (class Decision {})(), 'decision'],
      [{ type: 'maybe', toolCallId: 'c', by: 'person' }, 'decision.type'],
      [{ type: 'approve', toolCallId: '', by: 'person' }, 'decision.toolCallId'],
      [{ type: 'approve', toolCallId: 'c', by: 'earlier-refusal' }, 'decision.by'],
      [{ type: 'approve', toolCallId: 'c', by: 'person', reason: 'why' }, 'decision.reason'],
      [{ type: 'reject', toolCallId: 'c', by: 'person' }, 'decision.reason'],
      [
        { type: 'reject', toolCallId: 'c', by: 'person', reason: 'No.', instructions: 'typo' },
        'decision.instructions',
      ],
      [
        { type: 'reject', toolCallId: 'c', by: 'person', reason: 'No.', instruction: 4 },
        'decision.instruction',
      ],
      [{ type: 'approve', toolCallId: 'c', by: 'person', signature: 1 }, 'decision.signature'],
      [
        Object.defineProperty({ toolCallId: 'c', by: 'person' }, 'type', {
          get: () => 'approve',
          enumerable: true,
        }),
        'decision.type',
      ],
    ]
    for (const [value, field] of cases) expect(fieldOf(() => assertDecision(value))).toBe(field)
  })
})

describe('assertToolCallState', () => {
  const message = { role: 'tool', toolCallId: 'c', content: 'ok', isError: false }
  const base = { toolCallId: 'c', invocationId: 'inv', toolId: 'add', input: { a: 1 } }

  it('accepts every state the lifecycle writes', () => {
    for (const state of [
      { ...base, status: 'pending', waitingFor: 'approval', reason: 'Ask.', runId: 'r', signature: 's' },
      { ...base, status: 'completed', output: [1], message, approvedBy: 'person' },
      { ...base, status: 'rejected', rejection: { reason: 'No.', by: 'policy' }, message },
      { ...base, status: 'failed', phase: 'execute', error: { name: 'Error', message: 'x' }, message },
      {
        toolCallId: 'c',
        invocationId: 'inv',
        toolId: 'add',
        status: 'failed',
        arguments: '{',
        phase: 'protocol',
        error: { code: 'invalid-input', name: 'InvalidInputError', message: 'x' },
        message,
      },
    ]) {
      expect(() => assertToolCallState(state)).not.toThrow()
    }
  })

  it('names the offending field of a corrupted state', () => {
    const cases: [unknown, string][] = [
      [{ ...base, status: 'pending', waitingFor: 'person', reason: 'x' }, 'state.waitingFor'],
      [{ ...base, status: 'pending', waitingFor: 'approval' }, 'state.reason'],
      [
        { ...base, input: { d: new Date() }, status: 'pending', waitingFor: 'approval', reason: 'x' },
        'state.input',
      ],
      [
        { ...base, status: 'completed', message: { ...message, toolCallId: 'other' } },
        'state.message.toolCallId',
      ],
      [{ ...base, status: 'completed', message, extra: 1 }, 'state.extra'],
      [
        { ...base, status: 'rejected', rejection: { reason: 'No.', by: 'robot' }, message },
        'state.rejection.by',
      ],
      [
        { ...base, status: 'failed', phase: 'later', error: { name: 'E', message: 'x' }, message },
        'state.phase',
      ],
      [{ ...base, status: 'completed', message, approvedBy: 'earlier-refusal' }, 'state.approvedBy'],
    ]
    for (const [value, field] of cases) expect(fieldOf(() => assertToolCallState(value))).toBe(field)
  })
})
