import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  describeValue,
  type ErrorDetails,
  FieldReader,
  InvalidInputError,
  InvalidOutputError,
  refuseField,
} from '@agent-core/core'
import { isRecord } from './internal/check.js'
import { canonicalJson, jsonProblem } from './internal/json.js'
import { type AgentCallOutcome, type AgentRunState, readOutcome } from './run-state.js'

/**
 * The record that a resume of one suspension took effect: which suspension (`key`, from
 * {@link suspensionKey}), which resume consumed it (`claimId`, new for every resume), the decisions it
 * applied, and, for a resume through the durable runner, the follow-up task that carries the run on.
 * Plain JSON, so any store can keep it.
 * @example
 * ```ts
 * import type { SuspensionClaim } from '@agent-core/kits/loop'
 * const claim: SuspensionClaim = {
 *   key: 'run_1/suspension_7',
 *   runId: 'run_1',
 *   claimId: 'claim_3',
 *   outcomes: { call_1: { type: 'approve', toolCallId: 'call_1', by: 'person' } },
 *   claimedAtMs: 1_700_000_000_000,
 * }
 * ```
 */
export interface SuspensionClaim {
  /** The suspension's key ({@link suspensionKey}): at most one claim per key is ever stored. */
  readonly key: string
  /** The run the suspension belongs to. */
  readonly runId: string
  /** This resume's own id: the claim that holds is the one whose `claimId` was stored. */
  readonly claimId: string
  /** With `resumeAgentRunTask`: the durable task that continues the run with these decisions. */
  readonly taskId?: string | undefined
  /** The decisions, results and answers the resume applied, keyed by tool-call id. */
  readonly outcomes: Readonly<Record<string, AgentCallOutcome>>
  /** When the claim was made (epoch ms). */
  readonly claimedAtMs: number
}

/**
 * The port through which a suspended run is resumed once: a resume claims the suspension's key before
 * anything runs, and only the first claim of a key is stored. A store implements two methods:
 *
 * - `claim(claim)` stores `claim` unless a claim with the same `key` exists, atomically (a unique key in
 *   one statement or transaction; two processes that claim at once must not both win), and resolves with
 *   the claim that holds: `claim` itself when it won, else the earlier one, unchanged.
 * - `get(key)` resolves with the stored claim of `key`, or `undefined`.
 *
 * Claims are never deleted by the loop: a suspension, once resumed, stays consumed. Implementations:
 * {@link createMemorySuspensionLedger} (one process), `createSqliteSuspensionLedger` in
 * `@agent-core/kits/durable/sqlite` (processes sharing a file) and `createPostgresSuspensionLedger` in
 * `@agent-core/kits/durable/postgres` (many machines).
 * @example
 * ```ts
 * import { createMemorySuspensionLedger, defineAgent, type SuspensionLedger } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * import type { AgentToolEntry } from '@agent-core/kits/loop'
 * declare const model: ChatModel
 * declare const tools: readonly AgentToolEntry[]
 * const ledger: SuspensionLedger = createMemorySuspensionLedger()
 * const agent = defineAgent({ model, tools, suspensionLedger: ledger })
 * ```
 */
export interface SuspensionLedger {
  /** Stores `claim` unless its key was claimed before; resolves with the claim that holds. */
  claim(claim: SuspensionClaim): Promise<SuspensionClaim>
  /** The claim stored for `key`, or `undefined`. */
  get(key: string): Promise<SuspensionClaim | undefined>
}

/**
 * Details of a {@link SuspensionConsumedError}: the suspension, and the resume that consumed it.
 * @example
 * ```ts
 * import { SuspensionConsumedError } from '@agent-core/kits/loop'
 * declare const error: unknown // a caught error
 * if (SuspensionConsumedError.isInstance(error)) console.log(error.details.claimedAtMs, error.details.taskId)
 * ```
 */
export interface SuspensionConsumedDetails extends ErrorDetails {
  /** Always `"resume"`: the refused field of the request. */
  readonly field?: string
  /** The run. */
  readonly runId?: string
  /** The suspension's key. */
  readonly key?: string
  /** The id of the resume that consumed it. */
  readonly claimId?: string
  /** When it was consumed (epoch ms). */
  readonly claimedAtMs?: number
  /** The durable task that continues the run, when it was resumed through the durable runner. */
  readonly taskId?: string | undefined
  /** The tool-call ids the earlier resume decided. */
  readonly decided?: readonly string[]
}

