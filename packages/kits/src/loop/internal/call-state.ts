import { InvalidStateError, type JsonSchema } from '@agent-core/core'
import type {
  ApproveDecision,
  JsonValue,
  PendingToolCall,
  RejectDecision,
  ToolCallOutcome,
  ToolDecision,
  ToolHostResult,
  ToolWaitKind,
} from '@agent-core/kits/tools'
import type { ToolAbortCause } from '../events.js'
import type { AgentCallOutcome, AgentPendingCall, WaitingFor } from '../run-state.js'
import { ExternalToolError } from './engine-host.js'

/**
 * The state of one tool call in a run, once it has entered the lifecycle: one value per call, moved only
 * by {@link advance}. A fresh call that never waits goes from its lifecycle pass straight to `settled`; a
 * call that waits, or that a resumed run carries on, walks these states:
 *
 * - `waiting`: waits for a person's approval, the host's result or a person's answer. `outcome` is the
 *   resume request's outcome for the call, not yet applied (it is applied once: the next state drops it).
 * - `running`: approved (or saved before it ran): the tool runs next, with `approval`, and the same
 *   invocation id.
 * - `completing`: the host's result, its failure or a person's answer completes the call as its execution.
 * - `refusing`: refused (by a person, a policy, an earlier refusal, nobody to decide, the run stopped):
 *   the lifecycle renders the refusal; `cause` says why when the run refused it itself.
 * - `kept`: stays pending in the run's state (deferred, or the run stopped): final for this run.
 * - `settled`: answered; its outcome's message is the history item. Final.
 *
 * ```
 * waiting  --outcome approve (runs here)------------> running
 * waiting  --outcome approve (host or person next)--> waiting (approval kept, edited input kept)
 * waiting  --outcome result | failure | answer-----> completing
 * waiting  --outcome reject | earlier-refusal | nobody--> refusing
 * waiting  --defer | stop---------------------------> kept
 * running | completing | refusing --passed settled-> settled
 * running  --passed pending (asks again)------------> waiting
 * waiting | running | kept --abandon----------------> refusing (cause "stopped")
 * ```
 */
export type CallState =
  | {
      readonly kind: 'waiting'
      readonly pending: AgentPendingCall
      readonly outcome: AgentCallOutcome | undefined
    }
  | { readonly kind: 'running'; readonly pending: AgentPendingCall; readonly approval: ToolDecision }
  | {
      readonly kind: 'completing'
      readonly pending: AgentPendingCall
      readonly approval: ToolDecision
      readonly result: ToolHostResult
    }
  | {
      readonly kind: 'refusing'
      readonly pending: AgentPendingCall
      readonly rejection: RejectDecision
      readonly cause: ToolAbortCause | undefined
    }
  | { readonly kind: 'kept'; readonly pending: AgentPendingCall }
  | { readonly kind: 'settled'; readonly outcome: SettledOutcome; readonly cause: ToolAbortCause | undefined }

/** A lifecycle outcome that answers the call (not pending). */
export type SettledOutcome = Exclude<ToolCallOutcome, { readonly status: 'pending' }>

/** What moves a call: an outcome (the resume request's or a resolver's), the run's own answers, a pass's end. */
export type CallInput =
  | { readonly type: 'outcome'; readonly outcome: AgentCallOutcome }
  /** Another call of the step was refused by a person (`stopStepOnRefusal`). */
  | { readonly type: 'earlier-refusal' }
  /** Nobody in the run can carry the call on (no resolver, no handler, no `defer`). */
  | { readonly type: 'nobody'; readonly cause: 'no-handler' | 'no-resolver' }
  /** The run defers the call (`defer: true`): it stays pending. */
  | { readonly type: 'defer' }
  /** The run stopped while the call waited. */
  | { readonly type: 'stop' }
  /** The run stopped: calls still pending are refused so the history answers every call. */
  | { readonly type: 'abandon' }
  /** A lifecycle pass for the call ended. */
  | { readonly type: 'passed'; readonly outcome: ToolCallOutcome }

