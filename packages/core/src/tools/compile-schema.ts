import {
  describeValue,
  InvalidDefinitionError,
  isStandardSchema,
  isThenable,
  type JsonSchema,
  type Schema,
  type SchemaIssue,
  type SchemaResult,
  type StandardSchemaV1,
} from '@agent-core/core'
import { compileJsonSchema } from './compile-json-schema.js'

/**
 * Which side of a Standard Schema the JSON Schema describes: what it accepts (`input`, the default: a
 * tool's input, which the model writes) or what it yields (`output`, with transforms applied: a tool's
 * output, which the model reads).
 * @example
 * ```ts
 * import type { SchemaDirection } from '@agent-core/core/tools'
 * const direction: SchemaDirection = 'output'
 * ```
 */
export type SchemaDirection = 'input' | 'output'

/**
 * A converter from a Standard Schema to the JSON Schema a model reads, for a library whose validators
 * carry none (valibot without `toStandardJsonSchema`, zod 3, ...). It may throw when the schema cannot be
 * expressed as JSON Schema.
 * @example
 * ```ts
 * import { toJsonSchema } from '@valibot/to-json-schema'
 * import type { ToJSONSchema } from '@agent-core/core/tools'
 * import type * as v from 'valibot'
 * const fromValibot: ToJSONSchema = (schema) => toJsonSchema(schema as v.GenericSchema)
 * ```
 */
export type ToJSONSchema = (
  schema: StandardSchemaV1,
  options: { readonly direction: SchemaDirection },
) => JsonSchema | object

/**
 * How {@link compileSchema} names, converts and requires.
 * @example
 * ```ts
 * import type { CompileSchemaOptions } from '@agent-core/core/tools'
 * const options: CompileSchemaOptions = { what: 'Tool "weather" inputSchema', field: 'inputSchema' }
 * ```
 */
export interface CompileSchemaOptions {
  /** How messages name the schema: `Tool "weather" inputSchema`. Default `schema`. */
  readonly what?: string | undefined
  /** `details.field` of a definition error. Default `schema`. */
  readonly field?: string | undefined
  /** Which side of a Standard Schema the JSON Schema describes. Default `input`. */
  readonly direction?: SchemaDirection | undefined
  /** The converter to use for a Standard Schema (before the schema's own). */
  readonly toJSONSchema?: ToJSONSchema | undefined
  /**
   * Whether a Standard Schema without a JSON Schema is refused (`true`, the default: a model needs it) or
   * compiled with `jsonSchema: undefined`.
   */
  readonly requireJsonSchema?: boolean | undefined
}

/**
 * A schema compiled once: the JSON Schema the model reads and a validator that yields the valid value.
 * A JSON Schema validates with ajv (synchronously); a Standard Schema validates through its own
 * `~standard.validate` (transforms, defaults and refinements apply; asynchronous when the library's
 * validator is), and its issues become {@link SchemaIssue}s (`keyword: 'schema'`, `path` a JSON Pointer).
 * @example
 * ```ts
 * import { compileSchema } from '@agent-core/core/tools'
 * import { z } from 'zod'
 * const city = compileSchema(z.object({ city: z.string().trim() }))
 * city.jsonSchema // { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], ... }
 * const result = await city.validate({ city: ' Oslo ' }) // { ok: true, value: { city: 'Oslo' } }
 * ```
 */
export interface CompiledSchema<Value = unknown, Json extends JsonSchema | undefined = JsonSchema> {
  /** The schema as given. */
  readonly source: Schema<Value>
  /** The Standard Schema's vendor (`zod`, `valibot`, `arktype`, ...); `undefined` for a JSON Schema. */
  readonly vendor: string | undefined
  /** The JSON Schema the model reads (a Standard Schema's converted, without its `$schema` line). */
  readonly jsonSchema: Json
  /** Validates a value; a Promise only for a Standard Schema whose validator is asynchronous. */
  validate(value: unknown): SchemaResult<Value> | Promise<SchemaResult<Value>>
}

function pointer(path: StandardSchemaV1.Issue['path']): string {
  if (!Array.isArray(path) || path.length === 0) return '/'
  return path
    .map((segment: unknown) => {
      const key =
        typeof segment === 'object' && segment !== null
          ? (segment as StandardSchemaV1.PathSegment).key
          : segment
      return `/${String(typeof key === 'symbol' ? key.description : key)
        .replaceAll('~', '~0')
        .replaceAll('/', '~1')}`
    })
    .join('')
}

