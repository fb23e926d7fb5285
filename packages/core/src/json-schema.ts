import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsImport from 'ajv-formats'
import { describeValue } from './errors/agent-core-error.js'
import { InvalidDefinitionError } from './errors/errors.js'

/** A JSON Schema (draft 2020-12 / draft-07 subset understood by ajv). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown }

/** One validation problem: where (a JSON Pointer into the value) and what. */
export interface SchemaIssue {
  readonly path: string
  readonly message: string
  readonly keyword: string
}

/** The result of {@link JsonSchemaValidator.validate}. */
export type SchemaValidation =
  | { readonly ok: true }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] }

/** A compiled JSON Schema. */
export interface JsonSchemaValidator {
  readonly schema: JsonSchema
  validate(value: unknown): SchemaValidation
}

// ajv-formats is CommonJS; its default export arrives either as the function or wrapped in `default`.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (
  ajv: Ajv,
) => Ajv

let shared: Ajv | undefined
const cache = new WeakMap<object, JsonSchemaValidator>()

function ajv(): Ajv {
  if (!shared) {
    shared = new Ajv({ allErrors: true, strict: false, validateFormats: true })
    addFormats(shared)
  }
  return shared
}

function toIssues(errors: readonly ErrorObject[] | null | undefined): SchemaIssue[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath || '/',
    keyword: e.keyword,
    message:
      e.keyword === 'additionalProperties'
        ? `has unexpected property "${(e.params as { additionalProperty: string }).additionalProperty}"`
        : (e.message ?? 'is invalid'),
  }))
}

/** Formats issues as `"/a/b must be string; / must have required property 'x'"`. */
export function formatSchemaIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.path} ${i.message}`).join('; ')
}

/**
 * Compiles a JSON Schema once (cached per schema object) with ajv and ajv-formats.
 * @throws {@link InvalidDefinitionError} when the schema itself is invalid
 * @example
 * ```ts
 * import { compileJsonSchema } from '@agent-core/core'
 * const validator = compileJsonSchema({ type: 'object', required: ['q'], properties: { q: { type: 'string' } } })
 * validator.validate({ q: 'hello' }) // { ok: true }
 * ```
 */
export function compileJsonSchema(schema: JsonSchema, what = 'schema'): JsonSchemaValidator {
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    throw new InvalidDefinitionError(
      `${what} must be a JSON Schema object or boolean, but got ${describeValue(schema)}.`,
    )
  }
  if (typeof schema === 'object') {
    const hit = cache.get(schema)
    if (hit) return hit
  }
  let fn: ValidateFunction
  try {
    fn = ajv().compile(schema as object | boolean)
  } catch (error) {
    throw new InvalidDefinitionError(`${what} is not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    })
  }
  const validator: JsonSchemaValidator = {
    schema,
    validate(value) {
      return fn(value) ? { ok: true } : { ok: false, issues: toIssues(fn.errors) }
    },
  }
  if (typeof schema === 'object') cache.set(schema, validator)
  return validator
}
