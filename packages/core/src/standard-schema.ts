/**
 * The Standard Schema (https://standardschema.dev) interfaces, typed locally as the spec recommends, so
 * that zod, valibot, arktype and any other implementation plug in without a dependency on any of them.
 */

/**
 * A validator that implements Standard Schema v1 (zod 3.24+, valibot 1, arktype 2, ...).
 * @example
 * ```ts
 * import type { StandardSchemaV1 } from '@agent-core/core'
 * const isText: StandardSchemaV1<unknown, string> = {
 *   '~standard': {
 *     version: 1,
 *     vendor: 'hand-written',
 *     validate: (value) => (typeof value === 'string' ? { value } : { issues: [{ message: 'must be a string' }] }),
 *   },
 * }
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}

export declare namespace StandardSchemaV1 {
  /** The properties under `~standard`. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1
    readonly vendor: string
    readonly validate: (
      value: unknown,
      options?: Options | undefined,
    ) => Result<Output> | Promise<Result<Output>>
    readonly types?: Types<Input, Output> | undefined
    /** Present when the library also implements Standard JSON Schema (zod 4.2+, arktype 2.1+). */
    readonly jsonSchema?: StandardJSONSchemaConverter | undefined
  }
  /** Options of `validate`. */
  export interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined
  }
  /** What `validate` returns. */
  export type Result<Output> = SuccessResult<Output> | FailureResult
  export interface SuccessResult<Output> {
    readonly value: Output
    readonly issues?: undefined
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>
  }
  /** One validation problem. */
  export interface Issue {
    readonly message: string
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined
  }
  export interface PathSegment {
    readonly key: PropertyKey
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input
    readonly output: Output
  }
  /** The validated value's type. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<
    Schema['~standard']['types']
  >['output']
  /** The accepted input's type. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input']
}

/**
 * The Standard JSON Schema converter (`~standard.jsonSchema`): JSON Schema for a validator's input or
 * output, for a target draft. May throw when a validator cannot be expressed as JSON Schema.
 * @example
 * ```ts
 * import type { StandardJSONSchemaConverter } from '@agent-core/core'
 * const converter: StandardJSONSchemaConverter = {
 *   input: () => ({ type: 'string' }),
 *   output: () => ({ type: 'string' }),
 * }
 * ```
 */
export interface StandardJSONSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>
  readonly output: (options: { readonly target: string }) => Record<string, unknown>
}