/**
 * A Standard Schema's issues as {@link SchemaIssue}s: `path` a JSON Pointer (`/address/city`), `keyword`
 * `schema`, `message` the library's own.
 * @example
 * ```ts
 * import { standardIssues } from '@agent-core/core/tools'
 * standardIssues([{ message: 'Required', path: ['address', 'city'] }])
 * // [{ path: '/address/city', keyword: 'schema', message: 'Required' }]
 * ```
 */
export function standardIssues(issues: unknown): SchemaIssue[] {
  if (!Array.isArray(issues) || issues.length === 0) {
    return [{ path: '/', keyword: 'schema', message: 'was refused by the validator without an issue list' }]
  }
  return issues.map((issue: unknown) => {
    const { message, path } = (
      typeof issue === 'object' && issue !== null ? issue : {}
    ) as StandardSchemaV1.Issue
    return {
      path: pointer(path),
      keyword: 'schema',
      message: typeof message === 'string' && message ? message : 'is invalid',
    }
  })
}

function standardResult<Value>(result: unknown): SchemaResult<Value> {
  if (typeof result !== 'object' || result === null) {
    return {
      ok: false,
      issues: [
        {
          path: '/',
          keyword: 'schema',
          message: `could not be validated (the validator returned ${describeValue(result)})`,
        },
      ],
    }
  }
  const { issues } = result as { issues?: unknown }
  if (issues !== undefined) return { ok: false, issues: standardIssues(issues) }
  return { ok: true, value: (result as { value: Value }).value }
}

function thrown(error: unknown): SchemaResult<never> {
  const message = `could not be validated: ${error instanceof Error ? error.message : String(error)}`
  return { ok: false, issues: [{ path: '/', keyword: 'schema', message }] }
}

const TARGETS = ['draft-2020-12', 'draft-07'] as const

/** The converter a library ships on the schema itself, if any (Standard JSON Schema, zod, arktype). */
function ownConverter(schema: StandardSchemaV1): ToJSONSchema | undefined {
  const standard = schema['~standard']
  const converter = standard.jsonSchema
  if (converter !== undefined && typeof converter.input === 'function') {
    return (_schema, { direction }) => {
      let failure: unknown
      // Standard JSON Schema: ask for 2020-12, then draft-07 for libraries that only write that one.
      for (const target of TARGETS) {
        try {
          return converter[direction]({ target }) as JsonSchema
        } catch (error) {
          failure ??= error
        }
      }
      throw failure
    }
  }
  const methods = schema as unknown as {
    toJSONSchema?: (options?: { io?: SchemaDirection }) => unknown
    toJsonSchema?: () => unknown
  }
  // zod 4 before Standard JSON Schema (4.0, 4.1): `schema.toJSONSchema({ io })`.
  if (standard.vendor === 'zod' && typeof methods.toJSONSchema === 'function') {
    return (_schema, { direction }) => methods.toJSONSchema?.({ io: direction }) as JsonSchema
  }
  // arktype 2 before Standard JSON Schema: `type.toJsonSchema()`.
  if (standard.vendor === 'arktype' && typeof methods.toJsonSchema === 'function') {
    return () => methods.toJsonSchema?.() as JsonSchema
  }
  return undefined
}

function hint(vendor: string): string {
  const wrap =
    vendor === 'valibot'
      ? ' For valibot, wrap the schema with toStandardJsonSchema(schema) from @valibot/to-json-schema, or pass toJSONSchema: (schema) => toJsonSchema(schema) from the same package.'
      : vendor === 'zod'
        ? ' zod 4 writes JSON Schema itself; with zod 3, pass toJSONSchema (for example from zod-to-json-schema).'
        : ''
  return `Pass toJSONSchema (a function from the Standard Schema to a JSON Schema), or give the schema as JSON Schema.${wrap}`
}

function withoutDialect(json: JsonSchema): JsonSchema {
  if (typeof json !== 'object' || json === null || !('$schema' in json)) return json
  const { $schema: _dialect, ...rest } = json
  return rest
}

function convert(
  schema: StandardSchemaV1,
  options: CompileSchemaOptions,
  what: string,
  field: string,
): JsonSchema | undefined {
  const vendor = String(schema['~standard'].vendor)
  const direction = options.direction ?? 'input'
  const converter = options.toJSONSchema ?? ownConverter(schema)
  const required = options.requireJsonSchema ?? true
  if (converter === undefined) {
    if (!required) return undefined
    throw new InvalidDefinitionError(
      `${what} is a ${vendor} Standard Schema that cannot write JSON Schema, and the model needs one. ${hint(vendor)}`,
      { details: { field, received: `a ${vendor} schema without a JSON Schema converter` } },
    )
  }
  let json: unknown
  try {
    json = converter(schema, { direction })
  } catch (error) {
    if (!required) return undefined
    throw new InvalidDefinitionError(
      `${what} (a ${vendor} schema) could not be converted to JSON Schema: ${(error instanceof Error ? error.message : String(error)).replace(/\.$/, '')}. ${hint(vendor)}`,
      { cause: error, details: { field, received: `a ${vendor} schema` } },
    )
  }
  if (typeof json !== 'boolean' && (typeof json !== 'object' || json === null || Array.isArray(json))) {
    throw new InvalidDefinitionError(
      `The JSON Schema converter of ${what} returned ${describeValue(json)}, not a JSON Schema object or boolean.`,
      { details: { field, received: describeValue(json) } },
    )
  }
  return Object.freeze(withoutDialect(json as JsonSchema))
}

