import { type ChatMessage, describeValue, isRecord, type NotThenable, refuseField } from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'
import { readCustomInput } from './internal/custom-inputs.js'
import type { AgentRunState } from './run-state.js'

/**
 * App data carried in a run's history beside the chat messages (a form the user submitted, a file they
 * attached, a record picked in the UI): given in a run request's `messages` at the place it belongs, kept
 * as this data in the run's state (`AgentRunState.customInputs`), and turned into the messages the model
 * reads by the `transformInput` hook each time a model request is built.
 * @example
 * ```ts
 * import type { CustomInput } from '@agent-core/kits/loop'
 * const form: CustomInput = { type: 'custom', kind: 'refund-form', data: { orderId: 'A-17', amount: 40 } }
 * ```
 */
export interface CustomInput {
  /** Always `custom`: what tells it from a chat message (which has a `role`). */
  readonly type: 'custom'
  /** What the App calls this kind of data (`form`, `file`, ...): a non-empty string the hook switches on. */
  readonly kind: string
  /** The App's data: plain JSON, saved in the run's state as it is. */
  readonly data: JsonValue
}

/**
 * A custom input where a run's state keeps it: `at` is the number of history messages before it (several
 * at one place keep their order).
 * @example
 * ```ts
 * import type { PlacedCustomInput } from '@agent-core/kits/loop'
 * const placed: PlacedCustomInput = { at: 1, input: { type: 'custom', kind: 'file', data: { name: 'a.pdf' } } }
 * ```
 */
export interface PlacedCustomInput {
  /** How many history messages come before it. */
  readonly at: number
  /** The custom input, as it was given. */
  readonly input: CustomInput
}

/**
 * What `transformInput` is told about the input it converts: the model call the request is for (from 1)
 * and where the input sits in the history.
 * @example
 * ```ts
 * import type { TransformInputInfo } from '@agent-core/kits/loop'
 * const firstTurn = (info: TransformInputInfo) => info.turn === 1
 * ```
 */
export interface TransformInputInfo {
  /** The model call the request is built for, from 1. */
  readonly turn: number
  /** How many history messages come before the input. */
  readonly at: number
}

/**
 * Turns one custom input into the messages the model reads in its place: one message, a list (empty to
 * hide it from the model), synchronously (it runs for every model request; do slow work, such as reading
 * a file, before the run, or in `beforeTurn`). System, user and assistant messages without tool calls only:
 * tool calls and results belong to the run. An agent's hook (`AgentDefinition.transformInput`) applies to
 * every run; a run's own (`AgentRunRequest.transformInput`) wins over it. Hooks are not in the saved
 * state: give the run's again when you resume it.
 * @example
 * ```ts
 * import type { TransformInputHook } from '@agent-core/kits/loop'
 * const transformInput: TransformInputHook = (input) =>
 *   input.kind === 'refund-form'
 *     ? { role: 'user', content: `Refund form: ${JSON.stringify(input.data)}` }
 *     : []
 * ```
 */
export type TransformInputHook = (
  input: CustomInput,
  info: TransformInputInfo,
) => (ChatMessage | readonly ChatMessage[]) & NotThenable

/**
 * Builds a {@link CustomInput}.
 * @example
 * ```ts
 * import { customInput } from '@agent-core/kits/loop'
 * const file = customInput('file', { name: 'invoice.pdf', pages: 3 })
 * // file.type === 'custom'
 * ```
 */
export function customInput(kind: string, data: JsonValue): CustomInput {
  return Object.freeze(readCustomInput({ type: 'custom', kind, data }, 'customInput'))
}

/**
 * True for a {@link CustomInput} (an object whose `type` is `custom` and that has no `role`); checks the
 * shape only, not the data.
 * @example
 * ```ts
 * import { isCustomInput } from '@agent-core/kits/loop'
 * isCustomInput({ type: 'custom', kind: 'form', data: {} }) // true
 * isCustomInput({ role: 'user', content: 'Hi' }) // false
 * ```
 */
export function isCustomInput(value: unknown): value is CustomInput {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'custom' &&
    !Object.hasOwn(value, 'role')
  )
}

/**
 * A run's history as the App gave it: its chat messages with its custom inputs back in their places (what
 * a UI shows, or the `messages` of a new run that goes on from it).
 * @example
 * ```ts
 * import { runHistory, type AgentRunState } from '@agent-core/kits/loop'
 * declare const state: AgentRunState
 * const items = runHistory(state)
 * const forms = items.filter((item) => 'type' in item && item.type === 'custom')
 * ```
 */
export function runHistory(
  state: Pick<AgentRunState, 'messages' | 'customInputs'>,
): readonly (ChatMessage | CustomInput)[] {
  if (!isRecord(state) || !Array.isArray(state.messages)) {
    refuseField(
      'input',
      'state',
      `must be a run's state with its messages (an AgentRunState, or a result's state), but got ${describeValue(state)}`,
      state,
      { prefix: 'runHistory: ' },
    )
  }
  const inputs = state.customInputs ?? []
  if (inputs.length === 0) return state.messages
  const out: (ChatMessage | CustomInput)[] = []
  let next = 0
  for (let at = 0; at <= state.messages.length; at++) {
    while (next < inputs.length && inputs[next]!.at === at) out.push(inputs[next++]!.input)
    if (at < state.messages.length) out.push(state.messages[at]!)
  }
  return out
}
