import type { JsonSchema, StandardSchemaV1 } from '@agent-core/core'

/**
 * One field of a command: its JSON Schema (with the `description` a model reads) or a Standard Schema
 * (zod, valibot, arktype, ...; its JSON Schema is what the model reads), whether it may be left
 * out, its default, and two optional callbacks: `assert` checks the value (throw to refuse it, return
 * nothing), `parse` converts it into what the command's callbacks and handler receive. Callbacks are
 * called on `receiver` (default: the field itself), so a class instance works as a field.
 * @example
 * ```ts
 * import type { ProtocolField } from '@agent-core/kits/interaction'
 * const when: ProtocolField<string, Date> = {
 *   jsonSchema: { type: 'string', format: 'date', description: 'The day, as YYYY-MM-DD' },
 *   parse: (text) => new Date(`${text}T00:00:00Z`),
 * }
 * ```
 */
export interface ProtocolField<Value = unknown, Parsed = Value> {
  /**
   * The field's JSON Schema; what the model sees, and what the submitted value must satisfy. Give it or
   * `schema`.
   */
  readonly jsonSchema?: JsonSchema | undefined
  /**
   * The field as a Standard Schema (zod, valibot, arktype, ...), instead of `jsonSchema`: the model sees
   * its JSON Schema (its own converter's), and the submitted value goes through its validator (which must
   * be synchronous) before `assert` and `parse`, so its transforms and refinements apply.
   */
  readonly schema?: StandardSchemaV1<unknown, Value> | undefined
  /** True when the field may be left out (without a default, its value is then `undefined`). */
  readonly optional?: boolean | undefined
  /**
   * The value used when the field is left out (a JSON value that satisfies `jsonSchema`). A field with a
   * default is optional for the model and always present in the complete input.
   */
  readonly default?: Value | undefined
  /** The `this` of `assert` and `parse`; default: the field. */
  readonly receiver?: object | undefined
  /** Checks the submitted (or default) value; return nothing, throw to refuse it. */
  assert?(value: Value): void
  /** Converts the value; what it returns is what the command receives. */
  parse?(value: Value): Parsed
}

/**
 * Types a field: the identity function, for inference (`Value` is the JSON value, or a Standard
 * Schema's output; `Parsed` what `parse` returns).
 * @example
 * ```ts
 * import { defineProtocolField } from '@agent-core/kits/interaction'
 * import { z } from 'zod'
 * const limit = defineProtocolField<number>({ jsonSchema: { type: 'integer', minimum: 1, maximum: 50 }, default: 10 })
 * const city = defineProtocolField({ schema: z.string().trim().min(1), parse: (name) => name.toUpperCase() })
 * ```
 */
export function defineProtocolField<Value, Parsed = Value>(
  field: ProtocolField<Value, Parsed>,
): ProtocolField<Value, Parsed> {
  return field
}
