import { describeValue, refuseField } from '@agent-core/core'
import type { AgentCallOutcome, AgentRunState } from '../run-state.js'
import {
  assertSuspensionClaim,
  type SuspensionClaim,
  SuspensionConsumedError,
  type SuspensionLedger,
  suspensionKey,
} from '../suspension-ledger.js'
import { isRecord } from './check.js'
import { newId } from './ids.js'

/** True when `value` has the ledger port's two methods. */
export function isSuspensionLedger(value: unknown): value is SuspensionLedger {
  return (
    isRecord(value) &&
    typeof (value as { claim?: unknown }).claim === 'function' &&
    typeof (value as { get?: unknown }).get === 'function'
  )
}

/** Reads the definition's `suspensionLedger`: a ledger, or left out. */
export function readLedger(value: unknown): SuspensionLedger | undefined {
  if (value === undefined) return undefined
  if (!isSuspensionLedger(value)) {
    refuseField(
      'definition',
      'suspensionLedger',
      `must be a suspension ledger { claim, get } (createMemorySuspensionLedger, createSqliteSuspensionLedger, createPostgresSuspensionLedger) or be left out, but got ${describeValue(value)}`,
      value,
      { prefix: 'definition.' },
    )
  }
  return value
}

/** Whether resuming `state` with `outcomes` consumes a suspension: a suspended state, or any decision. */
export function consumes(state: AgentRunState, outcomes: ReadonlyMap<string, AgentCallOutcome>): boolean {
  return state.status === 'suspended' || outcomes.size > 0
}

/** The refusal of a second resume, saying what was consumed, by which resume, and what to do. */
export function consumedError(held: SuspensionClaim): SuspensionConsumedError {
  const decided = Object.keys(held.outcomes)
  const at = new Date(held.claimedAtMs).toISOString()
  const what =
    decided.length === 0 ? 'without decisions' : `deciding ${decided.map((id) => `"${id}"`).join(', ')}`
  const next =
    held.taskId === undefined
      ? "Load the run's latest state (the one the first resume returned or saved) and resume that instead."
      : `The run goes on in durable task "${held.taskId}": continue it with runAgentRunTask, or resume its suspended state when it suspends again.`
  return new SuspensionConsumedError(
    `Run "${held.runId}" was already resumed from this suspended state (at ${at}, ${what}): a decision takes effect once, so this resume ran nothing. ${next}`,
    {
      details: {
        field: 'resume',
        runId: held.runId,
        key: held.key,
        claimId: held.claimId,
        claimedAtMs: held.claimedAtMs,
        taskId: held.taskId,
        decided,
      },
    },
  )
}

/**
 * Claims the suspension a resume starts from, before anything runs; refuses the resume when another one
 * claimed it first. `heldBy` is the durable task the claim was made for (`resumeAgentRunTask`): its own
 * attempts continue the claim instead of making a new one.
 */
export async function consumeSuspension(
  ledger: SuspensionLedger,
  state: AgentRunState,
  outcomes: ReadonlyMap<string, AgentCallOutcome>,
  now: number,
  heldBy?: string | undefined,
): Promise<void> {
  const key = await suspensionKey(state)
  if (heldBy !== undefined) {
    const held = await ledger.get(key)
    if (held !== undefined) {
      assertSuspensionClaim(held, 'claim', 'output')
      if (held.taskId === heldBy) return
      throw consumedError(held)
    }
  }
  const claim: SuspensionClaim = {
    key,
    runId: state.runId,
    claimId: newId('claim'),
    outcomes: Object.fromEntries(outcomes),
    claimedAtMs: Math.max(0, Math.floor(now)),
  }
  const held = await ledger.claim(claim)
  assertSuspensionClaim(held, 'claim', 'output')
  if (held.claimId !== claim.claimId) throw consumedError(held)
}
