import {
  assertFunction,
  assertNotThenable,
  assertObject,
  createOperationContext,
  describeValue,
  InvalidDefinitionError,
  type OperationContext,
  type OperationContextInit,
  Registry,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import { DECISION_FIX, type DeliveryDecision, readDecision } from './delivery-decision.js'

export type { DeliveryDecision } from './delivery-decision.js'

/**
 * What `beforeStage` receives: the stage about to run and the state it will get.
 * @example
 * ```ts
 * import { type BeforeStageEvent } from '@agent-core/kits/delivery'
 * const event: BeforeStageEvent<string> = { stageId: 'render', state: 'draft' }
 * ```
 */
export interface BeforeStageEvent<State> {
  readonly stageId: string
  readonly state: State
}

/**
 * One stage of a {@link Delivery}. `handle` is called as a method of the stage, so class instances keep
 * their receiver, private fields and prototype getters.
 *
 * @example
 * ```ts
 * import { type DeliveryStage } from '@agent-core/kits/delivery'
 * const redact: DeliveryStage<string, string> = {
 *   id: 'redact',
 *   handle: (text) => ({ type: 'continue', state: text.replaceAll(/\d{4,}/g, '****') }),
 * }
 * ```
 */
export interface DeliveryStage<State, Value, App = unknown> {
  /** Unique, non-empty id of the stage within its delivery. */
  readonly id: string
  /**
   * Handles the current state synchronously and says explicitly whether to continue or complete. Must
   * not return a Promise. Throwing stops the delivery; the error propagates unchanged.
   */
  handle(state: State, context: OperationContext<App>): DeliveryDecision<State, Value>
}

/**
 * The declaration given to {@link defineDelivery}.
 * @example
 * ```ts
 * import { type DeliveryDefinition } from '@agent-core/kits/delivery'
 * const definition: DeliveryDefinition<string, string> = {
 *   stages: [{ id: 'send', handle: (text) => ({ type: 'complete', value: text }) }],
 *   beforeStage: ({ stageId }, context) => context.diagnostics.emit('stage-check', { stageId }),
 * }
 * ```
 */
export interface DeliveryDefinition<State, Value, App = unknown> {
  /** The stages, run in this order; at least one. Ids must be unique. */
  readonly stages: readonly DeliveryStage<State, Value, App>[]
  /**
   * Optional synchronous hook that runs before each stage's handler, after the cancellation check on
   * entering the stage. It must return nothing; throw to stop the delivery.
   */
  beforeStage?(event: BeforeStageEvent<State>, context: OperationContext<App>): void
}

/**
 * The outcome of {@link Delivery.deliver}: the value of the stage that completed, and that stage's id.
 * @example
 * ```ts
 * import { defineDelivery, type DeliveryResult } from '@agent-core/kits/delivery'
 * const delivery = defineDelivery<number, number>({ stages: [{ id: 'only', handle: (n) => ({ type: 'complete', value: n }) }] })
 * const result: DeliveryResult<number> = delivery.deliver(1)
 * ```
 */
export interface DeliveryResult<Value> {
  /** The completing stage's value; `undefined` is a valid result. */
  readonly value: Value
  /** Id of the stage that completed. */
  readonly stageId: string
}

/**
 * A compiled delivery: ordered stages with a `beforeStage` hook interleaved before each handler.
 * @example
 * ```ts
 * import { defineDelivery } from '@agent-core/kits/delivery'
 * const delivery = defineDelivery<string, string>({
 *   stages: [{ id: 'shout', handle: (text) => ({ type: 'complete', value: text.toUpperCase() }) }],
 * })
 * delivery.deliver('hi').value // 'HI'
 * ```
 */
export interface Delivery<State, Value, App = unknown> {
  /** The stages as given, in run order. */
  readonly stages: readonly DeliveryStage<State, Value, App>[]
  /**
   * Runs the stages synchronously, starting with `input` as the state, until one completes.
   *
   * `context` is an {@link OperationContext} or a partial one (`{ signal, diagnostics, app }`); it is
   * completed once and the same object is passed to every hook. Cancellation is checked on entering each
   * stage, before each handler and after each handler.
   *
   * @throws `AbortedError` (or the signal's `TimeoutError` reason) when the signal is aborted at a check
   * @throws `RejectedThenableError` when `beforeStage` or `handle` returns a Promise, or a decision carries one
   * @throws `InvalidOutputError` for a malformed decision, a non-void `beforeStage` result, or a last stage that continues
   * @throws `InvalidInputError` when `context` has fields of the wrong type
   */
  deliver(input: State, context?: OperationContextInit<App>): DeliveryResult<Value>
}

function assertStage(stage: DeliveryStage<unknown, unknown>): void {
  assertFunction(stage.handle, 'handle', {
    where: `Delivery stage "${stage.id}"`,
    error: InvalidDefinitionError,
    details: { id: stage.id },
    hint: `Give it a handle(state, context) method. ${DECISION_FIX}`,
  })
}

function assertBeforeStage(hook: unknown): asserts hook is (...args: never[]) => unknown {
  assertFunction(hook, 'beforeStage', {
    where: 'A delivery',
    error: InvalidDefinitionError,
    hint: 'Pass beforeStage({ stageId, state }, context) returning nothing, or leave it out.',
  })
}

class DeliveryImpl<State, Value, App> implements Delivery<State, Value, App> {
  readonly stages: readonly DeliveryStage<State, Value, App>[]
  readonly #definition: DeliveryDefinition<State, Value, App>

  constructor(
    definition: DeliveryDefinition<State, Value, App>,
    stages: readonly DeliveryStage<State, Value, App>[],
  ) {
    this.#definition = definition
    this.stages = Object.freeze(stages.slice())
  }

  deliver(input: State, context: OperationContextInit<App> = {}): DeliveryResult<Value> {
    const operation = createOperationContext<App>(context)
    const { signal } = operation
    const diagnostics = operation.diagnostics.child('delivery')
    const definition = this.#definition
    let state = input
    // Terminates: every stage either completes, throws, or continues to a next stage (readDecision
    // rejects a continue from the last one).
    for (let index = 0; ; index++) {
      const stage = this.stages[index] as DeliveryStage<State, Value, App>
      const stageId = stage.id
      throwIfAborted(signal, `entering delivery stage "${stageId}"`)
      // A span: every stage-start gets exactly one stage-end, also when a hook or the handler throws.
      const span = diagnostics.span('stage', { stageId })
      let step: ReturnType<typeof readDecision<State, Value>>
      try {
        const beforeStage = definition.beforeStage
        if (beforeStage !== undefined) {
          assertBeforeStage(beforeStage)
          const returned = assertNotThenable(
            beforeStage.call(definition, Object.freeze({ stageId, state }), operation),
            `delivery beforeStage (stage "${stageId}")`,
          )
          if (returned !== undefined) {
            refuseField(
              'output',
              'beforeStage',
              `returned ${describeValue(returned)}, but it must return nothing. Throw to stop the delivery; it cannot change the state`,
              returned,
              {
                prefix: `delivery stage "${stageId}": `,
                details: { id: stageId, hook: 'beforeStage', returned: describeValue(returned) },
              },
            )
          }
        }
        throwIfAborted(signal, `before delivery stage "${stageId}" handler`)
        assertStage(stage as DeliveryStage<unknown, unknown>)
        const decision = assertNotThenable(
          stage.handle(state, operation),
          `delivery stage "${stageId}" handle`,
        )
        throwIfAborted(signal, `after delivery stage "${stageId}" handler`)
        step = readDecision<State, Value>(decision, stageId, index === this.stages.length - 1)
      } catch (error) {
        span.fail(error, { stageId })
        throw error
      }
      span.end('ok', { stageId, decision: step.done ? 'complete' : 'continue' })
      if (step.done) return Object.freeze({ value: step.value, stageId })
      state = step.state
    }
  }
}

/**
 * Builds a {@link Delivery}: ordered stages, each with an id and a synchronous `handle(state, context)`
 * that explicitly continues with a state or completes with a value (which may be `undefined`), plus an
 * optional `beforeStage({ stageId, state }, context)` hook that runs before every handler.
 *
 * Everything runs synchronously: a hook or handler that returns a Promise is rejected, never awaited.
 * The definition and stages are kept as given, so class instances keep their receiver.
 *
 * @param definition - `{ stages, beforeStage? }`
 * @throws `InvalidDefinitionError` for a malformed definition, no stages, or a stage without `handle`
 * @throws `InvalidIdError` for a missing or empty stage id, `DuplicateIdError` for a repeated one
 * @example
 * ```ts
 * import { defineDelivery } from '@agent-core/kits/delivery'
 * const delivery = defineDelivery<string, string | undefined>({
 *   stages: [
 *     { id: 'skip-empty', handle: (text) => (text === '' ? { type: 'complete', value: undefined } : { type: 'continue', state: text }) },
 *     { id: 'send', handle: (text) => ({ type: 'complete', value: text.trim() }) },
 *   ],
 * })
 * delivery.deliver('') // { value: undefined, stageId: 'skip-empty' }
 * ```
 */
export function defineDelivery<State, Value, App = unknown>(
  definition: DeliveryDefinition<State, Value, App>,
): Delivery<State, Value, App> {
  assertObject(definition as unknown, 'definition', {
    where: 'defineDelivery',
    arrays: false,
    error: InvalidDefinitionError,
    hint: 'Pass { stages: [...], beforeStage? }.',
  })
  const { stages, beforeStage } = definition
  if (!Array.isArray(stages) || stages.length === 0)
    refuseField(
      'definition',
      'stages',
      `must be a non-empty array, but got ${describeValue(stages)}. Declare at least one stage { id, handle }; the last one must complete`,
      stages,
      { prefix: "A delivery's " },
    )
  if (beforeStage !== undefined) assertBeforeStage(beforeStage)
  const registry = Registry.create(stages, {
    kind: 'delivery stage',
    assertDefinition: (stage) => assertStage(stage as DeliveryStage<unknown, unknown>),
  })
  return new DeliveryImpl(definition, registry.values())
}
