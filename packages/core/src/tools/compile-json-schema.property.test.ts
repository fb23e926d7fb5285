/**
 * Differential property test of `compileJsonSchema` (ajv run from the lazily loaded bundle: `#ajv`, which
 * in Node is vendor/ajv-node.js loading vendor/ajv.cjs) against the path it replaced: ajv and ajv-formats
 * imported from their packages, with the same options, the same draft choice and the same mapping to
 * issues. On generated schemas and values, both must agree on whether the schema compiles (and with which
 * message), and on every validation result with its `issues`. The string form (vendor/ajv.js, for
 * browsers and bundlers) is checked to hold the same script.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { InvalidDefinitionError, type JsonSchema, type SchemaIssue } from '@agent-core/core'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsImport from 'ajv-formats'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import loadAjv from '#ajv'
import { compileJsonSchema } from './compile-json-schema.js'
import loadAjvString from './vendor/ajv.js'
import loadAjvNode from './vendor/ajv-node.js'

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (
  ajv: Ajv,
) => Ajv

// ---- the reference: the ajv path as it was before the bundle (packages imported at module load) ----
type Draft = '2020-12' | 'draft-07'
const referenceInstances = new Map<Draft, Ajv>()
function referenceAjv(draft: Draft): Ajv {
  let instance = referenceInstances.get(draft)
  if (!instance) {
    const options = {
      allErrors: true,
      strict: false,
      validateFormats: true,
      logger: false,
      ownProperties: true,
    } as const
    instance = draft === '2020-12' ? new Ajv2020(options) : new Ajv(options)
    addFormats(instance)
    referenceInstances.set(draft, instance)
  }
  return instance
}
function declaredDraft(schema: JsonSchema): Draft | undefined {
  const uri = typeof schema === 'object' ? schema.$schema : undefined
  if (typeof uri !== 'string') return undefined
  if (/draft-0[67]/.test(uri)) return 'draft-07'
  if (/20(19-09|20-12)/.test(uri)) return '2020-12'
  return undefined
}
function referenceCompileWith(draft: Draft, schema: JsonSchema): ValidateFunction {
  const instance = referenceAjv(draft)
  let body = schema
  if (typeof schema === 'object' && '$schema' in schema) {
    const { $schema: _declared, ...rest } = schema
    body = rest
  }
  const fn = instance.compile(body as object | boolean)
  if (typeof body === 'object') instance.removeSchema(body)
  return fn
}
function referenceIssues(errors: readonly ErrorObject[] | null | undefined): SchemaIssue[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath || '/',
    keyword: e.keyword,
    message:
      e.keyword === 'additionalProperties'
        ? `has unexpected property "${(e.params as { additionalProperty: string }).additionalProperty}"`
        : (e.message ?? 'is invalid'),
  }))
}
type Outcome = { compiled: false; message: string } | { compiled: true; validate(value: unknown): unknown }
function reference(schema: JsonSchema): Outcome {
  const declared = declaredDraft(schema)
  let fn: ValidateFunction
  try {
    fn = referenceCompileWith(declared ?? '2020-12', schema)
  } catch (error) {
    let fallback: ValidateFunction | undefined
    if (!declared) {
      try {
        fallback = referenceCompileWith('draft-07', schema)
      } catch {}
    }
    if (!fallback)
      return { compiled: false, message: `schema is not a valid JSON Schema: ${(error as Error).message}` }
    fn = fallback
  }
  const compiled = fn
  return {
    compiled: true,
    validate(value) {
      try {
        return compiled(value) ? { ok: true } : { ok: false, issues: referenceIssues(compiled.errors) }
      } catch (error) {
        const message = `could not be validated: ${(error as Error).message}`
        return { ok: false, issues: [{ path: '/', keyword: 'validation', message }] }
      }
    },
  }
}
function subject(schema: JsonSchema): Outcome {
  try {
    const validator = compileJsonSchema(schema)
    return { compiled: true, validate: (value) => validator.validate(value) }
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDefinitionError)
    return { compiled: false, message: (error as Error).message }
  }
}

// ---- generators: schemas over the keywords tools use, and values shaped after them ----
const names = fc.constantFrom('a', 'b', 'q', 'id', 'constructor', 'toString', 'x-y')
const scalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -50, max: 50 }),
  fc.double({ min: -100, max: 100, noNaN: true }),
  fc.boolean(),
  fc.constant(null),
)
const formats = fc.constantFrom(
  'email',
  'date',
  'date-time',
  'uri',
  'uuid',
  'ipv4',
  'hostname',
  'unknown-format',
)
const patterns = fc.constantFrom('^a', '[0-9]+', '^\\p{L}+$', 'b$', '^.{2,3}$')
const types = fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'object', 'array')

const schemaArb: fc.Arbitrary<Record<string, unknown> | boolean> = fc.letrec<{
  schema: Record<string, unknown> | boolean
}>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.record(
      {
        type: fc.oneof(types, fc.uniqueArray(types, { minLength: 1, maxLength: 3 })),
        enum: fc.uniqueArray(scalar, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }),
        const: scalar,
        minimum: fc.integer({ min: -10, max: 10 }),
        exclusiveMaximum: fc.integer({ min: -10, max: 40 }),
        multipleOf: fc.constantFrom(1, 2, 0.5, 3),
        minLength: fc.nat(4),
        maxLength: fc.nat(6),
        pattern: patterns,
        format: formats,
        nullable: fc.boolean(),
        description: fc.string({ maxLength: 5 }),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(names, tie('schema'), { maxKeys: 3 }),
        required: fc.uniqueArray(names, { maxLength: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
        minProperties: fc.nat(2),
        propertyNames: fc.record({ pattern: patterns }),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('array'),
        items: fc.oneof(tie('schema'), fc.array(tie('schema'), { minLength: 1, maxLength: 2 })),
        prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
        minItems: fc.nat(3),
        maxItems: fc.nat(4),
        uniqueItems: fc.boolean(),
        contains: tie('schema'),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ if: tie('schema'), then: tie('schema'), else: tie('schema') }, { requiredKeys: ['if'] }),
    fc.record({
      $defs: fc.record({ node: tie('schema') }),
      properties: fc.record({ a: fc.constant({ $ref: '#/$defs/node' }) }),
    }),
    fc.record({ $ref: fc.constantFrom('#/nowhere', 'http://example.com/missing') }),
    fc.record({ type: fc.constantFrom('strin', 7) }),
    fc.record({ minLength: fc.constantFrom(-1, 'two') }),
  ),
})).schema

const withDraft = fc.tuple(
  schemaArb,
  fc.constantFrom(
    undefined,
    'https://json-schema.org/draft/2020-12/schema',
    'http://json-schema.org/draft-07/schema#',
    'http://example.com/my-draft',
  ),
)
// Values as a tool receives them: parsed JSON, whose objects always have Object.prototype (a
// null-prototype object never comes out of JSON.parse, so it is not generated).
const valueArb = fc.oneof(
  scalar,
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown),
  fc.dictionary(names, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })), {
    maxKeys: 4,
    noNullPrototype: true,
  }),
  fc.array(fc.oneof(scalar, fc.dictionary(names, scalar, { maxKeys: 2, noNullPrototype: true })), {
    maxLength: 4,
  }),
  fc.constantFrom('a@b.co', '2024-02-30', '2024-01-01T10:00:00Z', 'http://x.y/z', '127.0.0.1', 'éé', 'ab1'),
  fc.constant({ valueOf: 1, toString: 'x' }),
)

/**
 * A validator that throws inside ajv (a value whose `toString` is not a function, say) is reported as one
 * `validation` issue carrying the thrown message. The bundle is minified, so that message names ajv's
 * local variables differently (`e.toString` for `a.toString`): only those names are made alike.
 */
