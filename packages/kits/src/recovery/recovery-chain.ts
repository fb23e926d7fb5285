import {
  assertFunction,
  assertNotThenable,
  describeValue,
  InvalidDefinitionError,
  type ReadonlyRegistry,
  Registry,
  RegistryView,
  refuseField,
} from '@agent-core/core'

/**
 * What one recovery step answers: take over with a value (`undefined` is a valid one), or
 * decline and let the next step try. The `value` key is required when `handled` is true, even for
 * `undefined`, so that a forgotten field cannot pass for a deliberate result.
 *
 * @example
 * ```ts
 * import { type RecoveryDecision } from '@agent-core/kits/recovery'
 * const takeOver: RecoveryDecision<string | undefined> = { handled: true, value: undefined }
 * const decline: RecoveryDecision<string | undefined> = { handled: false }
 * ```
 */
export type RecoveryDecision<Value> =
  | { readonly handled: true; readonly value: Value }
  | { readonly handled: false; readonly value?: never }

/**
 * One step of a {@link RecoveryChain}. `recover` is called as a method of the definition, so class
 * instances keep their receiver, private fields and prototype getters.
 *
 * @example
 * ```ts
 * import { type RecoveryDefinition } from '@agent-core/kits/recovery'
 * const notFound: RecoveryDefinition<{ error: unknown }, string[]> = {
 *   id: 'not-found-is-empty',
 *   recover: ({ error }) =>
 *     error instanceof Error && error.message === 'not found' ? { handled: true, value: [] } : { handled: false },
 * }
 * ```
 */
export interface RecoveryDefinition<Input, Value> {
  /** Unique, non-empty id of the step within its chain; reported as `recoveredBy`. */
  readonly id: string
  /**
   * Decides synchronously whether this step takes over. Throwing propagates out of `tryRecover`
   * unchanged; it is never read as "declined".
   */
  recover(input: Input): RecoveryDecision<Value>
}

/**
 * The outcome of {@link RecoveryChain.tryRecover}: either a step took over (its id is `recoveredBy`) or
 * none did, and the caller must handle the original failure itself.
 *
 * @example
 * ```ts
 * import { type RecoveryResult } from '@agent-core/kits/recovery'
 * function unwrap(result: RecoveryResult<number>, error: unknown): number {
 *   if (!result.handled) throw error
 *   return result.value
 * }
 * ```
 */
export type RecoveryResult<Value> =
  | { readonly handled: true; readonly value: Value; readonly recoveredBy: string }
  | { readonly handled: false }

/**
 * An ordered, id-keyed, sealed chain of recovery steps. `tryRecover` asks each step in declaration order
 * and stops at the first one that explicitly takes over.
 *
 * @example
 * ```ts
 * import { defineRecoveryChain } from '@agent-core/kits/recovery'
 * const chain = defineRecoveryChain([
 *   { id: 'default-zero', recover: (error: unknown) => (error === 'empty' ? { handled: true, value: 0 } : { handled: false }) },
 * ])
 * chain.tryRecover('empty') // { handled: true, value: 0, recoveredBy: 'default-zero' }
 * ```
 */
export interface RecoveryChain<Input, Value> extends ReadonlyRegistry<RecoveryDefinition<Input, Value>> {
  /** The definitions as given, in declaration order. */
  readonly definitions: readonly RecoveryDefinition<Input, Value>[]
  /**
   * Asks each step in order; the first `{ handled: true, value }` wins and later steps are not asked.
   * Returns `{ handled: false }` when every step declines, so the caller can rethrow its original error.
   * An error thrown by a step propagates unchanged.
   * @throws `RejectedThenableError` when a step returns a Promise (or takes over with a Promise value)
   * @throws `InvalidOutputError` when a step returns anything but an explicit decision
   */
  tryRecover(input: Input): RecoveryResult<Value>
}

function assertRecoveryDefinition(definition: RecoveryDefinition<unknown, unknown>): void {
  assertFunction(definition.recover, 'recover', {
    where: `Recovery step "${definition.id}"`,
    error: InvalidDefinitionError,
    details: { id: definition.id },
    hint: 'Add recover(input) returning { handled: true, value } or { handled: false }.',
  })
}

