import type { StandardSchemaV1 } from '@agent-core/core'
import {
  AgentCoreError,
  type ChatMessage,
  describeValue,
  type ErrorDetails,
  isStandardSchema,
  type JsonSchema,
  type JsonSchemaValidator,
  type ResponseFormat,
  refuseField,
  type SchemaIssue,
} from '@agent-core/core'
import { compileJsonSchema, compileSchema } from '@agent-core/core/tools'
import { parseJsonReply } from './internal/parse-json-reply.js'

/** Names a schema may have where providers see it (the `json_schema` name rule). */
const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/**
 * How the structured answer is requested from the model. `prompt` (the default) works with any model:
 * the schema travels in the instructions and the reply is parsed and validated locally. `json-object` and
 * `json-schema` also ask for the provider's JSON mode (`responseFormat`); the reply is validated locally
 * all the same.
 * @example
 * ```ts
 * import type { StructuredMode } from '@agent-core/kits/models'
 * const mode: StructuredMode = 'json-schema'
 * ```
 */
export type StructuredMode = 'prompt' | 'json-object' | 'json-schema'

/**
 * What {@link defineStructuredOutput} takes.
 * @example
 * ```ts
 * import type { StructuredOutputOptions } from '@agent-core/kits/models'
 * const options: StructuredOutputOptions<{ city: string }> = {
 *   name: 'Place',
 *   schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
 * }
 * ```
 */
export interface StructuredOutputOptions<Value = unknown> {
  /** A JSON Schema (validated with ajv) or any Standard Schema validator (zod, valibot, arktype, ...). */
  readonly schema: JsonSchema | StandardSchemaV1<unknown, Value>
  /** Shown to the model and used as the `json_schema` name: letters, digits, `_`, `-`, 1 to 64. Default `output`. */
  readonly name?: string | undefined
  /** What the value is, in a sentence the model reads. */
  readonly description?: string | undefined
  /**
   * The JSON Schema shown to the model for a Standard Schema validator. Default: the validator's own
   * (`~standard.jsonSchema.input`) when it implements Standard JSON Schema; without either the model only
   * reads `description` and the validation issues.
   */
  readonly jsonSchema?: JsonSchema | undefined
  /** How many times validation issues are fed back to the model for another try: a safe integer of at least 0. Default 1. */
  readonly maxCorrections?: number | undefined
}

/**
 * The outcome of {@link StructuredOutput.parse}.
 * @example
 * ```ts
 * import type { StructuredParse } from '@agent-core/kits/models'
 * function describe(result: StructuredParse<number>): string {
 *   return result.ok ? `got ${result.value}` : result.issues.map((issue) => issue.message).join('; ')
 * }
 * ```
 */
export type StructuredParse<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] }

/**
 * One reply that was refused: the model's text and what was wrong with it.
 * @example
 * ```ts
 * import type { StructuredAttempt } from '@agent-core/kits/models'
 * const attempt: StructuredAttempt = { text: '{"age": "old"}', issues: [{ path: '/age', keyword: 'type', message: 'must be number' }] }
 * ```
 */
export interface StructuredAttempt {
  readonly text: string
  readonly issues: readonly SchemaIssue[]
}

/**
 * Details of a {@link StructuredOutputError}: which value was asked for (`schemaName`, the structured
 * output's `name`), how many replies were asked for, and what was wrong with the last one.
 * @example
 * ```ts
 * import { generateStructured, StructuredOutputError } from '@agent-core/kits/models'
 *
 * try {
 *   await generateStructured({
 *     model: async () => 'five stars', // a model that never answers JSON
 *     name: 'Rating',
 *     schema: { type: 'object', required: ['stars'], properties: { stars: { type: 'integer' } } },
 *     prompt: 'Rate the film.',
 *     maxCorrections: 1,
 *   })
 * } catch (error) {
 *   if (StructuredOutputError.isInstance(error)) {
 *     const { schemaName, attempts, issues } = error.details
 *     console.log(`${schemaName}: ${attempts} replies, last one: ${issues[0]?.message}`)
 *   }
 * }
 * ```
 */
export interface StructuredOutputErrorDetails extends ErrorDetails {
  /** The name of the value asked for: the structured output's `name` (default `"output"`). */
  readonly schemaName: string
  /** Replies asked for, corrections included. */
  readonly attempts: number
  /** The problems of the last reply. */
  readonly issues: readonly SchemaIssue[]
}

/**
 * The model's replies did not yield a valid value within the allowed corrections. `details.issues` are
 * the last reply's problems; {@link StructuredOutputError.attempts} holds every refused reply with its
 * issues (the model's text is kept on the error, not in `details`).
 * @example
 * ```ts
 * import { StructuredOutputError } from '@agent-core/kits/models'
 * function report(error: unknown) {
 *   if (StructuredOutputError.isInstance(error)) console.log(error.details.issues, error.attempts.at(-1)?.text)
 * }
 * ```
 */
