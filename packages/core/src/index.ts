/**
 * The shared layer of agent-core: the per-run {@link OperationContext}, the {@link Registry} contract,
 * the {@link AttemptBudget} port, structured diagnostics, the error classes, the sync/async discipline
 * helpers, the JSON Schema types and the provider-neutral chat types. Model tools and JSON Schema
 * validation (ajv) live in `@agent-core/core/tools`, so importing this entry never loads ajv.
 *
 * @example
 * ```ts
 * import { AttemptBudget, Registry, createOperationContext } from '@agent-core/core'
 * const registry = Registry.create([{ id: 'a' }], { kind: 'thing' })
 * const context = createOperationContext({ app: { user: 'u1' }, attemptBudget: new AttemptBudget(3) })
 * ```
 *
 * @module
 */
export { AttemptBudget, type AttemptRange, type AttemptTicket } from './attempt-budget.js'
export { canonicalJson } from './canonical-json.js'
export * from './chat.js'
export {
  childContext,
  createOperationContext,
  type OperationContext,
  type OperationContextInit,
} from './context.js'
export { createId } from './create-id.js'
export {
  type CreateDiagnosticsOptions,
  consoleDiagnosticSink,
  consoleDiagnosticSinkFromEnv,
  createDiagnostics,
  DIAGNOSTICS_ENV_VAR,
  type DiagnosticEvent,
  type DiagnosticLevel,
  type DiagnosticSink,
  type DiagnosticSpan,
  type Diagnostics,
  MemoryDiagnosticSink,
  type SpanOutcome,
  silentDiagnostics,
  spanOutcomeOf,
} from './diagnostics.js'
export {
  AgentCoreError,
  type AgentCoreErrorOptions,
  describeValue,
  type ErrorDetails,
} from './errors/agent-core-error.js'
export * from './errors/errors.js'
export {
  FieldReader,
  type FieldReaderContext,
  type FieldReaderKind,
  type FieldRefusalContext,
  refuseField,
} from './field-reader.js'
export {
  formatSchemaIssues,
  type InferSchema,
  type InferSchemaInput,
  isStandardSchema,
  type JsonSchema,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type Schema,
  type SchemaIssue,
  type SchemaResult,
  type SchemaValidation,
} from './json-schema.js'
export { type Identified, Registry, type RegistryErrorFactories, type RegistryPolicy } from './registry.js'
export { type ReadonlyRegistry, RegistryView } from './registry-view.js'
export type { StandardJSONSchemaConverter, StandardSchemaV1 } from './standard-schema.js'
export {
  abortedError,
  assertBoolean,
  assertNotThenable,
  consumeRejection,
  deadlineSignal,
  isThenable,
  type MaybePromise,
  type NotThenable,
  raceSignal,
  throwIfAborted,
} from './sync.js'
export {
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  type CheckOptions,
  type IntegerBounds,
  isAbortSignal,
  isRecord,
  type ObjectCheckOptions,
  type ValidationErrorClass,
} from './validate.js'
