import { FieldReader } from '@agent-core/core'
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

function optionalText(fields: FieldReader, key: string): string | undefined {
  const value = fields.string(key, { empty: true })
  return value === '' ? undefined : value
}

const PREFIX = Object.freeze({ prefix: 'toolRefusal ' })

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
  const fields = new FieldReader(
    decision,
    'decision',
    'a reject decision { by, reason?, instruction?, toolId? }',
    'input',
    PREFIX,
  )
  const by = fields.requiredOneOf('by', DECISION_MAKERS as readonly DecisionMaker[])
  const reason = optionalText(fields, 'reason') ?? DEFAULT_REASON[by]
  const instruction = optionalText(fields, 'instruction')
  const toolId = optionalText(fields, 'toolId')
  const call = toolId === undefined ? 'The call' : `The call to ${toolId}`
  const lines = [`${call} was not run: it was refused by ${WHO[by]}. ${reason}`]
  if (instruction !== undefined) lines.push(`Instruction from the person who refused it: ${instruction}`)
  return lines.join('\n')
}
