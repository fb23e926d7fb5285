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

/** Formats issues as `"/a/b must be string; / must have required property 'x'"`. */
export function formatSchemaIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.path} ${i.message}`).join('; ')
}
