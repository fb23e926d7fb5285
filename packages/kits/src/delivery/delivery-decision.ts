import { assertNotThenable, describeValue, refuseField } from '@agent-core/core'

/**
 * What a stage's `handle` returns: pass a (possibly new) state to the next stage, or finish the delivery
 * with a final value. The payload key is required even when its value is `undefined`, so a forgotten
 * field can never pass for a deliberate result, and a decision may not carry the other kind's payload
 * (it would be lost).
 *
 * @example
 * ```ts
 * import { type DeliveryDecision } from '@agent-core/kits/delivery'
 * const next: DeliveryDecision<string, number> = { type: 'continue', state: 'draft' }
 * const done: DeliveryDecision<string, number | undefined> = { type: 'complete', value: undefined }
 * ```
 */
export type DeliveryDecision<State, Value> =
  | { readonly type: 'continue'; readonly state: State }
  | { readonly type: 'complete'; readonly value: Value }

/** {@link DECISION_FIX} without its full stop, to end a refusal's problem (refuseField adds the stop). */
const DECISION_FIX_TEXT =
  "Return { type: 'continue', state } or { type: 'complete', value } (value may be undefined)"

/** The fix that every malformed-decision error suggests. */
export const DECISION_FIX = `${DECISION_FIX_TEXT}.`

/** A validated decision: the next state, or the final value. */
export type DeliveryStep<State, Value> =
  | { readonly done: false; readonly state: State }
  | { readonly done: true; readonly value: Value }

/** Validates what a stage's `handle` returned (after the thenable check) and turns it into a step. */
export function readDecision<State, Value>(
  decision: unknown,
  stageId: string,
  isLast: boolean,
): DeliveryStep<State, Value> {
  const hook = `delivery stage "${stageId}" handle`
  if (typeof decision !== 'object' || decision === null || Array.isArray(decision)) {
    refuseField(
      'output',
      'handle',
      `returned ${describeValue(decision)}, not a decision. ${DECISION_FIX_TEXT}`,
      decision,
      {
        prefix: `delivery stage "${stageId}" `,
        details: { id: stageId, hook: 'handle', returned: describeValue(decision) },
      },
    )
  }
  const { type } = decision as { type?: unknown }
  if (type === 'continue') {
    if (!('state' in decision)) {
      refuseField(
        'output',
        'state',
        "is missing: it returned { type: 'continue' } without a state field. Pass the state on explicitly, even when it is unchanged or undefined",
        undefined,
        { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
      )
    }
    if ('value' in decision) {
      refuseField(
        'output',
        'value',
        "is not part of a continue decision: it returned { type: 'continue' } with a value field, which would be lost. Return { type: 'complete', value } to finish, or drop the value",
        (decision as { value: unknown }).value,
        { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
      )
    }
    if (isLast) {
      refuseField(
        'output',
        'type',
        `is 'continue', but "${stageId}" is the last stage, so there is nothing to continue to. Return { type: 'complete', value } from the last stage, or add a stage after it`,
        'continue',
        { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
      )
    }
    const state = assertNotThenable((decision as { state: unknown }).state, `${hook} state`) as State
    return { done: false, state }
  }
  if (type === 'complete') {
    if (!('value' in decision)) {
      refuseField(
        'output',
        'value',
        "is missing: it returned { type: 'complete' } without a value field. Write value: undefined explicitly if undefined is the result",
        undefined,
        { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
      )
    }
    if ('state' in decision) {
      refuseField(
        'output',
        'state',
        "is not part of a complete decision: it returned { type: 'complete' } with a state field, which would be lost. Return { type: 'continue', state } to go on, or drop the state",
        (decision as { state: unknown }).state,
        { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
      )
    }
    const value = assertNotThenable((decision as { value: unknown }).value, `${hook} value`) as Value
    return { done: true, value }
  }
  refuseField(
    'output',
    'type',
    `names a decision of type ${describeValue(type)}. ${DECISION_FIX_TEXT}`,
    type,
    { prefix: `${hook}: `, details: { id: stageId, hook: 'handle' } },
  )
}