/** What the machine needs to know about the agent's tools. */
export interface CallFacts {
  /** How an approved call of the tool goes on: it runs here, or waits for the host's result or an answer. */
  kindOf(toolId: string): 'local' | 'external' | 'question'
  /** The question a question tool asks for this input, with its answer schema. */
  questionOf(
    toolId: string,
    input: JsonValue,
  ): { readonly question: string; readonly answerSchema: JsonSchema | undefined } | undefined
  /** The loop's pending call for a pending record the lifecycle returned. */
  pendingOf(record: PendingToolCall): AgentPendingCall
}

export const REFUSAL_TEXT = {
  person: 'The person reviewing this call rejected it.',
  policy: 'The approval policy refused this call.',
  'earlier-refusal': 'It was not run because another call of the same step was refused.',
  stopped: 'The run was stopped before this call could run.',
} as const

/** The state a stored pending call starts in when a run is resumed, with the request's outcome for it. */
export function initialState(pending: AgentPendingCall, outcome: AgentCallOutcome | undefined): CallState {
  if (pending.waitingFor === 'running') return { kind: 'running', pending, approval: approvalOf(pending) }
  return { kind: 'waiting', pending, outcome }
}

/** The approval a call runs (or completes) with: the one given, or the policy's when none was needed. */
export function approvalOf(pending: AgentPendingCall): ApproveDecision {
  return pending.approval ?? { type: 'approve', toolCallId: pending.toolCallId, by: 'policy' }
}

/** The pending call a state keeps in the run's state, or `undefined` once the call is settled. */
export function pendingOf(state: CallState): AgentPendingCall | undefined {
  return state.kind === 'settled' ? undefined : state.pending
}

/** Whether a state is final for this run. */
export function isFinal(state: CallState): boolean {
  return state.kind === 'settled' || state.kind === 'kept'
}

/**
 * The one transition function of a call. Pure: effects (saves, events, lifecycle passes, signatures) are
 * the tool step's, made on the states this returns.
 * @throws `InvalidStateError` for an input the state cannot take.
 */
export function advance(state: CallState, input: CallInput, facts: CallFacts): CallState {
  if (input.type === 'abandon') {
    if (state.kind === 'settled') return state
    return refusing(state.pending, 'policy', REFUSAL_TEXT.stopped, 'stopped')
  }
  switch (state.kind) {
    case 'waiting':
      return fromWaiting(state, input, facts)
    case 'running':
    case 'completing':
    case 'refusing': {
      if (input.type !== 'passed') break
      const outcome = input.outcome
      if (outcome.status !== 'pending') {
        return { kind: 'settled', outcome, cause: state.kind === 'refusing' ? state.cause : undefined }
      }
      // A tool that asks for a person again while it runs (a code tool reaching another host call).
      if (state.kind === 'running')
        return { kind: 'waiting', pending: facts.pendingOf(outcome.record), outcome: undefined }
      throw new InvalidStateError(
        `Tool call "${outcome.toolCallId}" became pending again after its decision.`,
        {
          details: { field: 'outcome.status', received: 'pending' },
        },
      )
    }
    case 'kept':
    case 'settled':
      break
  }
  throw new InvalidStateError(
    `Tool call "${state.kind === 'settled' ? state.outcome.toolCallId : state.pending.toolCallId}" is ${state.kind} and cannot take "${input.type}".`,
    { details: { field: 'call.state', received: state.kind } },
  )
}

function fromWaiting(
  state: Extract<CallState, { kind: 'waiting' }>,
  input: CallInput,
  facts: CallFacts,
): CallState {
  const { pending } = state
  switch (input.type) {
    case 'defer':
    case 'stop':
      return { kind: 'kept', pending }
    case 'earlier-refusal':
      return refusing(pending, 'earlier-refusal', REFUSAL_TEXT['earlier-refusal'], undefined)
    case 'nobody':
      return refusing(
        pending,
        'policy',
        input.cause === 'no-handler'
          ? `The host runs ${pending.toolId}, but this run could not wait for it.`
          : 'Nobody could decide about this call in this run.',
        input.cause,
      )
    case 'outcome':
      return applyOutcome(pending, input.outcome, facts)
    default:
      throw new InvalidStateError(
        `Tool call "${pending.toolCallId}" waits for ${pending.waitingFor} and cannot take "${input.type}".`,
        { details: { field: 'call.state', received: state.kind } },
      )
  }
}

