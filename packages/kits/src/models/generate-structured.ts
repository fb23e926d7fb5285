import type {
  ChatMessage,
  ChatModel,
  JsonSchema,
  MaybePromise,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  OperationContext,
  OperationContextInit,
  StandardSchemaV1,
} from '@agent-core/core'
import { loadedStructuredCalls, loadStructuredCalls } from './internal/structured-calls.js'
import type { ModelCalls } from './model-calls.js'
import type { StructuredAttempt, StructuredMode, StructuredOutput } from './structured-output.js'

/**
 * A plain function that answers a chat request, e.g. an App's own client call.
 * @example
 * ```ts
 * import type { ChatCall } from '@agent-core/kits/models'
 * const call: ChatCall = async (request) => `{"echo": ${JSON.stringify(request.messages.length)}}`
 * ```
 */
export type ChatCall<App = unknown> = (
  request: ModelRequest,
  context: OperationContext<App>,
) => MaybePromise<string | ModelResponse>

/**
 * A binding of a {@link ModelCalls} catalog whose input is a `ModelRequest` and whose output is the reply
 * text or a `ModelResponse`.
 * @example
 * ```ts
 * import type { ModelCallsTarget } from '@agent-core/kits/models'
 * declare const target: ModelCallsTarget
 * const { models, modelId, timeoutMs } = target
 * ```
 */
export interface ModelCallsTarget {
  // biome-ignore lint/suspicious/noExplicitAny: any catalog, whatever its bindings (ModelCalls is invariant in them)
  readonly models: ModelCalls<any>
  readonly modelId: string
  /** Each call's timeout, as {@link ModelCalls.invoke} requires. */
  readonly timeoutMs: number
}

/**
 * What structured output can ask: a core `ChatModel` (the loop's model, the OpenAI adapter), a binding
 * of a {@link ModelCalls} catalog, or a plain {@link ChatCall} function.
 * @example
 * ```ts
 * import type { StructuredModel } from '@agent-core/kits/models'
 * const model: StructuredModel = async () => '{"ok": true}'
 * ```
 */
export type StructuredModel<App = unknown> = ChatModel<App> | ModelCallsTarget | ChatCall<App>

/**
 * What to ask and how: the model, the schema (or a ready {@link StructuredOutput}), and the conversation.
 * @example
 * ```ts
 * import type { GenerateStructuredRequest } from '@agent-core/kits/models'
 * const request: GenerateStructuredRequest<{ city: string }> = {
 *   model: async () => '{"city": "Lisbon"}',
 *   schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
 *   prompt: 'Where is the Tagus estuary?',
 * }
 * ```
 */
export interface GenerateStructuredRequest<Value = unknown, App = unknown> {
  readonly model: StructuredModel<App>
  /** A JSON Schema or any Standard Schema validator (zod, valibot, ...); give it or `output`. */
  readonly schema?: JsonSchema | StandardSchemaV1<unknown, Value> | undefined
  /** A ready contract from the models kit's `defineStructuredOutput`, instead of `schema` and its options. */
  readonly output?: StructuredOutput<Value> | undefined
  /** Shown to the model and used as the `json_schema` name: letters, digits, `_`, `-`, 1 to 64. Default `output`. */
  readonly name?: string | undefined
  /** What the value is, in a sentence the model reads. */
  readonly description?: string | undefined
  /** The JSON Schema shown to the model for a Standard Schema validator. Default: the validator's own, when it has one. */
  readonly jsonSchema?: JsonSchema | undefined
  /**
   * How many times validation issues are fed back to the model for another try, before a
   * `StructuredOutputError`: a safe integer of at least 0. Default 1 (or the `output`'s).
   */
  readonly maxCorrections?: number | undefined
  /** Your system text; the structured-output instructions are appended to it. */
  readonly system?: string | undefined
  /** The conversation to answer from. */
  readonly messages?: readonly ChatMessage[] | undefined
  /** A user message appended after `messages`. */
  readonly prompt?: string | undefined
  /**
   * `prompt` (default) puts the schema in the instructions (no provider JSON mode needed); `json-object`
   * and `json-schema` also ask for the provider's JSON mode.
   */
  readonly mode?: StructuredMode | undefined
  /** Further request fields (`model`, `temperature`, `seed`, `maxOutputTokens`, ...). */
  readonly request?: Omit<ModelRequest, 'messages' | 'responseFormat'> | undefined
  /** For a chat model or a function: each call's timeout (1 to 2147483647 ms). Default: none (the signal alone). */
  readonly timeoutMs?: number | undefined
}

/**
 * What {@link generateStructured} resolves to.
 * @example
 * ```ts
 * import type { StructuredResult } from '@agent-core/kits/models'
 * function summary(result: StructuredResult<unknown>): string {
 *   return `${result.attempts} attempt(s), ${result.refused.length} refused`
 * }
 * ```
 */
export interface StructuredResult<Value> {
  readonly value: Value
  /** The reply the value was read from. */
  readonly text: string
  /** Replies asked for, the accepted one included. */
  readonly attempts: number
  /** The replies that were refused and corrected, oldest first. */
  readonly refused: readonly StructuredAttempt[]
  /** Token usage summed over the replies, when the model reported it. */
  readonly usage: ModelUsage | undefined
}

/**
 * Asks a model for a value that matches a schema, without needing a provider JSON mode: the schema goes
 * into the instructions, the reply is read (code fences and a reasoning block stripped, JSON parsed) and
 * validated locally. A refused reply is fed back with its issues, up to `maxCorrections` times (default
 * 1); then a {@link StructuredOutputError} carries every refused reply and the last issues. Provider
 * failures, cancellation and timeouts are thrown as they are, never "corrected".
 *
 * Works over a core `ChatModel`, a {@link ModelCalls} binding (`{ models, modelId, timeoutMs }`) or a
 * plain function. Over a chat model or a function, each reply is one model call that takes an attempt
 * from `context.attemptBudget` and has a `model-call` span; over ModelCalls, `invoke` does both.
 *
 * @throws `InvalidInputError` for a malformed request; `InvalidDefinitionError` for a bad schema
 * @throws `StructuredOutputError` when no reply matched
 * @example
 * ```ts
 * import { generateStructured } from '@agent-core/kits/models'
 * const replies = ['Sure! {"name": "Ada", "age": "36"}', '```json\n{"name": "Ada", "age": 36}\n```']
 * const { value, attempts } = await generateStructured<{ name: string; age: number }>({
 *   model: async () => replies.shift() ?? '',
 *   schema: {
 *     type: 'object',
 *     required: ['name', 'age'],
 *     properties: { name: { type: 'string' }, age: { type: 'number' } },
 *   },
 *   name: 'Person',
 *   prompt: 'Ada Lovelace, 36, mathematician.',
 * })
 * // value: { name: 'Ada', age: 36 }, attempts: 2
 * ```
 */
export async function generateStructured<Value = unknown, App = unknown>(
  request: GenerateStructuredRequest<Value, App>,
  context: OperationContextInit<App> = {},
): Promise<StructuredResult<Value>> {
  // the code is loaded by the first call (internal/structured-calls.ts); its errors reject as they did
  const calls = loadedStructuredCalls() ?? (await loadStructuredCalls())
  return calls.generateStructured(request, context)
}
