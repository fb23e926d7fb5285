import {
  assertBoolean,
  assertFunction,
  assertNotThenable,
  assertObject,
  describeValue,
  InvalidDefinitionError,
  Registry,
  refuseField,
} from '@agent-core/core'

/**
 * One transformation of a {@link Normalization}. `when` and `transform` are called as methods of the
 * step, so class instances keep their receiver, private fields and prototype getters.
 *
 * @example
 * ```ts
 * import { type NormalizationStep } from '@agent-core/kits/normalization'
 * const trim: NormalizationStep<unknown, undefined> = {
 *   id: 'trim',
 *   when: (value) => typeof value === 'string',
 *   transform: (value) => (value as string).trim(),
 * }
 * ```
 */
export interface NormalizationStep<Value, Context> {
  /** Unique, non-empty id of the step; reported in `appliedStepIds`. */
  readonly id: string
  /** Optional synchronous condition; the step is skipped when it returns false. Default: always run. */
  when?(value: Value, context: Context): boolean
  /**
   * Returns the next value synchronously. Whatever it returns is the new value, including `0`, `false`,
   * `''`, `null` and `undefined`; nothing is read as "no change".
   */
  transform(value: Value, context: Context): Value
}

/**
 * The declaration given to {@link defineNormalization}.
 * @example
 * ```ts
 * import { type NormalizationDefinition } from '@agent-core/kits/normalization'
 * const definition: NormalizationDefinition<number, { max: number }> = {
 *   steps: [{ id: 'clamp', transform: (value, context) => Math.min(value, context.max) }],
 *   isComplete: (value, context) => value <= context.max,
 * }
 * ```
 */
export interface NormalizationDefinition<Value, Context> {
  /** The steps, run in this order. Ids must be unique. */
  readonly steps: readonly NormalizationStep<Value, Context>[]
  /**
   * Optional synchronous decision "this value needs no more normalization". Asked before each step (a
   * complete value stops the run) and once more at the end. Without it, a run is complete once every step
   * has had its turn.
   */
  isComplete?(value: Value, context: Context): boolean
}

/**
 * What {@link Normalization.normalize} returns.
 * @example
 * ```ts
 * import { defineNormalization, type NormalizationResult } from '@agent-core/kits/normalization'
 * const result: NormalizationResult<number> = defineNormalization<number>({ steps: [] }).normalize(0, undefined)
 * ```
 */
export interface NormalizationResult<Value> {
  /** The value after the steps that ran. */
  readonly value: Value
  /** The definition's `isComplete` verdict on `value`, or `true` when the definition has none. */
  readonly complete: boolean
  /** Ids of the steps whose `transform` ran, in order. */
  readonly appliedStepIds: readonly string[]
}

/**
 * The context argument of `normalize`: optional when the context type admits `undefined`, required
 * otherwise.
 * @example
 * ```ts
 * import { type NormalizationContextArgs } from '@agent-core/kits/normalization'
 * const none: NormalizationContextArgs<undefined> = []
 * const limits: NormalizationContextArgs<{ max: number }> = [{ max: 3 }]
 * ```
 */
export type NormalizationContextArgs<Context> = undefined extends Context
  ? [context?: Context]
  : [context: Context]

/**
 * A compiled normalization: sequential steps with `when` conditions and an `isComplete` decision.
 * @example
 * ```ts
 * import { defineNormalization } from '@agent-core/kits/normalization'
 * const normalization = defineNormalization<unknown>({
 *   steps: [{ id: 'trim', when: (v) => typeof v === 'string', transform: (v) => (v as string).trim() }],
 * })
 * normalization.normalize('  ').value // ''
 * ```
 */
export interface Normalization<Value, Context = undefined> {
  /** The steps as given, in run order. */
  readonly steps: readonly NormalizationStep<Value, Context>[]
  /**
   * Runs the steps in order over `input`. Before each step, a value that `isComplete` accepts ends the
   * run; a step whose `when` returns false is skipped; otherwise `transform`'s return value replaces the
   * value. `context` is the caller's algorithm context, passed unchanged to every hook. Errors thrown by
   * hooks propagate unchanged.
   * @throws `RejectedThenableError` when a hook returns a Promise
   * @throws `InvalidOutputError` when `when` or `isComplete` returns a non-boolean
   */
  normalize(input: Value, ...context: NormalizationContextArgs<Context>): NormalizationResult<Value>
}

