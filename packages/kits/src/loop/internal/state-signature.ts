/**
 * The signature of a suspended run's state: the loop's one HMAC scheme (`signToolCall` of the tools kit,
 * with the agent's `decisionKeys`), over the whole state but its own signature, as canonical JSON, bound
 * to the run id and the suspension id. A client holding the state can read it, not change it: the history
 * (earlier tool results included), the counters behind the caps and the pending calls all come back as the
 * run left them, or the resume is refused with `UnauthorizedError` before anything runs.
 */
import { UnauthorizedError } from '@agent-core/core'
import {
  type DecisionKey,
  type JsonValue,
  signToolCall,
  verifyToolCallSignature,
} from '@agent-core/kits/tools'
import type { AgentRunState } from '../run-state.js'

/** The call-shaped identity the scheme signs: the state, for this run and this suspension. */
function signable(state: AgentRunState) {
  const { signature: _own, ...rest } = state
  return {
    runId: state.runId,
    toolCallId: 'agent-run-state',
    invocationId: state.suspensionId ?? state.runId,
    toolId: 'agent-run-state',
    input: JSON.parse(JSON.stringify(rest)) as JsonValue,
  }
}

/** The suspended state, signed when the agent has keys (other states are returned as they are). */
export async function signState(
  state: AgentRunState,
  keys: readonly DecisionKey[] | undefined,
): Promise<AgentRunState> {
  if (keys === undefined || state.status !== 'suspended') return state
  const signature = await signToolCall(signable(state), keys[0]!)
  return Object.freeze({ ...state, signature })
}

/**
 * Refuses a suspended state that the agent (with keys) did not sign as it is: changed, unsigned, or
 * signed for another run or suspension.
 * @throws `UnauthorizedError`
 */
export async function verifyState(
  state: AgentRunState,
  keys: readonly DecisionKey[] | undefined,
): Promise<void> {
  if (keys === undefined || state.status !== 'suspended') return
  if (
    state.signature === undefined ||
    !(await verifyToolCallSignature(signable(state), state.signature, keys))
  ) {
    throw new UnauthorizedError(
      `The state of run "${state.runId}" is not the one this agent suspended: ${state.signature === undefined ? 'it carries no signature' : 'it was changed after it was signed (its history, counters or pending calls), or signed with another key'}. Resume with the state the run returned.`,
      { details: { field: 'resume.signature', runId: state.runId } },
    )
  }
}