function readDecision(decision: unknown, id: string): RecoveryResult<unknown> {
  const hook = `recovery step "${id}" recover`
  const plain = assertNotThenable(decision, hook)
  const fix =
    'Return { handled: true, value } to take over (value may be undefined) or { handled: false } to decline'
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    refuseField('output', hook, `returned ${describeValue(plain)}, not a decision. ${fix}`, plain, {
      details: { id, hook: 'recover', returned: describeValue(plain) },
    })
  }
  const { handled } = plain as { handled?: unknown }
  if (handled === false) {
    if ('value' in plain) {
      refuseField(
        'output',
        'value',
        `must be left out of a decline ({ handled: false }), or it would be lost. ${fix}`,
        (plain as { value?: unknown }).value,
        { prefix: `${hook}: `, details: { id, hook: 'recover' } },
      )
    }
    return { handled: false }
  }
  if (handled !== true) {
    refuseField(
      'output',
      'handled',
      `must be true or false, but the decision's handled flag is ${describeValue(handled)}. ${fix}`,
      handled,
      { prefix: `${hook}: `, details: { id, hook: 'recover' } },
    )
  }
  if (!('value' in plain)) {
    refuseField(
      'output',
      'value',
      `is missing from a takeover ({ handled: true }). Write value: undefined explicitly if undefined is the result. ${fix}`,
      undefined,
      { prefix: `${hook}: `, details: { id, hook: 'recover' }, received: 'no value field' },
    )
  }
  const value = assertNotThenable((plain as { value: unknown }).value, `${hook} value`)
  return { handled: true, value, recoveredBy: id }
}

class RecoveryChainImpl<Input, Value>
  extends RegistryView<RecoveryDefinition<Input, Value>>
  implements RecoveryChain<Input, Value>
{
  readonly definitions: readonly RecoveryDefinition<Input, Value>[]

  constructor(definitions: readonly RecoveryDefinition<Input, Value>[]) {
    super(
      Registry.create(definitions, {
        kind: 'recovery step',
        assertDefinition: (definition) =>
          assertRecoveryDefinition(definition as RecoveryDefinition<unknown, unknown>),
      }),
    )
    this.definitions = Object.freeze(this.values().slice())
  }

  tryRecover(input: Input): RecoveryResult<Value> {
    for (const definition of this.definitions) {
      assertRecoveryDefinition(definition as RecoveryDefinition<unknown, unknown>)
      const result = readDecision(definition.recover(input), definition.id)
      if (result.handled) return Object.freeze(result) as RecoveryResult<Value>
    }
    return Object.freeze({ handled: false })
  }
}

/**
 * Builds a {@link RecoveryChain} from recovery steps. The chain is sealed: ids are unique and every step
 * has a `recover` method. Steps are kept as given (class instances keep their prototype and receiver).
 *
 * The chain is pure and synchronous: it needs no signal or context and operates directly on the
 * caller's input (typically the failure plus whatever the steps need to decide).
 *
 * Types: when called without type arguments, the value type is inferred from the steps' takeovers
 * only (a declining branch adds nothing to it). Pass `<Input, Value>` to state both explicitly.
 *
 * @param definitions - the steps, in the order `tryRecover` asks them
 * @throws `InvalidDefinitionError` for a step without `recover` or a non-array argument
 * @throws `InvalidIdError` for a missing or empty id, `DuplicateIdError` for a repeated id
 * @example
 * ```ts
 * import { defineRecoveryChain } from '@agent-core/kits/recovery'
 * const chain = defineRecoveryChain<{ error: unknown }, string | undefined>([
 *   { id: 'optional-field', recover: ({ error }) => (error === 'missing' ? { handled: true, value: undefined } : { handled: false }) },
 * ])
 * const result = chain.tryRecover({ error: 'missing' })
 * if (result.handled) console.log(result.value) // undefined, on purpose
 * ```
 */
export function defineRecoveryChain<Input, Decision extends RecoveryDecision<unknown>>(
  definitions: readonly { readonly id: string; recover(input: Input): Decision }[],
): RecoveryChain<
  Input,
  Decision extends { readonly handled: true; readonly value: infer Value } ? Value : never
>
/**
 * Builds a {@link RecoveryChain} with explicit input and value types.
 * @example
 * ```ts
 * import { defineRecoveryChain } from '@agent-core/kits/recovery'
 * const chain = defineRecoveryChain<{ error: unknown }, string | undefined>([
 *   { id: 'empty', recover: ({ error }) => (error === 'empty' ? { handled: true, value: undefined } : { handled: false }) },
 * ])
 * ```
 */
export function defineRecoveryChain<Input, Value>(
  definitions: readonly RecoveryDefinition<Input, Value>[],
): RecoveryChain<Input, Value>
export function defineRecoveryChain<Input, Value>(
  definitions: readonly RecoveryDefinition<Input, Value>[],
): RecoveryChain<Input, Value> {
  if (!Array.isArray(definitions)) {
    throw new InvalidDefinitionError(
      `defineRecoveryChain expects an array of recovery steps, but got ${describeValue(definitions)}. Pass [{ id, recover }, ...].`,
      { details: { received: describeValue(definitions) } },
    )
  }
  return new RecoveryChainImpl<Input, Value>(definitions)
}
