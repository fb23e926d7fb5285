import {
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidDefinitionError,
  type JsonSchema,
  refuseField,
} from '@agent-core/core'
import { assertKnownKeys } from './internal/validate-script.js'
import { assertSupportedSchema, generateFromSchema } from './schema/index.js'

/**
 * Options of {@link generateJson}.
 * @example
 * ```ts
 * import { type GenerateJsonOptions, generateJson } from '@agent-core/mock'
 * const options: GenerateJsonOptions = { seed: 7, maxDepth: 3 }
 * const value = generateJson({ type: 'array', items: { type: 'integer' } }, options)
 * ```
 */
export interface GenerateJsonOptions {
  /** The same schema and seed always give the same (deep-equal) value. Any safe integer. */
  readonly seed: number
  /**
   * Container nesting after which only the smallest valid choices are made (optional properties omitted,
   * arrays at `minItems`). Default 6; 0 to 32.
   */
  readonly maxDepth?: number | undefined
}

/**
 * Generates a JSON value that satisfies `schema`, deterministically from `options.seed`: the generator
 * MockGPT answers `json_schema` requests and tool arguments with. Every value is validated with ajv
 * (through `@agent-core/core/tools`) before it is returned; nothing invalid ever comes out.
 *
 * Supported keywords: `type` (one or several, `nullable`), `enum`/`const`, objects (`properties`,
 * `required`, `additionalProperties`, `minProperties`/`maxProperties`), arrays (`items`, `prefixItems`,
 * `minItems`/`maxItems`, `uniqueItems`), strings (`minLength`/`maxLength`, `pattern`, `format`: date-time,
 * date, time, email, uri, uuid, ipv4, ipv6, hostname), numbers (bounds, `multipleOf`),
 * `allOf`/`anyOf`/`oneOf` and same-document `$ref`. Sizes are bounded so that one schema cannot exhaust
 * the process.
 * @throws InvalidInputError when the options are malformed, or the schema is unsupported, contradictory,
 *   too large or impossible to satisfy (the message names the JSON Pointer, the keyword and the fix)
 * @example
 * ```ts
 * import { generateJson } from '@agent-core/mock'
 * const person = generateJson(
 *   { type: 'object', required: ['name', 'age'], properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } } },
 *   { seed: 42 },
 * )
 * ```
 */
export function generateJson(schema: JsonSchema, options: GenerateJsonOptions): unknown {
  assertObject(options as unknown, 'generateJson options')
  assertKnownKeys(options as unknown as Record<string, unknown>, ['seed', 'maxDepth'], 'generateJson options')
  assertSafeInteger(options.seed, 'seed')
  if (options.maxDepth !== undefined) assertSafeInteger(options.maxDepth, 'maxDepth', { min: 0, max: 32 })
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    refuseField(
      'input',
      'schema',
      `must be a JSON Schema object or a boolean, but got ${describeValue(schema)}`,
      schema,
    )
  }
  try {
    assertSupportedSchema(schema)
    return generateFromSchema(schema, {
      seed: options.seed,
      ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
    })
  } catch (error) {
    if (InvalidDefinitionError.isInstance(error)) {
      refuseField(
        'input',
        'schema',
        `is not a valid JSON Schema: ${error.message.replace(/\.$/, '')}`,
        schema,
        {
          cause: error,
        },
      )
    }
    throw error
  }
}
