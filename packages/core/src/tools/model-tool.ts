import {
  assertFunction,
  assertObject,
  createId,
  describeValue,
  formatSchemaIssues,
  type InferSchema,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  type JsonSchema,
  type MaybePromise,
  type OperationContext,
  refuseField,
  type Schema,
  throwIfAborted,
} from '@agent-core/core'
import { type CompiledSchema, compileSchema, type ToJSONSchema } from './compile-schema.js'
import { invocationProgress, type ToolProgressReporter } from './tool-progress.js'

/**
 * Ids of tools: letters, digits, `_` and `-`, 1 to 64 characters (what model providers accept).
 * @example
 * ```ts
 * import { TOOL_ID_PATTERN } from '@agent-core/core/tools'
 * TOOL_ID_PATTERN.test('github__search_issues') // true
 * TOOL_ID_PATTERN.test('search issues') // false
 * ```
 */
export const TOOL_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{1,64}$/

/**
 * The context a tool's `execute` receives: the run's context, the invocation id core allocated, and
 * `progress` to report how the call is going while it runs.
 * @example
 * ```ts
 * import { defineModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
 * const log = defineModelTool<{ text: string }, string, { userId: string }>({
 *   id: 'log',
 *   description: 'Writes a line to the audit log',
 *   inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
 *   execute: ({ text }, context: ToolExecutionContext<{ userId: string }>) =>
 *     `${context.invocationId} ${context.app.userId}: ${text}`,
 * })
 * ```
 */
export interface ToolExecutionContext<App = unknown> extends OperationContext<App> {
  readonly invocationId: string
  /**
   * Reports progress while the call runs (`{ message?, ratio?, data?, keep? }`): the agent loop emits each
   * report as a `tool-progress` event, in order; reports after the call settled are dropped.
   */
  readonly progress: ToolProgressReporter
}

/**
 * A tool a model may call: its input (and optionally output) schema, as JSON Schema or as any Standard
 * Schema validator (zod, valibot, arktype, ...), executed with the run's context. Check one with
 * {@link defineModelTool} (which infers `Input` from the schema); run one with {@link invokeModelTool}.
 * @example
 * ```ts
 * import type { ModelTool } from '@agent-core/core/tools'
 * const now: ModelTool<Record<string, never>, string> = {
 *   id: 'now',
 *   description: 'The current time, ISO 8601',
 *   inputSchema: { type: 'object', additionalProperties: false },
 *   outputSchema: { type: 'string' },
 *   execute: (_input, context) => new Date(context.now()).toISOString(),
 * }
 * ```
 */
export interface ModelTool<Input = unknown, Output = unknown, App = unknown> {
  readonly id: string
  readonly description: string
  /** What the model passes: a JSON Schema, or a Standard Schema whose output `execute` receives. */
  readonly inputSchema: Schema<Input>
  /** What `execute` returns, checked after each call (a JSON Schema or a Standard Schema). */
  readonly outputSchema?: Schema<Output> | undefined
  /**
   * Writes the JSON Schema the model reads for a Standard Schema that carries none (valibot without
   * `toStandardJsonSchema`, zod 3). Not needed for JSON Schema, zod 4 or arktype 2.
   */
  readonly toJSONSchema?: ToJSONSchema | undefined
  execute(input: Input, context: ToolExecutionContext<App>): MaybePromise<Output>
}

/**
 * What {@link defineModelTool} takes when it infers the input type from the schema: a {@link ModelTool}
 * whose `inputSchema` is kept as its own type parameter.
 * @example
 * ```ts
 * import type { ModelToolDefinition } from '@agent-core/core/tools'
 * import { z } from 'zod'
 * const city = z.object({ city: z.string() })
 * const definition: ModelToolDefinition<typeof city, string> = {
 *   id: 'weather',
 *   description: 'Current weather in a city',
 *   inputSchema: city,
 *   execute: ({ city }) => `sunny in ${city}`,
 * }
 * ```
 */
