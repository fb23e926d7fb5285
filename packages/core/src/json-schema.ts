import type { StandardSchemaV1 } from './standard-schema.js'

/**
 * A JSON Schema (draft 2020-12 / draft-07 subset understood by ajv). Compile one with `compileJsonSchema`
 * from `@agent-core/core/tools`.
 * @example
 * ```ts
 * import type { JsonSchema } from '@agent-core/core'
 * const query: JsonSchema = { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } } }
 * ```
 */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown }

/**
 * One validation problem: where (a JSON Pointer into the value) and what.
 * @example
 * ```ts
 * import type { SchemaIssue } from '@agent-core/core'
 * const issue: SchemaIssue = { path: '/q', message: 'must be string', keyword: 'type' }
 * ```
 */
export interface SchemaIssue {
  readonly path: string
  readonly message: string
  readonly keyword: string
}

/**
 * The result of {@link JsonSchemaValidator.validate}: ok, or every issue found.
 * @example
 * ```ts
 * import { formatSchemaIssues, type SchemaValidation } from '@agent-core/core'
 * const explain = (result: SchemaValidation): string => (result.ok ? 'valid' : formatSchemaIssues(result.issues))
 * ```
 */
export type SchemaValidation =
  | { readonly ok: true }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] }

/**
 * A compiled JSON Schema (from `compileJsonSchema` in `@agent-core/core/tools`).
 * @example
 * ```ts
 * import type { JsonSchemaValidator } from '@agent-core/core'
 * import { compileJsonSchema } from '@agent-core/core/tools'
 * const validator: JsonSchemaValidator = compileJsonSchema({ type: 'string' })
 * validator.validate(42) // { ok: false, issues: [{ path: '', message: 'must be string', keyword: 'type' }] }
 * ```
 */
export interface JsonSchemaValidator {
  readonly schema: JsonSchema
  validate(value: unknown): SchemaValidation
}

/**
 * Formats issues as `"/a/b must be string; / must have required property 'x'"`.
 * @example
 * ```ts
 * import { formatSchemaIssues } from '@agent-core/core'
 * formatSchemaIssues([{ path: '/q', message: 'must be string', keyword: 'type' }]) // '/q must be string'
 * ```
 */
