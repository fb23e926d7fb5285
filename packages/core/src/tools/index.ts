/**
 * Model tools and schema validation: {@link defineModelTool}, {@link invokeModelTool} (input and
 * output checked against the tool's schemas, an invocation id allocated by core and journaled),
 * {@link compileSchema} (a JSON Schema through ajv, or a Standard Schema such as zod, valibot or arktype
 * through its own validator, with the JSON Schema a model reads) and {@link compileJsonSchema}. No schema
 * library is imported: a Standard Schema is recognised by its `~standard` marker. This is the only entry of `@agent-core/core` that loads ajv; the root entry
 * stays free of it, so kits that validate no JSON Schema never pay for it.
 *
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { defineModelTool, invokeModelTool } from '@agent-core/core/tools'
 * const add = defineModelTool<{ a: number; b: number }, number>({
 *   id: 'add',
 *   description: 'Adds two numbers',
 *   inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
 *   execute: ({ a, b }) => a + b,
 * })
 * const { output } = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext())
 * ```
 *
 * @module
 */
export {
  type CompileJsonSchemaOptions,
  compileJsonSchema,
  type JsonSchemaRegExpEngine,
} from './compile-json-schema.js'
export {
  type CompiledSchema,
  type CompileSchemaOptions,
  compileSchema,
  type SchemaDirection,
  standardIssues,
  type ToJSONSchema,
} from './compile-schema.js'
export {
  createInvocationId,
  defineModelTool,
  type InvokeModelToolOptions,
  invokeModelTool,
  type ModelTool,
  type ModelToolDefinition,
  type ModelToolSchemas,
  modelToolSchemas,
  TOOL_ID_PATTERN,
  type ToolExecutionContext,
  type ToolInvocation,
} from './model-tool.js'
export type { ToolProgressReporter, ToolProgressUpdate } from './tool-progress.js'
