import { describeValue, InvalidInputError } from '@agent-core/core'
import { DECISION_MAKERS, type DecisionMaker } from './tool-call-state.js'

const WHO = {
  person: 'the person reviewing it',
  policy: 'policy',
  'earlier-refusal': 'an earlier refusal in the same step',
} as const

const DEFAULT_REASON = {
  person: 'The person reviewing this call rejected it.',
  policy: 'The approval policy refused this call.',
  'earlier-refusal': 'It was not run because another call of the same step was refused.',
} as const

/**
 * What {@link toolRefusal} reads: who refused, why, what to do instead, and the tool (a
 * `RejectDecision`, a `ToolRejection` or a refused call's record all fit).
 * @example
 * ```ts
 * import type { ToolRefusalInput } from '@agent-core/kits/tools'
 * const input: ToolRefusalInput = { by: 'person', reason: 'Too large.', instruction: 'Offer a voucher.', toolId: 'refund' }
 * ```
 */
export interface ToolRefusalInput {
  readonly by: DecisionMaker
  /** Why; when left out (or empty), the standard sentence for `by`. */
  readonly reason?: string | undefined
  /** What the person who refused asks the model to do instead. */
  readonly instruction?: string | undefined
  /** The refused call's tool, named in the sentence when given. */
  readonly toolId?: string | undefined
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    throw new InvalidInputError(`toolRefusal ${field} must be a string, but got ${describeValue(value)}.`, {
      details: { field, received: describeValue(value) },
    })
  }
  return value === '' ? undefined : value
}

/**
 * The sentence a model reads about a refused call, from who refused it (`by`), why (`reason`) and what to
 * do instead (`instruction`): the same text the tools lifecycle writes into the tool message when no
 * template provider answers, so an App that shows refusals (or writes its own `refusal` option) words
 * them the same way.
 * @throws `InvalidInputError` for a `by` that is not a decision maker, or a field that is not a string
 * @example
 * ```ts
 * import { toolRefusal } from '@agent-core/kits/tools'
 * toolRefusal({ by: 'person', reason: 'Too large.', instruction: 'Offer a voucher.', toolId: 'refund' })
 * // 'The call to refund was not run: it was refused by the person reviewing it. Too large.\n'
 * //   + 'Instruction from the person who refused it: Offer a voucher.'
 * ```
 */
export function toolRefusal(decision: ToolRefusalInput): string {
  if (typeof decision !== 'object' || decision === null) {
    throw new InvalidInputError(
      `toolRefusal needs { by, reason?, instruction?, toolId? } (a reject decision), but got ${describeValue(decision)}.`,
      { details: { field: 'decision', received: describeValue(decision) } },
    )
  }
  const by = decision.by
  if (!(DECISION_MAKERS as readonly unknown[]).includes(by)) {
    throw new InvalidInputError(
      `toolRefusal decision.by must be one of ${DECISION_MAKERS.map((d) => `"${d}"`).join(', ')}, but got ${describeValue(by)}.`,
      { details: { field: 'decision.by', received: describeValue(by) } },
    )
  }
  const reason = optionalText(decision.reason, 'decision.reason') ?? DEFAULT_REASON[by]
  const instruction = optionalText(decision.instruction, 'decision.instruction')
  const toolId = optionalText(decision.toolId, 'decision.toolId')
  const call = toolId === undefined ? 'The call' : `The call to ${toolId}`
  const lines = [`${call} was not run: it was refused by ${WHO[by]}. ${reason}`]
  if (instruction !== undefined) lines.push(`Instruction from the person who refused it: ${instruction}`)
  return lines.join('\n')
}
