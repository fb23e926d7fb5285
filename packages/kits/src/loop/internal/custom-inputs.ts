import {
  assertNotThenable,
  type ChatMessage,
  describeValue,
  FieldReader,
  refuseField,
} from '@agent-core/core'
import type { CustomInput, PlacedCustomInput } from '../custom-inputs.js'
import { jsonProblem } from './json.js'
import { readMessage } from './messages.js'

/** The hook that converts custom inputs, with the object it is called on. */
export interface TransformInput {
  readonly hook: (input: CustomInput, info: { turn: number; at: number }) => unknown
  readonly holder: unknown
}

const NO_INPUTS: readonly PlacedCustomInput[] = Object.freeze([])

/** Checks one custom input strictly: `{ type: 'custom', kind, data }`, data plain JSON. */
export function readCustomInput(value: unknown, field: string): CustomInput {
  const fields: FieldReader = new FieldReader(value, field, 'a custom input { type: "custom", kind, data }')
  fields.requiredOneOf('type', ['custom'])
  fields.requiredString('kind')
  const data = fields.get('data')
  const problem =
    data === undefined ? `${fields.path('data')} is missing` : jsonProblem(data, fields.path('data'))
  if (problem !== undefined) fields.fail('data', `must be plain JSON (${problem})`, data)
  fields.done()
  return value as CustomInput
}

/**
 * Why a custom input cannot sit at `at` of `messages` (between an assistant's tool calls and their
 * results, where the model's request would break), or `undefined`.
 */
function misplaced(messages: readonly ChatMessage[], at: number): string | undefined {
  if (messages[at]?.role === 'tool')
    return 'sits between tool calls and their results; place it before the assistant message that made the calls, or after its results'
  return undefined
}

/**
 * Splits the items of a request's `messages` into the chat messages (checked strictly) and the custom
 * inputs placed among them. A history without custom inputs gives the shared empty list.
 */
export function readHistory(
  value: unknown,
  field: string,
): { messages: ChatMessage[]; inputs: readonly PlacedCustomInput[] } {
  if (!Array.isArray(value))
    refuseField(
      'input',
      field,
      `must be an array of chat messages (and custom inputs), but got ${describeValue(value)}`,
      value,
    )
  const messages: ChatMessage[] = []
  let inputs: PlacedCustomInput[] | undefined
  const where: number[] = []
  for (let index = 0; index < value.length; index++) {
    if (!Object.hasOwn(value, index))
      refuseField('input', `${field}[${index}]`, 'is a hole; give a message', undefined)
    const item: unknown = value[index]
    if (
      typeof item === 'object' &&
      item !== null &&
      !Object.hasOwn(item, 'role') &&
      Object.hasOwn(item, 'type')
    ) {
      inputs ??= []
      inputs.push(Object.freeze({ at: messages.length, input: readCustomInput(item, `${field}[${index}]`) }))
      where.push(index)
    } else messages.push(readMessage(item, `${field}[${index}]`))
  }
  if (inputs === undefined) return { messages, inputs: NO_INPUTS }
  inputs.forEach((placed, n) => {
    const problem = misplaced(messages, placed.at)
    if (problem !== undefined) {
      refuseField('input', `${field}[${where[n]}]`, `is a custom input that ${problem}`, placed.input)
    }
  })
  return { messages, inputs: Object.freeze(inputs) }
}

/** Checks the `customInputs` of a saved state against its messages. */
export function readPlacedInputs(value: unknown, field: string, messages: readonly ChatMessage[]): void {
  if (!Array.isArray(value) || value.length === 0) {
    refuseField(
      'input',
      field,
      `must be a non-empty array of placed custom inputs { at, input } (or be left out), but got ${describeValue(value)}`,
      value,
    )
  }
  let last = 0
  value.forEach((entry: unknown, index) => {
    const fields: FieldReader = new FieldReader(
      entry,
      `${field}[${index}]`,
      'a placed custom input { at, input }',
    )
    const at = fields.requiredInteger('at', last, messages.length)
    readCustomInput(fields.get('input'), fields.path('input'))
    fields.done()
    const problem = misplaced(messages, at)
    if (problem !== undefined) fields.fail('at', problem, at)
    last = at
  })
}

/**
 * Converts one custom input with the hook, checking what it returned: messages the model may read in the
 * input's place (no tool calls, no tool results).
 * @throws `RejectedThenableError` for a thenable; `InvalidOutputError` for anything else that is not that
 */
function convert(transform: TransformInput, placed: PlacedCustomInput, turn: number): readonly ChatMessage[] {
  const hook = 'transformInput'
  const answered = assertNotThenable(
    Reflect.apply(transform.hook, transform.holder, [placed.input, Object.freeze({ turn, at: placed.at })]),
    hook,
  )
  const list: readonly unknown[] = Array.isArray(answered) ? answered : [answered]
  return list.map((message, index) => {
    const at = Array.isArray(answered) ? `${hook}(…)[${index}]` : `${hook}(…)`
    let read: ChatMessage
    try {
      read = readMessage(message, at)
    } catch (error) {
      refuseField(
        'output',
        hook,
        `must return a chat message or a list of them for custom input "${placed.input.kind}", but ${(error as Error).message} Return { role: 'user', content } (or system, or assistant text)`,
        message,
        { cause: error, details: { hook } },
      )
    }
    if (read.role === 'tool' || (read.role === 'assistant' && (read.toolCalls?.length ?? 0) > 0)) {
      refuseField(
        'output',
        hook,
        `returned a ${read.role === 'tool' ? 'tool result' : 'tool call'} for custom input "${placed.input.kind}"; tool calls and results belong to the run. Return system, user or assistant text messages`,
        message,
        { details: { hook } },
      )
    }
    return read
  })
}

/** A run's custom inputs and the hook that converts them; built only for runs that have some. */
export class CustomInputs {
  readonly inputs: readonly PlacedCustomInput[]
  readonly #transform: TransformInput

  constructor(inputs: readonly PlacedCustomInput[], transform: TransformInput) {
    this.inputs = inputs
    this.#transform = transform
  }

  /** The history the model reads this turn: the messages, each custom input converted in its place. */
  history(messages: readonly ChatMessage[], turn: number): ChatMessage[] {
    const inputs = this.inputs
    const out: ChatMessage[] = []
    let next = 0
    for (let at = 0; at <= messages.length; at++) {
      while (next < inputs.length && inputs[next]!.at === at) {
        for (const message of convert(this.#transform, inputs[next++]!, turn)) out.push(message)
      }
      if (at < messages.length) out.push(messages[at]!)
    }
    return out
  }
}