function applyOutcome(pending: AgentPendingCall, outcome: AgentCallOutcome, facts: CallFacts): CallState {
  if (!fits(pending.waitingFor, outcome)) {
    throw new InvalidStateError(
      `Tool call "${pending.toolCallId}" waits for ${pending.waitingFor} and cannot take an outcome of type "${outcome.type}".`,
      { details: { field: 'outcome.type', received: outcome.type } },
    )
  }
  switch (outcome.type) {
    case 'reject':
      return {
        kind: 'refusing',
        pending,
        rejection: {
          type: 'reject',
          toolCallId: pending.toolCallId,
          by: outcome.by,
          reason: outcome.reason,
          ...(outcome.instruction === undefined ? {} : { instruction: outcome.instruction }),
        },
        cause: undefined,
      }
    case 'approve': {
      const approval = { type: 'approve', toolCallId: pending.toolCallId, by: outcome.by } as const
      const kind = facts.kindOf(pending.toolId)
      if (kind === 'local') {
        const given: ApproveDecision =
          outcome.input === undefined ? approval : { ...approval, input: outcome.input }
        return {
          kind: 'running',
          pending: { ...pending, waitingFor: 'running', approval: given },
          approval: given,
        }
      }
      // The host's result or a person's answer comes next; the edit (if any) is the call's input from now on.
      const input = outcome.input ?? pending.input
      const asked = kind === 'question' ? facts.questionOf(pending.toolId, pending.input) : undefined
      return {
        kind: 'waiting',
        pending: {
          ...pending,
          input,
          waitingFor: kind,
          approval,
          ...(asked === undefined ? {} : { question: asked.question, answerSchema: asked.answerSchema }),
        },
        outcome: undefined,
      }
    }
    default:
      return {
        kind: 'completing',
        pending,
        approval: approvalOf(pending),
        result: hostResult(pending, outcome),
      }
  }
}

/** Whether an outcome fits what a call waits for (a refusal fits every wait). */
export function fits(waitingFor: WaitingFor, outcome: AgentCallOutcome): boolean {
  return (
    outcome.type === 'reject' ||
    (waitingFor === 'approval' && outcome.type === 'approve') ||
    (waitingFor === 'external' && (outcome.type === 'result' || outcome.type === 'failure')) ||
    (waitingFor === 'question' && outcome.type === 'answer')
  )
}

function refusing(
  pending: AgentPendingCall,
  by: 'policy' | 'earlier-refusal',
  reason: string,
  cause: ToolAbortCause | undefined,
): CallState {
  return {
    kind: 'refusing',
    pending,
    rejection: { type: 'reject', toolCallId: pending.toolCallId, by, reason },
    cause,
  }
}

/** The host's result (an external tool's result or failure, a person's answer) for the lifecycle. */
function hostResult(pending: AgentPendingCall, outcome: AgentCallOutcome): ToolHostResult {
  if (outcome.type === 'failure') {
    return {
      ok: false,
      error: new ExternalToolError(outcome.message, { details: { toolId: pending.toolId } }),
    }
  }
  return {
    ok: true,
    output: outcome.type === 'answer' ? outcome.value : (outcome as { output?: JsonValue }).output,
  }
}

/** The loop's name of each wait of the tools kit. */
export const LOOP_WAITS: Readonly<Record<ToolWaitKind, WaitingFor>> = {
  approval: 'approval',
  external: 'external',
  answer: 'question',
  'write-ahead': 'running',
}
const KIT_WAITS: Readonly<Record<WaitingFor, ToolWaitKind>> = {
  approval: 'approval',
  external: 'external',
  question: 'answer',
  running: 'write-ahead',
}

/** The tools kit's pending record for a loop pending call. */
export function kitPending(call: AgentPendingCall): PendingToolCall {
  return {
    status: 'pending',
    toolCallId: call.toolCallId,
    invocationId: call.invocationId,
    toolId: call.toolId,
    input: call.input,
    runId: call.runId,
    waitingFor: KIT_WAITS[call.waitingFor],
    reason: call.reason,
    ...(call.question === undefined ? {} : { question: call.question }),
    ...(call.signature === undefined ? {} : { signature: call.signature }),
  }
}