export function formatSchemaIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.path} ${i.message}`).join('; ')
}

/**
 * A schema in either form agent-core accepts wherever a schema goes in (tool input and output, structured
 * output, question answers, ...): a JSON Schema, or any validator that implements Standard Schema v1
 * (zod 4, valibot 1, arktype 2, ...; recognised by its `~standard` marker, never imported). `Value` is the
 * type a valid value has after validation (a Standard Schema's output type).
 * @example
 * ```ts
 * import type { Schema } from '@agent-core/core'
 * import { z } from 'zod'
 * const literal: Schema = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } }
 * const withZod: Schema<{ city: string }> = z.object({ city: z.string() })
 * ```
 */
export type Schema<Value = unknown> = JsonSchema | StandardSchemaV1<unknown, Value>

/**
 * The type of a value valid against a schema: a Standard Schema's output type, or the type a JSON Schema
 * written `as const` describes ({@link JsonSchemaType}); `unknown` for a JSON Schema whose keywords were
 * widened to `string` (written without `as const`).
 * @example
 * ```ts
 * import type { InferSchema } from '@agent-core/core'
 * import { z } from 'zod'
 * type City = InferSchema<typeof city> // { city: string }
 * const city = z.object({ city: z.string() })
 * type Count = InferSchema<{ readonly type: 'integer' }> // number
 * ```
 */
export type InferSchema<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends JsonSchema
    ? JsonSchemaType<S>
    : unknown

/**
 * The type a valid value of a schema must have before validation: a Standard Schema's input type (what
 * its transforms start from), or {@link JsonSchemaType} for a JSON Schema.
 * @example
 * ```ts
 * import type { InferSchemaInput } from '@agent-core/core'
 * import { z } from 'zod'
 * const length = z.string().transform((text) => text.length)
 * type In = InferSchemaInput<typeof length> // string
 * ```
 */
export type InferSchemaInput<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends JsonSchema
    ? JsonSchemaType<S>
    : unknown

/**
 * The TypeScript type a JSON Schema literal written `as const` describes: `type` (one name or a list),
 * `properties` with `required`, `items`, `enum`, `const`, `anyOf` and `oneOf`. Other keywords narrow
 * nothing (a `pattern` is still a `string`); properties not named in `properties` are not typed; a schema
 * whose `type` was widened to `string` (no `as const`) gives `unknown`. A deliberately small type: for
 * full JSON Schema typing, use a Standard Schema library, or give the tool its types explicitly.
 * @example
 * ```ts
 * import type { JsonSchemaType } from '@agent-core/core'
 * const query = {
 *   type: 'object',
 *   required: ['q'],
 *   properties: { q: { type: 'string' }, limit: { type: 'integer' }, sort: { enum: ['asc', 'desc'] } },
 * } as const
 * type Query = JsonSchemaType<typeof query> // { q: string; limit?: number; sort?: 'asc' | 'desc' }
 * ```
 */
export type JsonSchemaType<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly const: infer Constant }
      ? Constant
      : S extends { readonly enum: readonly (infer Member)[] }
        ? Member
        : S extends { readonly anyOf: readonly (infer Branch)[] }
          ? JsonSchemaType<Branch>
          : S extends { readonly oneOf: readonly (infer Branch)[] }
            ? JsonSchemaType<Branch>
            : S extends { readonly type: infer Type }
              ? // One type name or a list of them; each name maps to its type (the union distributes).
                (Type extends readonly (infer Name)[] ? Name : Type) extends infer Name
                ? Name extends 'string'
                  ? string
                  : Name extends 'number' | 'integer'
                    ? number
                    : Name extends 'boolean'
                      ? boolean
                      : Name extends 'null'
                        ? null
                        : Name extends 'array'
                          ? S extends { readonly items: infer Item }
                            ? Item extends readonly unknown[]
                              ? unknown[]
                              : JsonSchemaType<Item>[]
                            : unknown[]
                          : Name extends 'object'
                            ? S extends { readonly properties: infer Properties extends object }
                              ? // Required keys (those `required` names) and optional ones, flattened into one object.
                                (
                                  S extends { readonly required: readonly (infer Key)[] }
                                    ? Key
                                    : never
                                ) extends infer Required
                                ? {
                                    -readonly [K in keyof Properties as K extends Required
                                      ? K
                                      : never]: JsonSchemaType<Properties[K]>
                                  } & {
                                    -readonly [K in keyof Properties as K extends Required
                                      ? never
                                      : K]?: JsonSchemaType<Properties[K]>
                                  } extends infer Shape
                                  ? { [K in keyof Shape]: Shape[K] }
                                  : never
                                : never
                              : S extends { readonly additionalProperties: infer Extra extends object }
                                ? Record<string, JsonSchemaType<Extra>>
                                : Record<string, unknown>
                            : unknown
                : never
              : unknown

/**
 * True for a validator that implements Standard Schema v1 (a `~standard` object with a `validate`
 * function), whatever library made it. Nothing is imported: the marker is read.
 * @example
 * ```ts
 * import { isStandardSchema } from '@agent-core/core'
 * import { z } from 'zod'
 * isStandardSchema(z.string()) // true
 * isStandardSchema({ type: 'string' }) // false
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const standard = (value as { '~standard'?: unknown })['~standard']
  return (
    typeof standard === 'object' &&
    standard !== null &&
    typeof (standard as { validate?: unknown }).validate === 'function'
  )
}

/**
 * The result of validating a value against a {@link Schema}: the valid value (a Standard Schema's output,
 * with its transforms and defaults applied; the value itself for a JSON Schema), or every issue found.
 * @example
 * ```ts
 * import type { SchemaResult } from '@agent-core/core'
 * const explain = (result: SchemaResult<number>): string => (result.ok ? `got ${result.value}` : `${result.issues.length} issues`)
 * ```
 */
export type SchemaResult<Value = unknown> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] }