export class StructuredOutputError extends AgentCoreError<StructuredOutputErrorDetails> {
  static override readonly code = 'structured-output-invalid'
  declare readonly code: 'structured-output-invalid'
  /** Every refused reply, oldest first. */
  readonly attempts: readonly StructuredAttempt[]

  constructor(
    message: string,
    options: {
      readonly details: StructuredOutputErrorDetails
      readonly attempts: readonly StructuredAttempt[]
      readonly cause?: unknown
    },
  ) {
    super(
      'structured-output-invalid',
      message,
      options.cause === undefined
        ? { details: options.details }
        : { details: options.details, cause: options.cause },
    )
    this.attempts = Object.freeze([...options.attempts])
  }
}

/**
 * A compiled structured-output contract: the instructions a model reads, the local parser and validator,
 * the correction messages and the final error. {@link generateStructured} and {@link chooseRoute} use it;
 * so can any other flow that asks a model for a value (the agent loop's answer stage, a reflection
 * critic), so that corrections and errors stay the same everywhere.
 * @example
 * ```ts
 * import { defineStructuredOutput } from '@agent-core/kits/models'
 * const rating = defineStructuredOutput<{ stars: number }>({
 *   name: 'Rating',
 *   schema: { type: 'object', required: ['stars'], properties: { stars: { type: 'integer', minimum: 1, maximum: 5 } } },
 * })
 * const parsed = await rating.parse('```json\n{"stars": 4}\n```')
 * // parsed: { ok: true, value: { stars: 4 } }
 * ```
 */
export interface StructuredOutput<Value> {
  readonly name: string
  readonly description: string | undefined
  /** The JSON Schema the model is shown, when there is one. */
  readonly jsonSchema: JsonSchema | undefined
  readonly maxCorrections: number
  /** The instructions to append to the system message: reply with JSON only, matching the schema. */
  readonly instructions: string
  /** The provider `responseFormat` for a mode (`undefined` for `prompt`). */
  responseFormat(mode: StructuredMode): ResponseFormat | undefined
  /** Reads a reply: strips code fences and a reasoning block, parses JSON, validates it. Never throws for a bad reply. */
  parse(text: string): Promise<StructuredParse<Value>>
  /** The feedback a model reads after a refused reply. */
  feedback(issues: readonly SchemaIssue[]): string
  /** The messages to append after a refused reply: the reply itself, then the feedback. */
  correction(text: string, issues: readonly SchemaIssue[]): readonly ChatMessage[]
  /** The error to throw once corrections are used up. */
  failure(attempts: readonly StructuredAttempt[]): StructuredOutputError
}

/** A custom first reading of a reply, used by routes (a bare route name is accepted). */
export type ReplyReader = (text: string) => { readonly value: unknown } | undefined

const defined = new WeakSet<object>()

/** True for an object built by {@link defineStructuredOutput}. */
export function isStructuredOutput(value: unknown): value is StructuredOutput<unknown> {
  return typeof value === 'object' && value !== null && defined.has(value)
}

function formatIssue(issue: SchemaIssue): string {
  return issue.path === '/' ? `- the value ${issue.message}` : `- ${issue.path}: ${issue.message}`
}

/**
 * Compiles a structured-output contract from a JSON Schema (validated with ajv through
 * `@agent-core/core/tools`) or any Standard Schema validator (zod, valibot, arktype, ...; its output
 * value, with transforms and defaults applied, is what `parse` returns).
 *
 * @throws `InvalidDefinitionError` for a schema that is neither, an invalid JSON Schema, a bad name or a bad
 *   `maxCorrections`
 * @example
 * ```ts
 * import { defineStructuredOutput } from '@agent-core/kits/models'
 * import { z } from 'zod'
 * const person = defineStructuredOutput({ name: 'Person', schema: z.object({ name: z.string(), age: z.number() }) })
 * const parsed = await person.parse('{"name":"Ada","age":36}')
 * ```
 */
export function defineStructuredOutput<Value = unknown>(
  options: StructuredOutputOptions<Value>,
): StructuredOutput<Value> {
  return compileStructuredOutput(options, undefined)
}