export interface ModelToolDefinition<InputSchema extends Schema, Output = unknown, App = unknown>
  extends Omit<ModelTool<InferSchema<InputSchema>, Output, App>, 'inputSchema' | 'execute'> {
  readonly inputSchema: InputSchema
  execute(input: InferSchema<InputSchema>, context: ToolExecutionContext<App>): MaybePromise<Output>
}

/**
 * A checked tool's schemas compiled: the JSON Schemas the model reads and the validators calls go
 * through (see {@link modelToolSchemas}).
 * @example
 * ```ts
 * import { modelToolSchemas, type ModelToolSchemas } from '@agent-core/core/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const add: ModelTool<{ a: number; b: number }, number>
 * const schemas: ModelToolSchemas<{ a: number; b: number }, number> = modelToolSchemas(add)
 * const parameters = schemas.input.jsonSchema
 * ```
 */
export interface ModelToolSchemas<Input = unknown, Output = unknown> {
  readonly input: CompiledSchema<Input>
  /**
   * The output schema; its `jsonSchema` is `undefined` when a Standard Schema cannot write one (a transform,
   * no converter): the model does not need it, and MCP and the sandbox then describe the output as unknown.
   */
  readonly output: CompiledSchema<Output, JsonSchema | undefined> | undefined
}

/**
 * The record of one invocation, as journaled.
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { invokeModelTool, type ToolInvocation } from '@agent-core/core/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const add: ModelTool<{ a: number; b: number }, number>
 * const invocation: ToolInvocation<number> = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext())
 * console.log(invocation.toolId, invocation.output, invocation.finishedAtMs - invocation.startedAtMs)
 * ```
 */
export interface ToolInvocation<Output = unknown> {
  readonly invocationId: string
  readonly toolId: string
  readonly startedAtMs: number
  readonly finishedAtMs: number
  readonly output: Output
}

const compiledTools = new WeakMap<object, ModelToolSchemas>()

/**
 * Checks a tool definition (id, description, schemas compile, execute is a function) and returns it
 * unchanged, typed. Checking happens once here, not on each call. With a Standard Schema (zod, valibot,
 * arktype, ...) or a JSON Schema written `as const`, the input type is inferred from `inputSchema`: no
 * type arguments, and `execute` reading a field the schema does not have is a compile error. Type
 * arguments (`defineModelTool<Input, Output, App>`) still type a tool whose JSON Schema is not `as const`.
 * @throws {@link InvalidDefinitionError} for a malformed definition, an invalid JSON Schema, or a Standard
 *   Schema without a way to write the JSON Schema the model reads (pass `toJSONSchema`)
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { z } from 'zod'
 * const weather = defineModelTool({
 *   id: 'weather',
 *   description: 'Current weather in a city',
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: ({ city }) => `sunny in ${city}`,
 * })
 * const add = defineModelTool<{ a: number; b: number }, number>({
 *   id: 'add',
 *   description: 'Adds two numbers',
 *   inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
 *   execute: ({ a, b }) => a + b,
 * })
 * ```
 */
