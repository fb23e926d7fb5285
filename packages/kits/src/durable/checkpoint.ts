import { describeValue, InvalidStateError } from '@agent-core/core'
import type { CheckpointV2, DurableModelBudget, DurableStatus } from './store.js'

/**
 * The checkpoint format this kit reads and writes.
 * @example
 * ```ts
 * import { CHECKPOINT_FORMAT_VERSION } from '@agent-core/kits/durable'
 * CHECKPOINT_FORMAT_VERSION // 2
 * ```
 */
export const CHECKPOINT_FORMAT_VERSION = 2

const STATUSES: readonly DurableStatus[] = ['running', 'completed', 'failed', 'expired']
const FIELDS = new Set([
  'version',
  'definitionId',
  'revision',
  'nextStepIndex',
  'attemptCount',
  'maxAttempts',
  'deadlineAtMs',
  'status',
  'state',
  'modelBudget',
])
const BUDGET_FIELDS = new Set(['maxCalls', 'reservedCalls', 'maxCallsPerAttempt'])

/** What a stored checkpoint is checked against. */
export interface CheckpointExpectation {
  readonly taskId: string
  readonly definitionId: string
  readonly revision: string
  readonly stepCount: number
}

/**
 * Why a stored checkpoint was refused; `details.reason` of the {@link InvalidStateError}.
 * @example
 * ```ts
 * import { InvalidStateError } from '@agent-core/core'
 * import type { CheckpointRefusal } from '@agent-core/kits/durable'
 * declare const error: unknown
 * if (InvalidStateError.isInstance(error)) {
 *   const reason = error.details.reason as CheckpointRefusal | 'corrupt' | 'reconcile-missing'
 * }
 * ```
 */
export type CheckpointRefusal =
  | 'not-an-object'
  | 'unknown-version'
  | 'unknown-field'
  | 'foreign-definition'
  | 'revision-mismatch'
  | 'bad-count'
  | 'bad-index'
  | 'bad-deadline'
  | 'unknown-status'
  | 'bad-model-budget'
  | 'bad-state'

function refuse(
  expectation: CheckpointExpectation,
  reason: CheckpointRefusal,
  problem: string,
  extra: Record<string, unknown> = {},
): InvalidStateError {
  return new InvalidStateError(
    `The stored checkpoint of task "${expectation.taskId}" is refused: ${problem}. Nothing was written; repair or delete the stored record, or run it with the definition that wrote it.`,
    { details: { taskId: expectation.taskId, definitionId: expectation.definitionId, reason, ...extra } },
  )
}

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
}

/**
 * Checks the envelope of a stored checkpoint (everything except the App state, which the task checks with
 * `isState`). Throws {@link InvalidStateError} with `details.reason`; never repairs or defaults anything.
 */
