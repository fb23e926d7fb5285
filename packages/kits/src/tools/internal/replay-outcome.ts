import type { ToolCallOutcome } from '../tool-call-outcome.js'
import type { ToolCallState } from '../tool-call-state.js'
import { ToolCallFailedError } from '../tool-errors.js'

/** The outcome a stored state stands for, without running anything. */
export function replayOutcome(state: ToolCallState): ToolCallOutcome {
  const base = {
    toolCallId: state.toolCallId,
    invocationId: state.invocationId,
    toolId: state.toolId,
    replayed: true,
    finalizeErrors: Object.freeze([]) as readonly unknown[],
  }
  switch (state.status) {
    case 'pending':
      return Object.freeze({ ...base, status: 'pending', record: state })
    case 'completed':
      return Object.freeze({
        ...base,
        status: 'completed',
        output: state.output,
        message: state.message,
        record: state,
      })
    case 'rejected':
      return Object.freeze({
        ...base,
        status: 'rejected',
        rejection: state.rejection,
        message: state.message,
        record: state,
      })
    case 'failed': {
      const error = new ToolCallFailedError(state.error.message, {
        details: {
          toolId: state.toolId,
          toolCallId: state.toolCallId,
          invocationId: state.invocationId,
          phase: state.phase,
          errorCode: state.error.code,
          errorName: state.error.name,
        },
      })
      return Object.freeze({
        ...base,
        status: 'failed',
        error,
        phase: state.phase,
        message: state.message,
        record: state,
      })
    }
  }
}