/** {@link defineStructuredOutput} with an optional custom first reading of replies. */
export function compileStructuredOutput<Value>(
  options: StructuredOutputOptions<Value>,
  readReply: ReplyReader | undefined,
): StructuredOutput<Value> {
  if (typeof options !== 'object' || options === null) {
    refuseField(
      'definition',
      'options',
      `must be an object { schema, name?, description?, maxCorrections? }, but got ${describeValue(options)}`,
      options,
      { prefix: 'Structured output ' },
    )
  }
  const { schema, name = 'output', description, jsonSchema, maxCorrections = 1 } = options
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    refuseField(
      'definition',
      'name',
      `must be 1 to 64 letters, digits, "_" or "-" (providers require it), but got ${describeValue(name)}`,
      name,
      { prefix: 'A structured output ' },
    )
  }
  if (description !== undefined && typeof description !== 'string') {
    refuseField(
      'definition',
      'description',
      `must be a string or left out, but got ${describeValue(description)}`,
      description,
    )
  }
  if (typeof maxCorrections !== 'number' || !Number.isSafeInteger(maxCorrections) || maxCorrections < 0) {
    refuseField(
      'definition',
      'maxCorrections',
      `must be a safe integer that is not negative (0 turns corrections off), but got ${describeValue(maxCorrections)}`,
      maxCorrections,
    )
  }
  if (jsonSchema !== undefined) compileShown(jsonSchema, 'jsonSchema')

  if (
    !isStandardSchema(schema) &&
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    refuseField(
      'definition',
      'schema',
      `must be a JSON Schema or a Standard Schema validator (zod, valibot, arktype, ...), but got ${describeValue(schema)}`,
      schema,
    )
  }
  // One schema layer for every entry point (core's): ajv for JSON Schema, the validator's own
  // `~standard.validate` for a Standard Schema. Without a JSON Schema the model reads only the description.
  const compiled = compileSchema<Value>(schema, { what: 'schema', field: 'schema', requireJsonSchema: false })
  const shown: JsonSchema | undefined = jsonSchema ?? compiled.jsonSchema
  const validate = (value: unknown): StructuredParse<Value> | Promise<StructuredParse<Value>> =>
    compiled.validate(value)

  let shownText: string | undefined
  if (shown !== undefined) {
    try {
      shownText = JSON.stringify(shown)
    } catch (error) {
      refuseField(
        'definition',
        jsonSchema === undefined ? 'schema' : 'jsonSchema',
        `cannot be written as JSON (${error instanceof Error ? error.message : String(error)}); use plain JSON values in the schema`,
        shown,
        { prefix: `Structured output "${name}": `, cause: error },
      )
    }
  }
  const instructions = [
    'Reply with exactly one JSON value and nothing else: no explanation and no Markdown code fences.',
    `The value is "${name}"${description ? `: ${description}` : '.'}`,
    ...(shownText === undefined ? [] : ['It must be valid against this JSON Schema:', shownText]),
  ].join('\n')

  const output: StructuredOutput<Value> = {
    name,
    description,
    jsonSchema: shown,
    maxCorrections,
    instructions,
    responseFormat(mode) {
      if (mode === 'prompt') return undefined
      if (mode === 'json-object') return { type: 'json_object' }
      if (mode === 'json-schema' && shown !== undefined) return { type: 'json_schema', name, schema: shown }
      refuseField(
        'input',
        'mode',
        mode === 'json-schema'
          ? `is "json-schema", but structured output "${name}" has no JSON Schema to send as responseFormat: pass jsonSchema, or use mode "prompt" or "json-object"`
          : `must be "prompt", "json-object" or "json-schema", but got ${describeValue(mode)}`,
        mode,
      )
    },
    async parse(text) {
      if (typeof text !== 'string') {
        return {
          ok: false,
          issues: [{ path: '/', keyword: 'reply', message: `is not text (got ${describeValue(text)})` }],
        }
      }
      const custom = readReply?.(text)
      if (custom !== undefined) return validate(custom.value)
      const reply = parseJsonReply(text)
      if (!reply.ok)
        return {
          ok: false,
          issues: [{ path: '/', keyword: 'json', message: `could not be read: ${reply.message}` }],
        }
      try {
        return await validate(reply.value)
      } catch (error) {
        return {
          ok: false,
          issues: [
            {
              path: '/',
              keyword: 'schema',
              message: `could not be validated: ${error instanceof Error ? error.message : String(error)}`,
            },
          ],
        }
      }
    },
    feedback(issues) {
      return [
        `Your previous reply could not be used as "${name}":`,
        ...issues.map(formatIssue),
        'Reply again with only the corrected JSON value.',
      ].join('\n')
    },
    correction(text, issues) {
      return [
        { role: 'assistant', content: text },
        { role: 'user', content: output.feedback(issues) },
      ]
    },
    failure(attempts) {
      const last = attempts.at(-1)?.issues ?? []
      const corrections = Math.max(0, attempts.length - 1)
      return new StructuredOutputError(
        `The model's reply did not match "${name}" after ${attempts.length} ${attempts.length === 1 ? 'attempt' : 'attempts'} (${corrections} ${corrections === 1 ? 'correction' : 'corrections'}): ${last.map((issue) => `${issue.path} ${issue.message}`).join('; ') || 'no issues recorded'}. Raise maxCorrections, describe the value better, or use a provider JSON mode.`,
        { details: { schemaName: name, attempts: attempts.length, issues: last }, attempts },
      )
    },
  }
  Object.freeze(output)
  defined.add(output)
  return output
}

function compileShown(schema: unknown, field: string): JsonSchemaValidator {
  return compileJsonSchema(schema as JsonSchema, field)
}
