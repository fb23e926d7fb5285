import { describeValue, refuseField } from '@agent-core/core'
import type { SuspensionClaim } from '@agent-core/kits/loop'

/** Longest suspension key a ledger stores (the loop's keys are far shorter). */
const MAX_KEY_LENGTH = 1024
const CLAIM_FIELDS = new Set(['key', 'runId', 'claimId', 'taskId', 'outcomes', 'claimedAtMs'])
const OUTCOME_TYPES = new Set(['approve', 'reject', 'result', 'failure', 'answer'])

/**
 * The envelope of a suspension claim, checked by the SQLite and PostgreSQL ledgers without loading the loop
 * kit (whose import brings the tools kit and ajv): the fields, their types, and outcomes that are objects
 * keyed by their own tool-call id. The loop reads every claim a ledger answers strictly
 * (`assertSuspensionClaim`), outcomes included.
 */
function problem(value: unknown): [string, unknown] | undefined {
  if (!isPlainObject(value)) return ['claim', value]
  for (const key of Object.keys(value)) if (!CLAIM_FIELDS.has(key)) return [`claim.${key}`, value[key]]
  const { key, runId, claimId, taskId, outcomes, claimedAtMs } = value
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) return ['claim.key', key]
  if (typeof runId !== 'string' || runId === '') return ['claim.runId', runId]
  if (typeof claimId !== 'string' || claimId === '') return ['claim.claimId', claimId]
  if (taskId !== undefined && (typeof taskId !== 'string' || taskId === '')) return ['claim.taskId', taskId]
  if (typeof claimedAtMs !== 'number' || !Number.isSafeInteger(claimedAtMs) || claimedAtMs < 0)
    return ['claim.claimedAtMs', claimedAtMs]
  if (!isPlainObject(outcomes)) return ['claim.outcomes', outcomes]
  for (const [callId, outcome] of Object.entries(outcomes)) {
    if (
      !isPlainObject(outcome) ||
      !OUTCOME_TYPES.has(outcome.type as string) ||
      outcome.toolCallId !== callId
    )
      return [`claim.outcomes.${callId}`, outcome]
  }
  try {
    JSON.stringify(value)
  } catch {
    return ['claim', value]
  }
  return undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** Refuses a claim given to a ledger that is not one (`InvalidInputError` naming the field). */
export function checkClaimInput(value: unknown): asserts value is SuspensionClaim {
  const found = problem(value)
  if (found === undefined) return
  const [field, received] = found
  refuseField(
    'input',
    field,
    `is not what a suspension claim holds (got ${describeValue(received)}): a claim is { key, runId, claimId, taskId?, outcomes, claimedAtMs } as the loop kit makes it`,
    received,
  )
}

/** Refuses a stored claim that is not one, or not the claim of `key` (`InvalidOutputError`). */
export function checkStoredClaim(value: unknown, key: string, ledger: string): SuspensionClaim {
  const found = problem(value)
  if (found !== undefined || (value as SuspensionClaim).key !== key) {
    const [field, received] = found ?? ['claim.key', (value as SuspensionClaim).key]
    refuseField(
      'output',
      field,
      `of the row for "${key}" is ${describeValue(received)}, so the row is not its claim; its table was damaged or written by something else. Check it`,
      received,
      {
        prefix: `The ${ledger} suspension ledger: `,
        details: { hook: 'SuspensionLedger', returned: describeValue(received) },
      },
    )
  }
  return value as SuspensionClaim
}

/** Refuses a key given to a ledger's `get`. */
export function checkKey(value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_KEY_LENGTH) {
    refuseField(
      'input',
      'key',
      `must be a suspension key (a non-empty string of at most ${MAX_KEY_LENGTH} characters, from suspensionKey), but got ${describeValue(value)}`,
      value,
    )
  }
}
