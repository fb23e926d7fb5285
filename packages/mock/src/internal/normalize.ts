import {
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  isRecord,
  type JsonSchema,
  type JsonSchemaValidator,
  type ResponseFormat,
} from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import { assertSchemaWithinBudget, assertSupportedSchema } from '../schema/index.js'
import { countTokens } from '../tokenizer.js'
import { badRequest } from './openai-error.js'
import type { PromptCachePlan } from './prompt-cache.js'

export interface NormalizedTool {
  readonly name: string
  readonly parameters: JsonSchema
  readonly validator: JsonSchemaValidator
}

/**
 * The answer format a request asks for: core's `ResponseFormat` as MockGPT reads it off the wire (chat's
 * `response_format`, the Responses API's `text.format`, Anthropic's `output_config.format`), a JSON
 * schema with its compiled validator and without `strict` (MockGPT does not read it).
 */
export type NormalizedFormat =
  | Exclude<ResponseFormat, { readonly type: 'json_schema' }>
  | NormalizedJsonSchemaFormat

/** Core's `json_schema` `ResponseFormat` with the schema's compiled validator. */
export interface NormalizedJsonSchemaFormat
  extends Omit<Extract<ResponseFormat, { readonly type: 'json_schema' }>, 'strict'> {
  readonly validator: JsonSchemaValidator
}

export interface NormalizedToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface NormalizedMessage {
  readonly role: string
  readonly text: string
  /** On an assistant message: the tool calls it made. */
  readonly toolCalls?: readonly NormalizedToolCall[]
  /** On a tool message: the call it answers. */
  readonly toolCallId?: string
}

/** A chat-completions or Responses request reduced to what MockGPT's answer depends on. */
export interface NormalizedRequest {
  readonly endpoint: 'chat.completions' | 'responses' | 'messages'
  readonly model: string
  readonly stream: boolean
  readonly includeUsage: boolean
  readonly messages: readonly NormalizedMessage[]
  readonly tools: readonly NormalizedTool[]
  readonly toolChoice: 'auto' | 'none' | 'required' | { readonly name: string }
  readonly parallelToolCalls: boolean
  readonly format: NormalizedFormat
  readonly maxOutputTokens: number | undefined
  readonly stop: readonly string[]
  readonly seed: number | undefined
  readonly inputTokens: number
  readonly body: Readonly<Record<string, unknown>>
  /** Messages API only: the prompt's block boundaries when it marks cache breakpoints. */
  readonly promptCache?: PromptCachePlan | undefined
}

/** Text of a JSON value without calling its `toString` (a body may carry `{ "toString": 1 }`). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}

const validators = new Map<string, JsonSchemaValidator>()
/** The longest schema (as JSON text) a request may carry. */
const MAX_SCHEMA_TEXT = 1024 * 1024

/** Compiles a request's schema once per distinct text (bounded), so repeated requests do not recompile. */
export function compileRequestSchema(
  schema: unknown,
  param: string,
): { schema: JsonSchema; validator: JsonSchemaValidator } {
  if (typeof schema !== 'boolean' && !isRecord(schema)) {
    throw badRequest(`${param} must be a JSON Schema object, but got ${describeValue(schema)}.`, param)
  }
  const key = JSON.stringify(schema)
  let validator = validators.get(key)
  if (!validator) {
    if (key.length > MAX_SCHEMA_TEXT) {
      throw badRequest(
        `${param} has ${key.length} characters of JSON (at most ${MAX_SCHEMA_TEXT}); MockGPT refuses schemas that large before compiling them.`,
        param,
        'unsupported_schema',
      )
    }
    try {
      // Linear size and regex checks first: ajv compiles code per node, and a pattern such as
      // ^((a{1000}){1000}){1000}$ would exhaust memory in the generator.
      assertSchemaWithinBudget(schema)
    } catch (error) {
      if (InvalidInputError.isInstance(error))
        throw badRequest(`${param} is refused: ${error.message}`, param, 'unsupported_schema')
      throw error
    }
    try {
      validator = compileJsonSchema(schema as JsonSchema, param)
    } catch (error) {
      if (InvalidDefinitionError.isInstance(error))
        throw badRequest(`Invalid schema for ${param}: ${error.message}`, param, 'invalid_schema')
      throw error
    }
    if (validators.size >= 512) validators.delete(validators.keys().next().value as string)
    validators.set(key, validator)
  }
  return { schema: validator.schema, validator }
}

/** Throws a 400 naming why MockGPT cannot generate values for `schema`. */
export function assertGeneratable(schema: JsonSchema, param: string, hint: string): void {
  try {
    assertSupportedSchema(schema)
  } catch (error) {
    if (InvalidInputError.isInstance(error) || InvalidDefinitionError.isInstance(error)) {
      throw badRequest(
        `${param} is not supported by MockGPT's value generator: ${error.message} ${hint}`,
        param,
        'unsupported_schema',
      )
    }
    throw error
  }
}

export function optionalInt(body: Record<string, unknown>, key: string, min: number): number | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw badRequest(
      `'${key}' must be an integer of at least ${min}, but got ${describeValue(value)}.`,
      key,
      'invalid_value',
    )
  }
  return value
}

export function partsText(content: unknown, param: string, allowNull: boolean): string {
  if (typeof content === 'string') return content
  if ((content === null || content === undefined) && allowNull) return ''
  if (Array.isArray(content)) {
    const texts: string[] = []
    content.forEach((part, i) => {
      if (!isRecord(part) || typeof part.type !== 'string') {
        throw badRequest(
          `'${param}[${i}]' must be a content part object with a type, but got ${describeValue(part)}.`,
          `${param}[${i}]`,
        )
      }
      if (typeof part.text === 'string') texts.push(part.text)
      else if (typeof part.refusal === 'string') texts.push(part.refusal)
    })
    return texts.join('\n')
  }
  throw badRequest(
    `'${param}' must be a string or an array of content parts, but got ${describeValue(content)}.`,
    param,
  )
}