/**
 * A resume refused because the suspended state it resumes was resumed before: its decisions already took
 * effect (the approved tools ran, the model was called again), so running them a second time would repeat
 * side effects. A double-clicked Approve, a retried webhook or a second tab all end here. Load the run's
 * latest state (what the first resume returned or saved) and resume that, or, with the durable runner,
 * continue the task named in `details.taskId`.
 * @example
 * ```ts
 * import { SuspensionConsumedError } from '@agent-core/kits/loop'
 * import type { Agent } from '@agent-core/kits/loop'
 * import type { AgentCallOutcome } from '@agent-core/kits/loop'
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * declare const agent: Agent
 * declare const outcomes: Record<string, AgentCallOutcome>
 * declare const stored: AgentRunState
 * async function approve() {
 *   try {
 *     return { status: 200, body: await agent.run({ resume: stored, outcomes }) }
 *   } catch (error) {
 *     if (SuspensionConsumedError.isInstance(error)) return { status: 409, body: 'Already decided.' }
 *     throw error
 *   }
 * }
 * ```
 */
export class SuspensionConsumedError extends AgentCoreError<SuspensionConsumedDetails> {
  static override readonly code = 'suspension-consumed'
  declare readonly code: 'suspension-consumed'
  constructor(message: string, options?: AgentCoreErrorOptions<SuspensionConsumedDetails>) {
    super('suspension-consumed', message, options)
  }
}

/**
 * The key under which resuming `state` is claimed: the run id and the suspension's own id (a suspended
 * run's state carries a new `suspensionId` each time it suspends). A state without one (saved progress, or
 * a state written before suspension ids) is keyed by a SHA-256 digest of its canonical JSON, so the same
 * stored state always gets the same key.
 * @throws `InvalidInputError` when `state` is not an agent run state
 * @example
 * ```ts
 * import { suspensionKey } from '@agent-core/kits/loop'
 * import type { AgentResult } from '@agent-core/kits/loop'
 * declare const result: AgentResult & { reason: 'suspended' }
 * const key = await suspensionKey(result.state) // 'run_…/suspension_…'
 * ```
 */
export async function suspensionKey(state: AgentRunState): Promise<string> {
  if (!isRecord(state) || typeof state.runId !== 'string' || state.runId === '') {
    refuseField(
      'input',
      'state',
      `must be an agent run state (the JSON a run returned or saved), but got ${describeValue(state)}`,
      state,
      { prefix: 'suspensionKey: ' },
    )
  }
  if (typeof state.suspensionId === 'string' && state.suspensionId !== '') {
    return `${state.runId}/${state.suspensionId}`
  }
  const problem = jsonProblem(state, 'state')
  if (problem !== undefined) {
    refuseField('input', 'state', `is not plain JSON, as a run state is: ${problem}`, state)
  }
  const bytes = new TextEncoder().encode(canonicalJson(state as never))
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes))
  let hex = ''
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0')
  return `${state.runId}/sha256:${hex}`
}

const MAX_KEY_LENGTH = 1024

/**
 * Checks that `value` is a {@link SuspensionClaim}, strictly: every ledger calls it on what it is given
 * (and on what it reads back), so a malformed claim or a damaged stored row is a typed refusal.
 * @param field - how the value is named in errors (default `"claim"`)
 * @param kind - `'input'` for a claim given by a caller (`InvalidInputError`), `'output'` for one read
 *   back from storage (`InvalidOutputError`)
 * @throws `InvalidInputError` (or `InvalidOutputError`) naming the offending field
 * @example
 * ```ts
 * import { assertSuspensionClaim } from '@agent-core/kits/loop'
 * declare const row: { claim: string } // a row of the App's ledger table
 * assertSuspensionClaim(JSON.parse(row.claim), 'row.claim', 'output')
 * ```
 */