function assertStep(step: NormalizationStep<unknown, unknown>): void {
  const problems: string[] = []
  if (typeof step.transform !== 'function') {
    problems.push(
      `transform must be a function returning the next value (got ${describeValue(step.transform)})`,
    )
  }
  if (step.when !== undefined && typeof step.when !== 'function') {
    problems.push(
      `when must be a function returning a boolean, or left out (got ${describeValue(step.when)})`,
    )
  }
  if (problems.length > 0) {
    throw new InvalidDefinitionError(
      `Normalization step "${step.id}" is malformed: ${problems.join('; ')}. Declare { id, transform(value, context), when?(value, context) }.`,
      { details: { id: step.id, problems } },
    )
  }
}

class NormalizationImpl<Value, Context> implements Normalization<Value, Context> {
  readonly steps: readonly NormalizationStep<Value, Context>[]
  readonly #definition: NormalizationDefinition<Value, Context>

  constructor(
    definition: NormalizationDefinition<Value, Context>,
    steps: readonly NormalizationStep<Value, Context>[],
  ) {
    this.#definition = definition
    this.steps = Object.freeze(steps.slice())
  }

  normalize(input: Value, ...args: NormalizationContextArgs<Context>): NormalizationResult<Value> {
    const context = args[0] as Context
    const definition = this.#definition
    const isComplete = (value: Value): boolean | undefined => {
      const hook = definition.isComplete
      if (hook === undefined) return undefined
      assertIsComplete(hook)
      return assertBoolean(hook.call(definition, value, context), 'normalization isComplete')
    }
    let value = input
    const applied: string[] = []
    for (const step of this.steps) {
      if (isComplete(value) === true) return result(value, true, applied)
      assertStep(step as NormalizationStep<unknown, unknown>)
      if (step.when !== undefined) {
        const run = assertBoolean(step.when(value, context), `normalization step "${step.id}" when`)
        if (!run) continue
      }
      value = assertNotThenable(
        step.transform(value, context),
        `normalization step "${step.id}" transform`,
      ) as Value
      applied.push(step.id)
    }
    return result(value, isComplete(value) ?? true, applied)
  }
}

function result<Value>(value: Value, complete: boolean, applied: string[]): NormalizationResult<Value> {
  return Object.freeze({ value, complete, appliedStepIds: Object.freeze(applied) })
}

function assertIsComplete(hook: unknown): asserts hook is (...args: never[]) => unknown {
  assertFunction(hook, 'isComplete', {
    where: 'A normalization',
    error: InvalidDefinitionError,
    hint: 'Pass isComplete(value, context) returning a boolean, or leave it out.',
  })
}

/**
 * Builds a {@link Normalization}: sequential, synchronous transformation steps with `when` conditions and
 * an optional `isComplete` decision. Falsy values (`0`, `false`, `''`) are ordinary values everywhere:
 * they are passed to hooks, kept as results and never mistaken for "missing".
 *
 * The second argument of `normalize` is an algorithm context that the caller declares (limits, lookup
 * tables, a locale); it has no lifecycle, signal or diagnostics. Steps and the definition are kept as
 * given, so class instances keep their receiver.
 *
 * @param definition - `{ steps, isComplete? }`
 * @throws `InvalidDefinitionError` for a malformed definition or step
 * @throws `InvalidIdError` for a missing or empty step id, `DuplicateIdError` for a repeated one
 * @example
 * ```ts
 * import { defineNormalization } from '@agent-core/kits/normalization'
 * const amount = defineNormalization<unknown, { fallback: number }>({
 *   steps: [
 *     { id: 'parse', when: (v) => typeof v === 'string', transform: (v) => Number(v) },
 *     { id: 'fallback', when: (v) => Number.isNaN(v), transform: (_v, context) => context.fallback },
 *   ],
 *   isComplete: (v) => typeof v === 'number' && !Number.isNaN(v),
 * })
 * amount.normalize('0', { fallback: 1 }).value // 0, not the fallback
 * ```
 */
export function defineNormalization<Value, Context = undefined>(
  definition: NormalizationDefinition<Value, Context>,
): Normalization<Value, Context> {
  assertObject(definition as unknown, 'definition', {
    where: 'defineNormalization',
    arrays: false,
    error: InvalidDefinitionError,
    hint: 'Pass { steps: [...], isComplete? }.',
  })
  const { steps, isComplete } = definition
  if (!Array.isArray(steps)) {
    refuseField(
      'definition',
      'steps',
      `must be an array, but got ${describeValue(steps)}. Pass steps: [{ id, transform }, ...] (an empty array is allowed)`,
      steps,
      { prefix: "A normalization's " },
    )
  }
  if (isComplete !== undefined) assertIsComplete(isComplete)
  const registry = Registry.create(steps, {
    kind: 'normalization step',
    assertDefinition: (step) => assertStep(step as NormalizationStep<unknown, unknown>),
  })
  return new NormalizationImpl(definition, registry.values())
}
