import { readJson, readRecord } from './internal/field-reader.js'
import type { JsonValue } from './internal/json.js'
import { DECISION_MAKERS, type DecisionMaker } from './tool-call-state.js'

/**
 * An approval of one pending call, as plain JSON.
 * @example
 * ```ts
 * import type { ApproveDecision } from '@agent-core/kits/tools'
 * const decision: ApproveDecision = { type: 'approve', toolCallId: 'call_1', by: 'person' }
 * ```
 */
export interface ApproveDecision {
  readonly type: 'approve'
  /** The call this decision answers. */
  readonly toolCallId: string
  /** A person approved it, or an automatic rule did. */
  readonly by: 'person' | 'policy'
  /**
   * Approve with edits: the input the call runs with instead of the one the model gave. It is checked
   * against the tool's input schema, the model reads that it was changed, and with `decisionKeys` the
   * `signature` must cover it: sign the call with this input (`signToolCall({ ...pending, input })`).
   */
  readonly input?: JsonValue | undefined
  /** The pending call's `signature`, echoed back; required when the registry has `decisionKeys`. */
  readonly signature?: string | undefined
}

/**
 * A refusal of one pending call, as plain JSON: the reason (what the model reads), who refused, and an
 * optional instruction for the model (what to do instead).
 * @example
 * ```ts
 * import type { RejectDecision } from '@agent-core/kits/tools'
 * const decision: RejectDecision = {
 *   type: 'reject',
 *   toolCallId: 'call_1',
 *   by: 'person',
 *   reason: 'Refund refused by the manager.',
 *   instruction: 'Offer a 20% voucher instead.',
 * }
 * ```
 */
export interface RejectDecision {
  readonly type: 'reject'
  readonly toolCallId: string
  readonly by: DecisionMaker
  /** Why the call is refused; never empty. */
  readonly reason: string
  /** What the person asks the model to do instead. */
  readonly instruction?: string | undefined
  readonly signature?: string | undefined
}

/**
 * A decision about one pending call, keyed by its tool-call id: approve, or reject with a reason.
 * @example
 * ```ts
 * import type { ToolDecision } from '@agent-core/kits/tools'
 * const decisions: Record<string, ToolDecision> = {
 *   call_1: { type: 'approve', toolCallId: 'call_1', by: 'person' },
 *   call_2: { type: 'reject', toolCallId: 'call_2', by: 'policy', reason: 'Read-only mode.' },
 * }
 * ```
 */
export type ToolDecision = ApproveDecision | RejectDecision

/**
 * Checks that `value` is a {@link ToolDecision}: a plain object with `type` `approve` or `reject`, a
 * non-empty `toolCallId`, a `by` that fits the type (an approval is by a person or a policy), a non-empty
 * `reason` for a rejection, an optional JSON `input` (approvals only: approve with edits), and optional
 * `instruction` (rejections only) and `signature` strings. Unknown
 * fields are refused, so a misspelled `instructions` is never ignored silently. Values parsed from JSON
 * (for example a request body) are what it expects.
 * @throws `InvalidInputError` naming the offending field (`decision.reason`, ...)
 * @example
 * ```ts
 * import { assertDecision } from '@agent-core/kits/tools'
 * const decision: unknown = JSON.parse('{"type":"approve","toolCallId":"call_1","by":"person"}')
 * assertDecision(decision)
 * decision.type // 'approve'
 * ```
 */
export function assertDecision(value: unknown, field = 'decision'): asserts value is ToolDecision {
  const reader = readRecord(value, field, 'A tool decision')
  const type = reader.requiredOneOf('type', ['approve', 'reject'])
  reader.requiredString('toolCallId')
  if (type === 'approve') {
    reader.requiredOneOf('by', ['person', 'policy'])
    readJson(reader, 'input', true)
  } else {
    reader.requiredOneOf('by', DECISION_MAKERS as readonly DecisionMaker[])
    reader.requiredString('reason')
    reader.string('instruction')
  }
  reader.string('signature')
  reader.done()
}