export function assertSuspensionClaim(
  value: unknown,
  field = 'claim',
  kind: 'input' | 'output' = 'input',
): asserts value is SuspensionClaim {
  try {
    const fields: FieldReader = new FieldReader(
      value,
      field,
      'a suspension claim { key, runId, claimId, taskId?, outcomes, claimedAtMs }',
    )
    const key = fields.requiredString('key')
    if (key.length > MAX_KEY_LENGTH) fields.fail('key', `must be at most ${MAX_KEY_LENGTH} characters`, key)
    fields.requiredString('runId')
    fields.requiredString('claimId')
    fields.string('taskId')
    fields.requiredInteger('claimedAtMs', 0)
    const outcomes = fields.get('outcomes')
    if (
      !isRecord(outcomes) ||
      (Object.getPrototypeOf(outcomes) !== Object.prototype && Object.getPrototypeOf(outcomes) !== null)
    ) {
      fields.fail(
        'outcomes',
        `must be a plain object keyed by tool-call id, but got ${describeValue(outcomes)}`,
        outcomes,
      )
    }
    for (const [callId, outcome] of Object.entries(outcomes)) {
      const read = readOutcome(outcome, `${fields.path('outcomes')}.${callId}`)
      if (read.toolCallId !== callId) {
        fields.fail(
          `outcomes.${callId}.toolCallId`,
          `must be the key it is stored under ("${callId}")`,
          read.toolCallId,
        )
      }
    }
    fields.done()
  } catch (error) {
    if (kind === 'output' && InvalidInputError.isInstance(error)) {
      throw new InvalidOutputError(
        `A suspension ledger returned a malformed claim: ${error.message} The ledger's storage may be damaged or written by something else; check it.`,
        { cause: error, details: { ...error.details, hook: 'SuspensionLedger' } },
      )
    }
    throw error
  }
}

/**
 * Checks a key given to a ledger's `get`: a non-empty string of at most 1024 characters.
 * @throws `InvalidInputError`
 * @example
 * ```ts
 * import { assertSuspensionKey } from '@agent-core/kits/loop'
 * assertSuspensionKey('run_1/suspension_2')
 * ```
 */
export function assertSuspensionKey(value: unknown, field = 'key'): asserts value is string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_KEY_LENGTH) {
    refuseField(
      'input',
      field,
      `must be a suspension key (a non-empty string of at most ${MAX_KEY_LENGTH} characters, from suspensionKey), but got ${describeValue(value)}`,
      value,
    )
  }
}

/**
 * A {@link SuspensionLedger} in this process's memory: a suspension is resumed once as long as every resume
 * goes through this one object. Right for one server process and for tests; processes that do not share
 * memory need `createSqliteSuspensionLedger` (`@agent-core/kits/durable/sqlite`) or
 * `createPostgresSuspensionLedger` (`@agent-core/kits/durable/postgres`). Claims are kept until the object is
 * dropped (about 300 bytes each, plus the outcomes).
 * @example
 * ```ts
 * import { MemorySuspensionLedger } from '@agent-core/kits/loop'
 * const ledger = new MemorySuspensionLedger()
 * ledger.size // 0
 * ```
 */
export class MemorySuspensionLedger implements SuspensionLedger {
  readonly #claims = new Map<string, SuspensionClaim>()

  /** How many suspensions were claimed. */
  get size(): number {
    return this.#claims.size
  }

  /**
   * Stores `claim` unless its key was claimed; resolves with the claim that holds.
   * @throws `InvalidInputError` for a malformed claim
   * @example
   * ```ts
   * import { MemorySuspensionLedger } from '@agent-core/kits/loop'
   * const ledger = new MemorySuspensionLedger()
   * const held = await ledger.claim({ key: 'run_1/s_1', runId: 'run_1', claimId: 'c_1', outcomes: {}, claimedAtMs: 0 })
   * held.claimId // 'c_1'
   * ```
   */
  async claim(claim: SuspensionClaim): Promise<SuspensionClaim> {
    assertSuspensionClaim(claim)
    const held = this.#claims.get(claim.key)
    if (held !== undefined) return held
    const stored = Object.freeze(structuredClone(claim))
    this.#claims.set(claim.key, stored)
    return stored
  }

  /**
   * The claim of `key`, or `undefined`.
   * @throws `InvalidInputError` for a key that is not a non-empty string
   * @example
   * ```ts
   * import { MemorySuspensionLedger } from '@agent-core/kits/loop'
   * await new MemorySuspensionLedger().get('run_1/s_1') // undefined
   * ```
   */
  async get(key: string): Promise<SuspensionClaim | undefined> {
    assertSuspensionKey(key)
    return this.#claims.get(key)
  }
}

/**
 * Creates a {@link MemorySuspensionLedger}. Every agent without a `suspensionLedger` has one of its own.
 * @example
 * ```ts
 * import { createMemorySuspensionLedger, defineAgent } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * import type { AgentToolEntry } from '@agent-core/kits/loop'
 * declare const model: ChatModel
 * declare const tools: readonly AgentToolEntry[]
 * const suspensionLedger = createMemorySuspensionLedger()
 * const agent = defineAgent({ model, tools, suspensionLedger })
 * ```
 */
export function createMemorySuspensionLedger(): MemorySuspensionLedger {
  return new MemorySuspensionLedger()
}
