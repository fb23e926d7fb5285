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
 * `default` are used as candidates when they validate.
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
