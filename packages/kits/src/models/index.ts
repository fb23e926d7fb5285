/**
 * Model calls for agent applications: {@link ModelCalls} (a catalog of bindings called with a timeout,
 * the run's signal and its attempt budget), {@link ModelProviderError} (the one error every HTTP binding
 * throws, with status, `retryAfterMs` and `retryable`), {@link withRetry} (the App's retry policy, metered
 * by the attempt budget), and structured output: {@link generateStructured} and {@link chooseRoute} over
 * any model, with JSON Schema or a Standard Schema validator (zod, valibot, arktype).
 *
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { defineModelBinding, generateStructured, ModelCalls } from '@agent-core/kits/models'
 *
 * const draft = defineModelBinding({
 *   id: 'draft',
 *   identity: 'toy-model',
 *   invoke: async (request: { messages: readonly unknown[] }) => '{"title": "Hello"}',
 * })
 * const models = new ModelCalls([draft])
 * const { value } = await generateStructured<{ title: string }>(
 *   {
 *     model: { models, modelId: 'draft', timeoutMs: 10_000 },
 *     schema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
 *     prompt: 'Name the post.',
 *   },
 *   { attemptBudget: new AttemptBudget(3) },
 * )
 * ```
 *
 * @module
 */

export type { StandardJSONSchemaConverter, StandardSchemaV1 } from '@agent-core/core'
export {
  type ChooseRouteRequest,
  chooseRoute,
  type Route,
  type RouteChoice,
} from './choose-route.js'
export {
  type ChatCall,
  type GenerateStructuredRequest,
  generateStructured,
  type ModelCallsTarget,
  type StructuredModel,
  type StructuredResult,
} from './generate-structured.js'
export {
  type AnyModelBinding,
  defineModelBinding,
  type ModelBinding,
  type ModelInputOf,
  type ModelOutputOf,
} from './model-binding.js'
export {
  MAX_TIMEOUT_MS,
  type ModelAppFor,
  type ModelCallRequest,
  ModelCalls,
  type ModelIdOf,
  type ModelInputFor,
  type ModelInvocation,
  type ModelOutputFor,
  type ModelResult,
} from './model-calls.js'
export {
  type HttpFailure,
  isPermanentStatus,
  isRetryableFailure,
  ModelProviderError,
  type ModelProviderErrorDetails,
  type ModelProviderErrorOptions,
  type ProviderFailureKind,
} from './provider-error.js'
export { type HeaderSource, parseRetryAfterMs } from './retry-after.js'
export {
  defineStructuredOutput,
  type StructuredAttempt,
  type StructuredMode,
  type StructuredOutput,
  StructuredOutputError,
  type StructuredOutputErrorDetails,
  type StructuredOutputOptions,
  type StructuredParse,
} from './structured-output.js'
export { type RetryEvent, type RetryPolicy, withRetry } from './with-retry.js'