function crashText(result: unknown): unknown {
  const issues = (result as { issues?: { keyword?: string; message?: string }[] }).issues
  if (!issues?.some((issue) => issue.keyword === 'validation')) return result
  return {
    ...(result as object),
    issues: issues.map((issue) =>
      issue.keyword === 'validation' && issue.message !== undefined
        ? { ...issue, message: issue.message.replace(/[A-Za-z_$][\w$]*(?=\.[\w$]+ is not a function)/g, 'x') }
        : issue,
    ),
  }
}

describe('compileJsonSchema (bundled ajv) against ajv imported from its packages', () => {
  it('the bundle is what the installed ajv and ajv-formats build to (scripts/build-ajv.mjs --check)', () => {
    const run = spawnSync(process.execPath, ['scripts/build-ajv.mjs', '--check'], {
      cwd: join(import.meta.dirname, '../../../..'),
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  }, 60_000)

  it('`#ajv` is the Node form in Node; both forms hold the same script', () => {
    expect(loadAjv).toBe(loadAjvNode)
    const vendor = join(import.meta.dirname, 'vendor')
    const stringForm = readFileSync(join(vendor, 'ajv.js'), 'utf8')
    const literal = /^const code = (".*")$/m.exec(stringForm)?.[1]
    const code = JSON.parse(literal ?? '""') as string
    expect(code.endsWith('return loadAjv\n')).toBe(true)
    const script = code.slice(0, -'return loadAjv\n'.length)
    expect(script.length).toBeGreaterThan(100_000)
    expect(readFileSync(join(vendor, 'ajv.cjs'), 'utf8')).toContain(`\n${script}module.exports = loadAjv\n`)
  })

  it.each([
    ['the Node form (ajv.cjs)', loadAjvNode],
    ['the string form (ajv.js)', loadAjvString],
  ])('%s loads ajv classes of its own, once', (_form, load) => {
    const bundled = load()
    expect(typeof bundled.Ajv).toBe('function')
    expect(typeof bundled.Ajv2020).toBe('function')
    expect(typeof bundled.addFormats).toBe('function')
    expect(bundled.Ajv).not.toBe(Ajv)
    expect(load().Ajv2020).toBe(bundled.Ajv2020)
    const ajv = new bundled.Ajv2020({ allErrors: true, strict: false, logger: false })
    bundled.addFormats(ajv)
    const validate = ajv.compile({ type: 'object', properties: { at: { format: 'date' } } })
    expect(validate({ at: '2024-02-30' })).toBe(false)
    expect(validate({ at: '2024-02-29' })).toBe(true)
  })

  it('compiles, rejects and validates alike: same messages, same results, same issues', () => {
    const seen = { rejected: 0, valid: 0, invalid: 0 }
    fc.assert(
      fc.property(withDraft, fc.array(valueArb, { minLength: 1, maxLength: 6 }), ([body, draft], values) => {
        const schema = (
          draft === undefined || typeof body === 'boolean' ? body : { $schema: draft, ...body }
        ) as JsonSchema
        const expected = reference(schema)
        const actual = subject(schema)
        expect(actual.compiled).toBe(expected.compiled)
        if (!expected.compiled || !actual.compiled) {
          seen.rejected++
          expect(actual).toEqual(expected)
          return
        }
        for (const value of values) {
          const result = actual.validate(value)
          seen[(result as { ok: boolean }).ok ? 'valid' : 'invalid']++
          expect(crashText(result)).toEqual(crashText(expected.validate(value)))
        }
      }),
      { numRuns: 200 },
    )
    // the generators reach all three outcomes
    expect(seen.rejected).toBeGreaterThan(0)
    expect(seen.valid).toBeGreaterThan(0)
    expect(seen.invalid).toBeGreaterThan(0)
  }, 240_000)

  it('agrees on a schema whose values must be valid for a share of runs (issues empty and non-empty)', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['q', 'n'],
      additionalProperties: false,
      properties: {
        q: { type: 'string', minLength: 1, format: 'email' },
        n: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true },
      },
    }
    const expected = reference(schema)
    const actual = subject(schema)
    let valid = 0
    fc.assert(
      fc.property(
        fc.record(
          {
            q: fc.oneof(fc.emailAddress(), fc.string({ maxLength: 3 })),
            n: fc.oneof(fc.nat(9), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true })),
            tags: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
            extra: fc.string({ maxLength: 2 }),
          },
          { requiredKeys: [] },
        ),
        (value) => {
          if (!expected.compiled || !actual.compiled) throw new Error('the schema compiles')
          const result = actual.validate(value)
          if ((result as { ok: boolean }).ok) valid++
          expect(result).toEqual(expected.validate(value))
        },
      ),
      { numRuns: 400 },
    )
    expect(valid).toBeGreaterThan(0)
  }, 120_000)
})