export function parseCheckpointEnvelope(
  raw: unknown,
  expectation: CheckpointExpectation,
): CheckpointV2<unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw refuse(expectation, 'not-an-object', `it is ${describeValue(raw)}, not a checkpoint object`)
  }
  const record = raw as Record<string, unknown>
  if (record.version !== CHECKPOINT_FORMAT_VERSION) {
    throw refuse(
      expectation,
      'unknown-version',
      `its format version is ${describeValue(record.version)}, but only version 2 is understood`,
      { field: 'version', received: describeValue(record.version) },
    )
  }
  for (const key of Object.keys(record)) {
    if (!FIELDS.has(key))
      throw refuse(expectation, 'unknown-field', `it has an unknown field "${key}"`, { field: key })
  }
  if (record.definitionId !== expectation.definitionId) {
    throw refuse(
      expectation,
      'foreign-definition',
      `it was written by definition ${describeValue(record.definitionId)}, not "${expectation.definitionId}"`,
      { field: 'definitionId', received: describeValue(record.definitionId) },
    )
  }
  if (record.revision !== expectation.revision) {
    throw refuse(
      expectation,
      'revision-mismatch',
      `it was written by revision ${describeValue(record.revision)} of the definition, but this is revision "${expectation.revision}"`,
      { field: 'revision', received: describeValue(record.revision), revision: expectation.revision },
    )
  }
  const { nextStepIndex, attemptCount, maxAttempts, deadlineAtMs, status } = record
  if (!isCount(maxAttempts, 1))
    throw refuse(
      expectation,
      'bad-count',
      `maxAttempts is ${describeValue(maxAttempts)}, not a safe integer of at least 1`,
      { field: 'maxAttempts', received: describeValue(maxAttempts) },
    )
  if (!isCount(attemptCount, 0) || attemptCount > maxAttempts) {
    throw refuse(
      expectation,
      'bad-count',
      `attemptCount is ${describeValue(attemptCount)}, not a safe integer from 0 to maxAttempts (${maxAttempts})`,
      { field: 'attemptCount', received: describeValue(attemptCount) },
    )
  }
  if (typeof status !== 'string' || !STATUSES.includes(status as DurableStatus)) {
    throw refuse(
      expectation,
      'unknown-status',
      `its status is ${describeValue(status)}, not one of ${STATUSES.join(', ')}`,
      { field: 'status', received: describeValue(status) },
    )
  }
  const last = expectation.stepCount
  const indexOk =
    isCount(nextStepIndex, 0) &&
    (status === 'completed'
      ? nextStepIndex === last
      : status === 'running'
        ? nextStepIndex < last
        : nextStepIndex <= last)
  if (!indexOk) {
    throw refuse(
      expectation,
      'bad-index',
      `nextStepIndex is ${describeValue(nextStepIndex)}, which is out of range for status "${status}" and ${last} steps`,
      { field: 'nextStepIndex', received: describeValue(nextStepIndex), stepCount: last },
    )
  }
  if (deadlineAtMs !== null && !isCount(deadlineAtMs, 0)) {
    throw refuse(
      expectation,
      'bad-deadline',
      `deadlineAtMs is ${describeValue(deadlineAtMs)}, not null or a non-negative safe integer`,
      { field: 'deadlineAtMs', received: describeValue(deadlineAtMs) },
    )
  }
  let modelBudget: DurableModelBudget | undefined
  if (record.modelBudget !== undefined) modelBudget = parseModelBudget(record.modelBudget, expectation)
  if (!('state' in record)) throw refuse(expectation, 'bad-state', 'it has no state', { field: 'state' })
  return {
    version: 2,
    definitionId: expectation.definitionId,
    revision: expectation.revision,
    nextStepIndex: nextStepIndex as number,
    attemptCount,
    maxAttempts,
    deadlineAtMs: deadlineAtMs as number | null,
    status: status as DurableStatus,
    state: record.state,
    ...(modelBudget ? { modelBudget } : {}),
  }
}

function parseModelBudget(raw: unknown, expectation: CheckpointExpectation): DurableModelBudget {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw refuse(expectation, 'bad-model-budget', `modelBudget is ${describeValue(raw)}, not an object`, {
      field: 'modelBudget',
      received: describeValue(raw),
    })
  }
  const budget = raw as Record<string, unknown>
  for (const key of Object.keys(budget)) {
    if (!BUDGET_FIELDS.has(key))
      throw refuse(expectation, 'bad-model-budget', `modelBudget has an unknown field "${key}"`, {
        field: `modelBudget.${key}`,
      })
  }
  const { maxCalls, reservedCalls, maxCallsPerAttempt } = budget
  if (
    !isCount(maxCalls, 0) ||
    !isCount(maxCallsPerAttempt, 0) ||
    !isCount(reservedCalls, 0) ||
    reservedCalls > maxCalls
  ) {
    throw refuse(
      expectation,
      'bad-model-budget',
      'modelBudget needs non-negative safe integers maxCalls, maxCallsPerAttempt and reservedCalls, with reservedCalls at most maxCalls',
      { field: 'modelBudget', received: describeValue(raw) },
    )
  }
  return { maxCalls, reservedCalls, maxCallsPerAttempt }
}
