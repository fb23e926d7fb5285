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
