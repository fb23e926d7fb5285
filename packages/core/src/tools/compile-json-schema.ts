import {
  describeValue,
  InvalidDefinitionError,
  type JsonSchema,
  type JsonSchemaValidator,
  refuseField,
  type SchemaIssue,
} from '@agent-core/core'
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
// ajv, its 2020-12 draft and ajv-formats bundled into one script that runs on the first `loadAjv()`
// (scripts/build-ajv.mjs). `#ajv` (the imports map of package.json) is vendor/ajv-node.js in Node, which
// loads the bundle from its own file on that first call, and vendor/ajv.js elsewhere (the bundle as a
// string literal: no `node:` import, one string scanned at import). The build resolves it once per output:
// dist/tools/index.js (Node) and dist/tools/index.browser.js (the rest); see docs/design/cold-import.md.
import loadAjv from '#ajv'

type Draft = '2020-12' | 'draft-07'

/**
 * A regular-expression engine for the `pattern` and `patternProperties` keywords of a schema: a function
 * of the pattern (and ajv's flags, `u`) that returns something with `test`. Pass a linear-time engine
 * (RE2) for schemas that come from someone you do not trust, so that no pattern can backtrack for ever on
 * the host; throw from it to refuse a pattern (the schema is then refused as invalid). ajv caches
 * compiled patterns by `toString()`, so the object returned must name its pattern there.
 * @example
 * ```ts
 * import type { JsonSchemaRegExpEngine } from '@agent-core/core/tools'
 * const literalOnly: JsonSchemaRegExpEngine = (pattern) => ({
 *   test: (input) => input.includes(pattern),
 *   toString: () => `literal:${pattern}`,
 * })
 * ```
 */
export type JsonSchemaRegExpEngine = (
  pattern: string,
  flags: string,
) => { test(input: string): boolean; toString(): string }

/**
 * Options of {@link compileJsonSchema}.
 * @example
 * ```ts
 * import type { CompileJsonSchemaOptions } from '@agent-core/core/tools'
 * const options: CompileJsonSchemaOptions = { regExp: (pattern) => new RegExp(pattern, 'u') }
 * ```
 */
export interface CompileJsonSchemaOptions {
  /**
   * The engine of `pattern` keywords. Default: JavaScript's `RegExp` (backtracking: fine for schemas you
   * wrote, not for a stranger's).
   */
  readonly regExp?: JsonSchemaRegExpEngine | undefined
}

const instances = new Map<JsonSchemaRegExpEngine | undefined, Map<Draft, Ajv>>()
const cache = new WeakMap<object, JsonSchemaValidator>()
/** The engine a cached validator was compiled with (absent: JavaScript's RegExp). */
const engines = new WeakMap<JsonSchemaValidator, JsonSchemaRegExpEngine>()

function ajv(draft: Draft, regExp: JsonSchemaRegExpEngine | undefined): Ajv {
  let byDraft = instances.get(regExp)
  if (!byDraft) {
    byDraft = new Map()
    instances.set(regExp, byDraft)
  }
  let instance = byDraft.get(draft)
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
      ...(regExp === undefined ? {} : { code: { regExp: regExp as never } }),
    } as const
    const { Ajv, Ajv2020, addFormats } = loadAjv()
    instance = draft === '2020-12' ? new Ajv2020(options) : new Ajv(options)
    addFormats(instance)
    byDraft.set(draft, instance)
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

function compileWith(
  draft: Draft,
  schema: JsonSchema,
  regExp: JsonSchemaRegExpEngine | undefined,
): ValidateFunction {
  const instance = ajv(draft, regExp)
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
 * Compiles a JSON Schema once (cached per schema object) with ajv and ajv-formats. With
 * `options.regExp`, its `pattern`s run on that engine; the validator is then the one cached for the
 * schema object, so a later compile of the same object without options (a model tool's input schema)
 * keeps the safe engine.
 * @throws {@link InvalidDefinitionError} when the schema itself is invalid
 * @example
 * ```ts
 * import { compileJsonSchema } from '@agent-core/core/tools'
 * const validator = compileJsonSchema({ type: 'object', required: ['q'], properties: { q: { type: 'string' } } })
 * validator.validate({ q: 'hello' }) // { ok: true }
 * ```
 */
export function compileJsonSchema(
  schema: JsonSchema,
  what = 'schema',
  options: CompileJsonSchemaOptions = {},
): JsonSchemaValidator {
  const regExp = options.regExp
  if (regExp !== undefined && typeof regExp !== 'function') {
    refuseField(
      'definition',
      'options.regExp',
      `must be a function (pattern, flags) => { test }, but got ${describeValue(regExp)}`,
      regExp,
      { prefix: 'compileJsonSchema: ' },
    )
  }
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
    if (hit && (regExp === undefined || engines.get(hit) === regExp)) return hit
  }
  const declared = declaredDraft(schema)
  let fn: ValidateFunction
  try {
    fn = compileWith(declared ?? '2020-12', schema, regExp)
  } catch (error) {
    // Without a `$schema`, a schema that is only valid as draft-07 (tuple `items: [...]`) still compiles.
    let fallback: ValidateFunction | undefined
    if (!declared) {
      try {
        fallback = compileWith('draft-07', schema, regExp)
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
  if (regExp !== undefined) engines.set(validator, regExp)
  return validator
}