export function defineModelTool<InputSchema extends Schema, Output = unknown, App = unknown>(
  // A type argument with a string index (`defineModelTool<Record<string, unknown>>`) is an input type,
  // never a schema's own type: that call goes to the overload below.
  tool: ModelToolDefinition<InputSchema, Output, App> & (string extends keyof InputSchema ? never : unknown),
): ModelTool<InferSchema<InputSchema>, Output, App>
export function defineModelTool<Input = unknown, Output = unknown, App = unknown>(
  tool: ModelTool<Input, Output, App>,
): ModelTool<Input, Output, App>
export function defineModelTool<Input = unknown, Output = unknown, App = unknown>(
  tool: ModelTool<Input, Output, App>,
): ModelTool<Input, Output, App> {
  assertObject(tool as unknown, 'tool', {
    where: 'defineModelTool',
    error: InvalidDefinitionError,
    hint: 'Pass { id, description, inputSchema, execute }.',
  })
  if (typeof tool.id !== 'string' || !TOOL_ID_PATTERN.test(tool.id)) {
    refuseField(
      'definition',
      'id',
      `must match ${TOOL_ID_PATTERN} (letters, digits, _ and -, at most 64), but got ${describeValue(tool.id)}`,
      tool.id,
      { prefix: 'A model tool ', details: { id: typeof tool.id === 'string' ? tool.id : undefined } },
    )
  }
  if (typeof tool.description !== 'string')
    throw new InvalidDefinitionError(
      `Tool "${tool.id}" needs a description string for the model, but got ${describeValue(tool.description)}. Say what the tool does and when to use it.`,
      { details: { id: tool.id, field: 'description', received: describeValue(tool.description) } },
    )
  assertFunction(tool.execute, 'execute', {
    where: `Tool "${tool.id}"`,
    error: InvalidDefinitionError,
    details: { id: tool.id },
    hint: 'Give it execute(input, context), which returns the output or a Promise of it.',
  })
  const toJSONSchema = tool.toJSONSchema
  compiledTools.set(tool, {
    input: compileSchema(tool.inputSchema, {
      what: `Tool "${tool.id}" inputSchema`,
      field: 'inputSchema',
      toJSONSchema,
    }),
    output:
      tool.outputSchema === undefined
        ? undefined
        : compileSchema(tool.outputSchema, {
            what: `Tool "${tool.id}" outputSchema`,
            field: 'outputSchema',
            direction: 'output',
            toJSONSchema,
            requireJsonSchema: false,
          }),
  })
  return tool
}

/**
 * A tool's schemas as compiled by {@link defineModelTool} (checking the tool first when it was not): the
 * JSON Schema to send the model as the tool's parameters (`input.jsonSchema`, converted from a Standard
 * Schema when the tool has one) and the validators a call goes through. Kits that hand tools to a model
 * or a protocol (the agent loop, MCP, the sandbox) read the JSON Schema here, never `tool.inputSchema`.
 * @throws {@link InvalidDefinitionError} for a malformed tool
 * @example
 * ```ts
 * import { defineModelTool, modelToolSchemas } from '@agent-core/core/tools'
 * import { z } from 'zod'
 * const weather = defineModelTool({
 *   id: 'weather',
 *   description: 'Current weather in a city',
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: ({ city }) => `sunny in ${city}`,
 * })
 * const parameters = modelToolSchemas(weather).input.jsonSchema // { type: 'object', properties: { city: ... } ... }
 * ```
 */
export function modelToolSchemas<Input, Output, App>(
  tool: ModelTool<Input, Output, App>,
): ModelToolSchemas<Input, Output> {
  let compiled = compiledTools.get(tool)
  if (!compiled) {
    defineModelTool(tool)
    compiled = compiledTools.get(tool) as ModelToolSchemas
  }
  return compiled as ModelToolSchemas<Input, Output>
}

let counter = 0
/**
 * Allocates a new invocation id: unique within the process and, with `crypto.randomUUID`, across
 * processes. Kits reuse the id core allocated instead of making their own.
 * @example
 * ```ts
 * import { createInvocationId } from '@agent-core/core/tools'
 * createInvocationId() // 'inv_…'
 * ```
 */
export function createInvocationId(): string {
  counter += 1
  return `${createId('inv')}_${counter.toString(36)}`
}

/**
 * Options of {@link invokeModelTool}.
 * @example
 * ```ts
 * import type { InvokeModelToolOptions } from '@agent-core/core/tools'
 * const options: InvokeModelToolOptions = { invocationId: 'inv_1', inputValidated: true }
 * ```
 */