/**
 * Compiles a schema in either form (see `Schema` in `@agent-core/core`): a JSON Schema through ajv
 * ({@link compileJsonSchema}), a Standard Schema (zod 4, valibot 1, arktype 2, ...) through its own
 * validator, with the JSON Schema for the model taken from `toJSONSchema`, the Standard JSON Schema
 * converter on the schema (`~standard.jsonSchema`: zod 4.2+, arktype 2.1+, valibot through
 * `toStandardJsonSchema`), or the library's own method (zod's `toJSONSchema()`, arktype's
 * `toJsonSchema()`). No schema library is imported: a Standard Schema is recognised by its `~standard`
 * marker.
 * @throws {@link InvalidDefinitionError} for a value that is neither form, an invalid JSON Schema, a
 *   Standard Schema of another version, or one without a JSON Schema when `requireJsonSchema` is not `false`
 * @example
 * ```ts
 * import { compileSchema } from '@agent-core/core/tools'
 * import { z } from 'zod'
 * const age = compileSchema(z.coerce.number().int().min(0), { what: 'age' })
 * await age.validate('42') // { ok: true, value: 42 }
 * const literal = compileSchema({ type: 'integer', minimum: 0 })
 * literal.validate(-1) // { ok: false, issues: [{ path: '/', keyword: 'minimum', message: 'must be >= 0' }] }
 * ```
 */
export function compileSchema<Value = unknown>(
  schema: Schema<Value>,
  options?: CompileSchemaOptions & { readonly requireJsonSchema?: true | undefined },
): CompiledSchema<Value>
export function compileSchema<Value = unknown>(
  schema: Schema<Value>,
  options: CompileSchemaOptions,
): CompiledSchema<Value, JsonSchema | undefined>
export function compileSchema<Value = unknown>(
  schema: Schema<Value>,
  options: CompileSchemaOptions = {},
): CompiledSchema<Value, JsonSchema | undefined> {
  const what = options.what ?? 'schema'
  const field = options.field ?? 'schema'
  if (options.toJSONSchema !== undefined && typeof options.toJSONSchema !== 'function') {
    throw new InvalidDefinitionError(
      `toJSONSchema for ${what} must be a function from the Standard Schema to a JSON Schema, but got ${describeValue(options.toJSONSchema)}.`,
      { details: { field: 'toJSONSchema', received: describeValue(options.toJSONSchema) } },
    )
  }
  if (isStandardSchema(schema)) {
    const standard = schema['~standard']
    if (standard.version !== 1) {
      throw new InvalidDefinitionError(
        `${what} implements Standard Schema version ${describeValue(standard.version)}; only version 1 is supported.`,
        { details: { field, received: describeValue(standard.version) } },
      )
    }
    const jsonSchema = convert(schema, options, what, field)
    return Object.freeze({
      source: schema,
      vendor: String(standard.vendor),
      jsonSchema,
      validate(value: unknown): SchemaResult<Value> | Promise<SchemaResult<Value>> {
        let result: unknown
        try {
          result = standard.validate(value)
        } catch (error) {
          return thrown(error)
        }
        if (isThenable(result)) {
          return Promise.resolve(result).then((settled) => standardResult<Value>(settled), thrown)
        }
        return standardResult<Value>(result)
      },
    })
  }
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    throw new InvalidDefinitionError(
      `${what} must be a JSON Schema object or boolean, or a Standard Schema validator (zod, valibot, arktype, ...), but got ${describeValue(schema)}. Pass for example { type: 'object', properties: { ... } } or z.object({ ... }).`,
      { details: { field, received: describeValue(schema) } },
    )
  }
  const validator = compileJsonSchema(schema, what)
  return Object.freeze({
    source: schema,
    vendor: undefined,
    jsonSchema: schema,
    validate(value: unknown): SchemaResult<Value> {
      const checked = validator.validate(value)
      return checked.ok ? { ok: true, value: value as Value } : { ok: false, issues: checked.issues }
    },
  })
}
