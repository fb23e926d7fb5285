import {
  type AssistantMessage,
  assertObject,
  type ChatMessage,
  describeValue,
  type FinishReason,
  InvalidDefinitionError,
  type MaybePromise,
  type OperationContext,
  type ResponseFormat,
  refuseField,
} from '@agent-core/core'
import {
  defineStructuredOutput,
  type GenerateStructuredRequest,
  type StructuredAttempt,
  type StructuredOutput,
  type StructuredOutputError,
} from '@agent-core/kits/models'
import { isRecord } from './internal/check.js'
import type { AnswerRetry } from './run-state.js'

/**
 * What an AnswerFlow decides about the model's final answer, discriminated by `type` so that an answer
 * whose value is legitimately `undefined` is never mistaken for "go on":
 * - `accept`: the run ends with `value` as its answer;
 * - `retry`: `feedback` is added to the conversation as a user message and the model answers again;
 * - `fail`: the run ends with reason `error` and this `error`.
 * @example
 * ```ts
 * import type { AnswerControl } from '@agent-core/kits/loop'
 * const control: AnswerControl<number> = { type: 'retry', feedback: 'Answer with a number only.' }
 * ```
 */
export type AnswerControl<Answer> =
  | { readonly type: 'accept'; readonly value: Answer }
  | { readonly type: 'retry'; readonly feedback: string }
  | { readonly type: 'fail'; readonly error: unknown }

/**
 * The final answer as an AnswerFlow sees it.
 * @example
 * ```ts
 * import type { AnswerInput } from '@agent-core/kits/loop'
 * const words = (input: AnswerInput) => input.text.split(/\s+/).length
 * ```
 */
export interface AnswerInput {
  /** The answer's text (the assistant message's content). */
  readonly text: string
  /** The assistant message itself. */
  readonly message: AssistantMessage
  /** Why the model stopped (`stop`, `length`, ...). */
  readonly finishReason: FinishReason
  /** The model call (turn) that produced it, from 1. */
  readonly turn: number
  /** Earlier answers this flow sent back in the same run, oldest first. */
  readonly retries: readonly AnswerRetry[]
  /** The history, the answer included. */
  readonly messages: readonly ChatMessage[]
}

/**
 * The stage that decides what happens to the model's final answer (a reply without tool calls): accept it
 * (optionally as another value, such as parsed JSON), send it back with feedback, or fail the run. It may
 * also add instructions to the system text and ask for a provider response format.
 * @example
 * ```ts
 * import { defineAnswerFlow } from '@agent-core/kits/loop'
 * const oneSentence = defineAnswerFlow({
 *   decide: ({ text, retries }) => {
 *     if (/^[^.!?]+[.!?]$/.test(text.trim())) return { type: 'accept', value: text.trim() }
 *     if (retries.length >= 2) return { type: 'fail', error: new Error('no single-sentence answer') }
 *     return { type: 'retry', feedback: 'Answer in exactly one sentence.' }
 *   },
 * })
 * ```
 */
export interface AnswerFlow<Answer = string, App = unknown> {
  /** Appended to the agent's system text on every model call. */
  readonly instructions?: string | undefined
  /** Sent as the request's `responseFormat` on every model call. */
  readonly responseFormat?: ResponseFormat | undefined
  /** Decides; called on the flow itself. May be asynchronous. */
  decide(input: AnswerInput, context: OperationContext<App>): MaybePromise<AnswerControl<Answer>>
}

const flows = new WeakSet<object>()

/**
 * Checks an AnswerFlow and returns it unchanged (its `decide` keeps its receiver).
 * @throws `InvalidDefinitionError` for a flow without `decide`, or malformed instructions or format
 * @example
 * ```ts
 * import { defineAnswerFlow } from '@agent-core/kits/loop'
 * const shout = defineAnswerFlow({ decide: ({ text }) => ({ type: 'accept', value: text.toUpperCase() }) })
 * ```
 */
export function defineAnswerFlow<Answer = string, App = unknown>(
  flow: AnswerFlow<Answer, App>,
): AnswerFlow<Answer, App> {
  assertObject(flow, 'answer', {
    hint: 'An AnswerFlow is an object with a decide method.',
    error: InvalidDefinitionError,
  })
  const { decide, instructions, responseFormat } = flow as unknown as Record<string, unknown>
  if (typeof decide !== 'function')
    refuseField('definition', 'answer.decide', `must be a function, but got ${describeValue(decide)}`, decide)
  if (instructions !== undefined && typeof instructions !== 'string') {
    refuseField(
      'definition',
      'answer.instructions',
      `must be a string or be left out, but got ${describeValue(instructions)}`,
      instructions,
    )
  }
  if (responseFormat !== undefined && !isResponseFormat(responseFormat)) {
    refuseField(
      'definition',
      'answer.responseFormat',
      `must be { type: "text" }, { type: "json_object" } or { type: "json_schema", name, schema }, but got ${describeValue(responseFormat)}`,
      responseFormat,
    )
  }
  flows.add(flow)
  return flow
}

function isResponseFormat(value: unknown): value is ResponseFormat {
  if (!isRecord(value)) return false
  if (value.type === 'text' || value.type === 'json_object') return true
  return value.type === 'json_schema' && typeof value.name === 'string' && value.schema !== undefined
}

/** True once {@link defineAnswerFlow} checked the flow. */
export function isAnswerFlow(value: unknown): value is AnswerFlow<unknown, unknown> {
  return typeof value === 'object' && value !== null && flows.has(value)
}