export interface InvokeModelToolOptions {
  /** The invocation id to use (a kit that allocated one already); default: a new one. */
  readonly invocationId?: string | undefined
  /**
   * True when the caller has already checked `input` against the tool's `inputSchema` (the tools kit's
   * lifecycle does, in its protocol phase): the input is then not validated a second time.
   */
  readonly inputValidated?: boolean | undefined
  /** Receives the tool's progress reports while it runs (checked; none after it settled). */
  readonly progress?: ToolProgressReporter | undefined
}

/**
 * Validates the input (unless `options.inputValidated`), allocates an invocation id, runs the tool with the run's context, validates the
 * output and journals start and finish to the context's diagnostics (`tool-invocation-start`,
 * `tool-invocation-finish`, `tool-invocation-fail`).
 * @throws {@link InvalidInputError} before execute when the input fails the schema;
 *   {@link InvalidOutputError} when the output fails `outputSchema`; {@link AbortedError} when the signal is aborted before execution
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { invokeModelTool } from '@agent-core/core/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const add: ModelTool<{ a: number; b: number }, number>
 * const { output, invocationId } = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext())
 * ```
 */
export async function invokeModelTool<Input, Output, App>(
  tool: ModelTool<Input, Output, App>,
  input: unknown,
  context: OperationContext<App>,
  options: InvokeModelToolOptions = {},
): Promise<ToolInvocation<Output>> {
  const compiled = modelToolSchemas(tool)
  // The tools kit's lifecycle checks the input in its protocol phase: a JSON Schema input is not validated
  // again. A Standard Schema is run here once more, since the value it yields (transforms applied) is what
  // `execute` receives.
  const checked =
    options.inputValidated === true && compiled.input.vendor === undefined
      ? { ok: true as const, value: input as Input }
      : await compiled.input.validate(input)
  if (!checked.ok) {
    throw new InvalidInputError(
      `Input for tool "${tool.id}" does not match its inputSchema: ${formatSchemaIssues(checked.issues)}.`,
      {
        details: { toolId: tool.id, issues: checked.issues },
      },
    )
  }
  throwIfAborted(context.signal, `before tool "${tool.id}"`)
  const invocationId = options.invocationId ?? createInvocationId()
  const startedAtMs = context.now()
  context.diagnostics.emit('tool-invocation-start', { toolId: tool.id, invocationId })
  let output: Output
  const reports = invocationProgress(options.progress, tool.id)
  try {
    // The context copied, then two stores: not `{ ...context, invocationId, progress }`, since V8 (Node 20)
    // makes a new hidden class for each property added after a spread, on every call.
    const toolContext = Object.assign({}, context) as {
      -readonly [K in keyof ToolExecutionContext<App>]: ToolExecutionContext<App>[K]
    }
    toolContext.invocationId = invocationId
    toolContext.progress = reports.progress
    output = await tool.execute(checked.value, toolContext)
  } catch (error) {
    reports.settle()
    context.diagnostics.emit(
      'tool-invocation-fail',
      { toolId: tool.id, invocationId, error: String(error) },
      'warn',
    )
    throw error
  }
  reports.settle()
  if (compiled.output) {
    const result = await compiled.output.validate(output)
    if (!result.ok) {
      context.diagnostics.emit(
        'tool-invocation-fail',
        { toolId: tool.id, invocationId, error: 'invalid-output' },
        'warn',
      )
      throw new InvalidOutputError(
        `Tool "${tool.id}" returned output that does not match its outputSchema: ${formatSchemaIssues(result.issues)}.`,
        {
          details: { toolId: tool.id, invocationId, issues: result.issues },
        },
      )
    }
    output = result.value
  }
  const finishedAtMs = context.now()
  context.diagnostics.emit('tool-invocation-finish', {
    toolId: tool.id,
    invocationId,
    durationMs: finishedAtMs - startedAtMs,
  })
  return { invocationId, toolId: tool.id, startedAtMs, finishedAtMs, output }
}