export function requireModel(body: Record<string, unknown>): string {
  if (body.model === undefined)
    throw badRequest('you must provide a model parameter', 'model', 'missing_required_parameter')
  if (typeof body.model !== 'string' || body.model === '') {
    throw badRequest(`'model' must be a non-empty string, but got ${describeValue(body.model)}.`, 'model')
  }
  return body.model
}

export function toolChoiceOf(
  value: unknown,
  tools: readonly NormalizedTool[],
  param: string,
  chat: boolean,
): NormalizedRequest['toolChoice'] {
  if (value === undefined || value === null) return 'auto'
  if (value === 'auto' || value === 'none' || value === 'required') {
    if (value === 'required' && tools.length === 0)
      throw badRequest(`'${param}' is "required" but no tools were offered.`, param)
    return value
  }
  const name =
    isRecord(value) && value.type === 'function'
      ? chat
        ? isRecord(value.function)
          ? value.function.name
          : undefined
        : value.name
      : undefined
  if (typeof name !== 'string') {
    throw badRequest(
      `'${param}' must be "auto", "none", "required" or ${chat ? '{ type: "function", function: { name } }' : '{ type: "function", name }'}, but got ${describeValue(value)}.`,
      param,
    )
  }
  if (!tools.some((t) => t.name === name)) {
    throw badRequest(
      `'${param}' names the tool "${name}", which is not among the offered tools (${tools.map((t) => t.name).join(', ') || 'none'}).`,
      param,
    )
  }
  return { name }
}

export function toolsOf(value: unknown, chat: boolean): NormalizedTool[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw badRequest(`'tools' must be an array, but got ${describeValue(value)}.`, 'tools')
  const names = new Set<string>()
  return value.map((tool, i) => {
    const param = `tools[${i}]`
    const fn = isRecord(tool) && tool.type === 'function' ? (chat ? tool.function : tool) : undefined
    if (!isRecord(fn)) {
      throw badRequest(
        `'${param}' must be a function tool (${chat ? '{ type: "function", function: { name, parameters } }' : '{ type: "function", name, parameters }'}); MockGPT supports only function tools, but got ${describeValue(isRecord(tool) ? tool.type : tool)}.`,
        param,
      )
    }
    const name = fn.name
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw badRequest(
        `'${param}' name must match ^[a-zA-Z0-9_-]{1,64}$, but got ${describeValue(name)}.`,
        `${param}.name`,
      )
    }
    if (names.has(name))
      throw badRequest(
        `'${param}' repeats the tool name "${name}"; tool names must be unique.`,
        `${param}.name`,
      )
    names.add(name)
    const parametersParam = chat ? `${param}.function.parameters` : `${param}.parameters`
    const { schema, validator } = compileRequestSchema(
      fn.parameters ?? { type: 'object', properties: {} },
      parametersParam,
    )
    return { name, parameters: schema, validator }
  })
}

export function formatOf(value: unknown, param: string, chat: boolean): NormalizedFormat {
  if (value === undefined || value === null) return { type: 'text' }
  if (!isRecord(value))
    throw badRequest(`'${param}' must be an object, but got ${describeValue(value)}.`, param)
  if (value.type === 'text') return { type: 'text' }
  if (value.type === 'json_object') return { type: 'json_object' }
  if (value.type !== 'json_schema') {
    throw badRequest(
      `'${param}.type' must be "text", "json_object" or "json_schema", but got ${describeValue(value.type)}.`,
      `${param}.type`,
    )
  }
  const spec = chat ? value.json_schema : value
  const specParam = chat ? `${param}.json_schema` : param
  if (!isRecord(spec)) throw badRequest(`'${specParam}' is required when type is "json_schema".`, specParam)
  if (typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    throw badRequest(
      `'${specParam}.name' must match ^[a-zA-Z0-9_-]{1,64}$, but got ${describeValue(spec.name)}.`,
      `${specParam}.name`,
    )
  }
  if (spec.schema === undefined)
    throw badRequest(
      `'${specParam}.schema' is required: MockGPT generates the answer from it.`,
      `${specParam}.schema`,
    )
  const { schema, validator } = compileRequestSchema(spec.schema, `${specParam}.schema`)
  assertGeneratable(
    schema,
    `${specParam}.schema`,
    'Simplify the schema, or script the answer with a { type: "json", value } reply.',
  )
  return { type: 'json_schema', name: spec.name, schema, validator }
}

export function finish(partial: Omit<NormalizedRequest, 'inputTokens'>): NormalizedRequest {
  let inputTokens = 3
  for (const m of partial.messages) inputTokens += 3 + countTokens(m.text)
  const body = partial.body
  if (partial.tools.length) inputTokens += countTokens(JSON.stringify(body.tools))
  if (partial.format.type === 'json_schema') inputTokens += countTokens(JSON.stringify(partial.format.schema))
  // Field by field rather than a spread: every request builds one, and a literal is cheaper to create.
  return {
    endpoint: partial.endpoint,
    model: partial.model,
    stream: partial.stream,
    includeUsage: partial.includeUsage,
    messages: partial.messages,
    tools: partial.tools,
    toolChoice: partial.toolChoice,
    parallelToolCalls: partial.parallelToolCalls,
    format: partial.format,
    maxOutputTokens: partial.maxOutputTokens,
    stop: partial.stop,
    seed: partial.seed,
    body,
    inputTokens,
    promptCache: partial.promptCache,
  }
}
