/**
 * MockGPT's schema engine: seeded, deterministic generation of JSON values that satisfy a JSON Schema
 * (for `response_format: json_schema` answers and tool-call arguments), a seeded PRNG, and a checker that
 * rejects schemas the engine cannot honour with a precise reason. Platform-neutral (no `node:` imports).
 *
 * Supported: `type` (one or several, `nullable`), `enum`/`const`, objects (`properties`, `required`,
 * `additionalProperties`, `minProperties`/`maxProperties`), arrays (`items`, `prefixItems`, draft-07 tuple
 * `items` + `additionalItems`, `minItems`/`maxItems`, `uniqueItems`), strings (`minLength`/`maxLength`,
 * `pattern`, `format`: date-time, date, time, email, uri, uuid, ipv4, ipv6, hostname), numbers
 * (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`), `allOf`/`anyOf`/`oneOf`,
 * and same-document `$ref` (recursion bounded by `maxDepth`). Annotations are ignored; `examples` and
 * `default` are used as candidates when they validate. Sizes are bounded: `minLength`, `minItems` and
 * `minProperties` above 10 000 are rejected, and an attempt gives up past 200 000 steps or 4 000 000
 * string characters, so one schema cannot exhaust the process.
 *
 * This is a private module of `@agent-core/mock` (not a subpath).
 *
 * @example
 * ```ts
 * import { generateFromSchema } from './schema/index.js'
 * const args = generateFromSchema(
 *   { type: 'object', additionalProperties: false, required: ['city'], properties: { city: { type: 'string' } } },
 *   { seed: 1 },
 * )
 * ```
 *
 * @module
 */
export { type AssertSupportedSchemaOptions, assertSupportedSchema } from './assert-supported-schema.js'
export { type GenerateOptions, generateFromSchema } from './generate-from-schema.js'
export { createRng, type Rng } from './rng.js'
export { assertSchemaWithinBudget, SCHEMA_LIMITS } from './schema-budget.js'
