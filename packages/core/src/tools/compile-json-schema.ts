import {
  describeValue,
  InvalidDefinitionError,
  type JsonSchema,
  type JsonSchemaValidator,
  type SchemaIssue,
} from '@agent-core/core'
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
// ajv, its 2020-12 draft and ajv-formats bundled into one module whose code runs on the first `loadAjv()`
// (scripts/build-ajv.mjs): importing this file costs one parse, and ajv runs only once a schema compiles.
import loadAjv from './vendor/ajv.js'

type Draft = '2020-12' | 'draft-07'
const instances = new Map<Draft, Ajv>()
const cache = new WeakMap<object, JsonSchemaValidator>()

function ajv(draft: Draft): Ajv {
  let instance = instances.get(draft)
  if (!instance) {
    // A library must not print: unknown `format`s are annotations (as JSON Schema 2020-12 defines them).
    // `ownProperties`: a property named like an Object.prototype member (`constructor`, `toString`) is
    // present only when the value has it as its own; otherwise `{}` would carry an inherited `constructor`.
    const options = {
      allErrors: true,
      strict: false,
      validateFormats: true,
      logger: false,
      ownProperties: true,
    } as const
    const { Ajv, Ajv2020, addFormats } = loadAjv()
    instance = draft === '2020-12' ? new Ajv2020(options) : new Ajv(options)
    addFormats(instance)
    instances.set(draft, instance)
  }
  return instance
}

/** The draft a `$schema` URI names; `undefined` when absent or unrecognized. */
function declaredDraft(schema: JsonSchema): Draft | undefined {
  const uri = typeof schema === 'object' ? schema.$schema : undefined
  if (typeof uri !== 'string') return undefined
  if (/draft-0[67]/.test(uri)) return 'draft-07'
  if (/20(19-09|20-12)/.test(uri)) return '2020-12'
  return undefined
}

function compileWith(draft: Draft, schema: JsonSchema): ValidateFunction {
  const instance = ajv(draft)
  // `$schema` chose the draft; ajv itself would reject URI spellings it does not know, so it is left out.
  let body = schema
  if (typeof schema === 'object' && '$schema' in schema) {
    const { $schema: _declared, ...rest } = schema
    body = rest
  }
  const fn = instance.compile(body as object | boolean)
  // ajv keeps every compiled schema (and its `$id`) in the instance; drop it so that per-request schemas
  // neither accumulate nor collide when two of them reuse one `$id`.
  if (typeof body === 'object') instance.removeSchema(body)
  return fn
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

/**
 * Compiles a JSON Schema once (cached per schema object) with ajv and ajv-formats.
 * @throws {@link InvalidDefinitionError} when the schema itself is invalid
 * @example
 * ```ts
 * import { compileJsonSchema } from '@agent-core/core/tools'
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
      `${what} must be a JSON Schema object or boolean, but got ${describeValue(schema)}. Pass for example { type: 'object', properties: { ... } }.`,
      { details: { received: describeValue(schema) } },
    )
  }
  if (typeof schema === 'object') {
    const hit = cache.get(schema)
    if (hit) return hit
  }
  const declared = declaredDraft(schema)
  let fn: ValidateFunction
  try {
    fn = compileWith(declared ?? '2020-12', schema)
  } catch (error) {
    // Without a `$schema`, a schema that is only valid as draft-07 (tuple `items: [...]`) still compiles.
    let fallback: ValidateFunction | undefined
    if (!declared) {
      try {
        fallback = compileWith('draft-07', schema)
      } catch {}
    }
    if (!fallback) {
      throw new InvalidDefinitionError(`${what} is not a valid JSON Schema: ${(error as Error).message}`, {
        cause: error,
      })
    }
    fn = fallback
  }
  const validator: JsonSchemaValidator = {
    schema,
    validate(value) {
      try {
        return fn(value) ? { ok: true } : { ok: false, issues: toIssues(fn.errors) }
      } catch (error) {
        // ajv's deep equality (enum/const) throws on values with a non-function own `valueOf`/`toString`.
        const message = `could not be validated: ${(error as Error).message}`
        return { ok: false, issues: [{ path: '/', keyword: 'validation', message }] }
      }
    },
  }
  if (typeof schema === 'object') cache.set(schema, validator)
  return validator
}
