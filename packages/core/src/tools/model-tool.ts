import {
  assertFunction,
  assertObject,
  describeValue,
  formatSchemaIssues,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  type JsonSchema,
  type JsonSchemaValidator,
  type MaybePromise,
  type OperationContext,
  throwIfAborted,
} from '@agent-core/core'
import { compileJsonSchema } from './compile-json-schema.js'

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
 * The context a tool's `execute` receives: the run's context plus the invocation id core allocated.
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
}

/**
 * A tool a model may call: JSON Schema input (and optionally output), executed with the run's context.
 * Check one with {@link defineModelTool}; run one with {@link invokeModelTool}.
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
  readonly inputSchema: JsonSchema
  readonly outputSchema?: JsonSchema | undefined
  execute(input: Input, context: ToolExecutionContext<App>): MaybePromise<Output>
}

/**
 * The record of one invocation, as journaled.
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { invokeModelTool, type ToolInvocation } from '@agent-core/core/tools'
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

const validators = new WeakMap<
  object,
  { input: JsonSchemaValidator; output: JsonSchemaValidator | undefined }
>()

/**
 * Checks a tool definition (id, description, schemas compile, execute is a function) and returns it
 * unchanged, typed. Checking happens once here, not on each call.
 * @throws {@link InvalidDefinitionError}
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * const add = defineModelTool<{ a: number; b: number }, number>({
 *   id: 'add',
 *   description: 'Adds two numbers',
 *   inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
 *   execute: ({ a, b }) => a + b,
 * })
 * ```
 */
export function defineModelTool<Input = unknown, Output = unknown, App = unknown>(
  tool: ModelTool<Input, Output, App>,
): ModelTool<Input, Output, App> {
  assertObject(tool as unknown, 'tool', {
    where: 'defineModelTool',
    error: InvalidDefinitionError,
    hint: 'Pass { id, description, inputSchema, execute }.',
  })
  if (typeof tool.id !== 'string' || !TOOL_ID_PATTERN.test(tool.id)) {
    throw new InvalidDefinitionError(
      `A model tool id must match ${TOOL_ID_PATTERN} (letters, digits, _ and -, at most 64), but got ${describeValue(tool.id)}.`,
      {
        details: {
          field: 'id',
          id: typeof tool.id === 'string' ? tool.id : undefined,
          received: describeValue(tool.id),
        },
      },
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
  validators.set(tool, {
    input: compileJsonSchema(tool.inputSchema, `Tool "${tool.id}" inputSchema`),
    output:
      tool.outputSchema === undefined
        ? undefined
        : compileJsonSchema(tool.outputSchema, `Tool "${tool.id}" outputSchema`),
  })
  return tool
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
  const random =
    (globalThis.crypto as Crypto | undefined)?.randomUUID?.() ??
    `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
  return `inv_${random}_${counter.toString(36)}`
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
}

const VALID = { ok: true } as const

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
 * const { output, invocationId } = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext())
 * ```
 */
export async function invokeModelTool<Input, Output, App>(
  tool: ModelTool<Input, Output, App>,
  input: unknown,
  context: OperationContext<App>,
  options: InvokeModelToolOptions = {},
): Promise<ToolInvocation<Output>> {
  let compiled = validators.get(tool)
  if (!compiled) {
    defineModelTool(tool)
    compiled = validators.get(tool)!
  }
  const checked = options.inputValidated === true ? VALID : compiled.input.validate(input)
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
  try {
    output = await tool.execute(input as Input, { ...context, invocationId })
  } catch (error) {
    context.diagnostics.emit(
      'tool-invocation-fail',
      { toolId: tool.id, invocationId, error: String(error) },
      'warn',
    )
    throw error
  }
  if (compiled.output) {
    const result = compiled.output.validate(output)
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
  }
  const finishedAtMs = context.now()
  context.diagnostics.emit('tool-invocation-finish', {
    toolId: tool.id,
    invocationId,
    durationMs: finishedAtMs - startedAtMs,
  })
  return { invocationId, toolId: tool.id, startedAtMs, finishedAtMs, output }
}