/**
 * The default flow: the answer's text is the answer.
 * @example
 * ```ts
 * import { defineAgent, textAnswer } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const agent = defineAgent({ model, answer: textAnswer })
 * ```
 */
export const textAnswer: AnswerFlow<string, unknown> = defineAnswerFlow({
  decide: ({ text }) => ({ type: 'accept', value: text }),
})

/**
 * Reads an AnswerFlow's answer strictly: exactly one of the three controls, nothing else.
 * @throws `InvalidOutputError` naming the hook
 */
export function readControl<Answer>(value: unknown, hook: string): AnswerControl<Answer> {
  const problem = (what: string): never => {
    refuseField(
      'output',
      hook,
      `must return { type: "accept", value }, { type: "retry", feedback } or { type: "fail", error }, but ${what}`,
      value,
      { details: { hook } },
    )
  }
  if (!isRecord(value)) return problem(`returned ${describeValue(value)}`)
  const keys = Object.keys(value)
  switch (value.type) {
    case 'accept':
      if (!Object.hasOwn(value, 'value'))
        problem('an accept has no value field (write value: undefined for an empty answer)')
      if (keys.length !== 2) problem(`an accept has other fields (${keys.join(', ')})`)
      return value as AnswerControl<Answer>
    case 'retry':
      if (typeof value.feedback !== 'string' || value.feedback.trim() === '')
        problem('a retry has no feedback text')
      if (keys.length !== 2) problem(`a retry has other fields (${keys.join(', ')})`)
      return value as AnswerControl<Answer>
    case 'fail':
      if (!Object.hasOwn(value, 'error')) problem('a fail has no error field')
      if (keys.length !== 2) problem(`a fail has other fields (${keys.join(', ')})`)
      return value as AnswerControl<Answer>
    default:
      return problem(`returned type ${describeValue(value.type)}`)
  }
}

/**
 * What {@link structuredAnswer} takes: the models kit's structured-output options (a JSON Schema or a
 * Standard Schema validator, a name, a description, `maxCorrections`) or a ready contract from
 * `defineStructuredOutput`, and the mode. These are the fields of the models kit's
 * `GenerateStructuredRequest` that say what to ask for (the run gives the model and the conversation); a
 * run out of corrections ends with reason `error` and a `StructuredOutputError`.
 * @example
 * ```ts
 * import type { StructuredAnswerOptions } from '@agent-core/kits/loop'
 * const options: StructuredAnswerOptions<{ city: string }> = {
 *   name: 'City',
 *   schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
 *   mode: 'json-schema',
 * }
 * ```
 */
export interface StructuredAnswerOptions<Value = unknown>
  extends Pick<
    GenerateStructuredRequest<Value>,
    'schema' | 'output' | 'name' | 'description' | 'jsonSchema' | 'maxCorrections' | 'mode'
  > {}

/**
 * An AnswerFlow for structured answers, built on the models kit's structured-output contract: the same
 * instructions, the same reading of a reply (code fences and reasoning stripped, JSON parsed, validated),
 * the same correction feedback and, once `maxCorrections` retries are used up, the same typed
 * `StructuredOutputError` (the run ends with reason `error` and that error).
 * @throws `InvalidDefinitionError` for a malformed schema or options
 * @example
 * ```ts
 * import { defineAgent, structuredAnswer } from '@agent-core/kits/loop'
 * import { z } from 'zod'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const agent = defineAgent({
 *   model,
 *   answer: structuredAnswer({ name: 'Weather', schema: z.object({ city: z.string(), tempC: z.number() }) }),
 * })
 * const result = await agent.run({ prompt: 'Weather in Lyon?' })
 * if (result.reason === 'final') result.answer.tempC
 * ```
 */
export function structuredAnswer<Value = unknown>(
  options: StructuredAnswerOptions<Value>,
): AnswerFlow<Value, unknown> {
  assertObject(options as unknown, 'options', {
    where: 'structuredAnswer',
    hint: 'Give options { schema, name?, mode? }.',
    error: InvalidDefinitionError,
  })
  const { output: given, mode = 'prompt', ...rest } = options
  if (mode !== 'prompt' && mode !== 'json-object' && mode !== 'json-schema')
    refuseField(
      'definition',
      'mode',
      `must be "prompt", "json-object" or "json-schema", but got ${describeValue(mode)}`,
      mode,
    )
  const output: StructuredOutput<Value> =
    given ?? defineStructuredOutput<Value>(rest as Parameters<typeof defineStructuredOutput<Value>>[0])
  let responseFormat: ResponseFormat | undefined
  try {
    responseFormat = output.responseFormat(mode)
  } catch (error) {
    throw new InvalidDefinitionError((error as Error).message, {
      cause: error,
      details: { field: 'mode', received: describeValue(mode) },
    })
  }
  return defineAnswerFlow<Value, unknown>({
    instructions: output.instructions,
    responseFormat,
    async decide({ text, retries }) {
      const parsed = await output.parse(text)
      if (parsed.ok) return { type: 'accept', value: parsed.value }
      if (retries.length >= output.maxCorrections) {
        const attempts: StructuredAttempt[] = []
        for (const retry of retries) {
          const earlier = await output.parse(retry.text)
          attempts.push({ text: retry.text, issues: earlier.ok ? [] : earlier.issues })
        }
        attempts.push({ text, issues: parsed.issues })
        const error: StructuredOutputError = output.failure(attempts)
        return { type: 'fail', error }
      }
      return { type: 'retry', feedback: output.feedback(parsed.issues) }
    },
  })
}
