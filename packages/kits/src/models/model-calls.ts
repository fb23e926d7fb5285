import {
  type AttemptTicket,
  assertObject,
  assertSafeInteger,
  consumeRejection,
  createOperationContext,
  deadlineSignal,
  describeValue,
  type OperationContext,
  type OperationContextInit,
  Registry,
  RejectedThenableError,
  raceSignal,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import { createInvocationId } from '@agent-core/core/tools'
import { type AnyModelBinding, assertModelBinding, type ModelBinding } from './model-binding.js'

/**
 * The largest `timeoutMs` a call accepts: 2^31 - 1 ms (about 24.8 days), the longest delay a timer can
 * wait. Use it for a call that should be bounded only by the run's signal.
 * @example
 * ```ts
 * import { defineModelBinding, MAX_TIMEOUT_MS, ModelCalls } from '@agent-core/kits/models'
 *
 * const models = new ModelCalls([defineModelBinding({ id: 'echo', identity: 'toy', invoke: (text: string) => text })])
 * const controller = new AbortController()
 * const { value } = await models.invoke(
 *   { modelId: 'echo', input: 'hi', timeoutMs: MAX_TIMEOUT_MS },
 *   { signal: controller.signal },
 * )
 * ```
 */
export const MAX_TIMEOUT_MS = 2_147_483_647

/**
 * What {@link ModelCalls.invoke} takes: which binding, its input, and how long the call may take.
 * @example
 * ```ts
 * import type { ModelCallRequest } from '@agent-core/kits/models'
 * const request: ModelCallRequest<'draft', string> = { modelId: 'draft', input: 'Write a haiku', timeoutMs: 30_000 }
 * ```
 */
export interface ModelCallRequest<Id extends string = string, Input = unknown> {
  /** The binding's registration id. */
  readonly modelId: Id
  readonly input: Input
  /** A safe integer from 1 to 2147483647: the call (retries included) must settle within it. */
  readonly timeoutMs: number
}

/**
 * The record of one accepted call.
 * @example
 * ```ts
 * import type { ModelInvocation } from '@agent-core/kits/models'
 * function log(invocation: ModelInvocation) {
 *   console.log(`${invocation.modelId} (${invocation.identity}) took ${invocation.finishedAtMs - invocation.startedAtMs} ms`)
 * }
 * ```
 */
export interface ModelInvocation {
  /** Allocated by core for this call (`inv_...`). */
  readonly invocationId: string
  readonly modelId: string
  /** The binding's real model identity. */
  readonly identity: string
  /** The attempt the context's budget accepted for this call; `undefined` without a budget. */
  readonly attempt: AttemptTicket | undefined
  readonly startedAtMs: number
  readonly finishedAtMs: number
}

/**
 * What {@link ModelCalls.invoke} resolves to: the binding's business value and the invocation record.
 * @example
 * ```ts
 * import type { ModelResult } from '@agent-core/kits/models'
 * function text(result: ModelResult<string>): string {
 *   return result.value
 * }
 * ```
 */
export interface ModelResult<Output> {
  readonly value: Output
  readonly invocation: ModelInvocation
}

/**
 * The ids of a union of bindings: what a {@link ModelCalls} catalog of them accepts as `modelId`.
 * @example
 * ```ts
 * import { defineModelBinding, type ModelIdOf } from '@agent-core/kits/models'
 *
 * const draft = defineModelBinding({ id: 'draft', identity: 'toy', invoke: (prompt: string) => prompt })
 * const embed = defineModelBinding({ id: 'embed', identity: 'toy', invoke: (text: string) => [text.length] })
 * const id: ModelIdOf<typeof draft | typeof embed> = 'embed' // 'draft' | 'embed'
 * ```
 */
export type ModelIdOf<Binding> = Binding extends { readonly id: infer Id extends string } ? Id : never

/**
 * The input type of the binding registered as `Id`; `unknown` for a dynamic (`string`) id. It types
 * `request.input` of {@link ModelCalls.invoke}.
 * @example
 * ```ts
 * import { defineModelBinding, type ModelInputFor } from '@agent-core/kits/models'
 *
 * const draft = defineModelBinding({ id: 'draft', identity: 'toy', invoke: (prompt: string) => prompt })
 * const embed = defineModelBinding({ id: 'embed', identity: 'toy', invoke: (texts: string[]) => texts.map((t) => [t.length]) })
 * const input: ModelInputFor<typeof draft | typeof embed, 'embed'> = ['a passage'] // string[]
 * ```
 */
export type ModelInputFor<Binding, Id extends string> = string extends Id
  ? unknown
  : Extract<Binding, { readonly id: Id }> extends ModelBinding<infer Input, infer _Output, infer _App>
    ? Input
    : never

/**
 * The output type of the binding registered as `Id`; `unknown` for a dynamic (`string`) id. It types the
 * `value` that {@link ModelCalls.invoke} resolves to.
 * @example
 * ```ts
 * import { defineModelBinding, type ModelOutputFor } from '@agent-core/kits/models'
 *
 * const draft = defineModelBinding({ id: 'draft', identity: 'toy', invoke: (prompt: string) => prompt })
 * const embed = defineModelBinding({ id: 'embed', identity: 'toy', invoke: (texts: string[]) => texts.map((t) => [t.length]) })
 * const vectors: ModelOutputFor<typeof draft | typeof embed, 'embed'> = [[9]] // number[][]
 * ```
 */
export type ModelOutputFor<Binding, Id extends string> = string extends Id
  ? unknown
  : Extract<Binding, { readonly id: Id }> extends ModelBinding<infer _Input, infer Output, infer _App>
    ? Output
    : never

/**
 * The App type the binding registered as `Id` expects in its context; `unknown` for a dynamic (`string`)
 * id. It types the `context` argument of {@link ModelCalls.invoke}.
 * @example
 * ```ts
 * import { defineModelBinding, type ModelAppFor } from '@agent-core/kits/models'
 *
 * const billed = defineModelBinding({
 *   id: 'billed',
 *   identity: 'toy',
 *   invoke: (prompt: string, context: { app: { tenantId: string } }) => `${context.app.tenantId}: ${prompt}`,
 * })
 * const app: ModelAppFor<typeof billed, 'billed'> = { tenantId: 't-1' }
 * ```
 */
export type ModelAppFor<Binding, Id extends string> = string extends Id
  ? unknown
  : Extract<Binding, { readonly id: Id }> extends ModelBinding<infer _Input, infer _Output, infer App>
    ? App
    : unknown

function assertVoid(returned: unknown, hook: string): void {
  if (returned === undefined) return
  if (typeof (returned as { then?: unknown } | null)?.then === 'function') {
    consumeRejection(returned)
    throw new RejectedThenableError(
      `${hook} returned a Promise, but it must be a synchronous assertion. Check the value synchronously and throw to refuse it.`,
      { details: { hook } },
    )
  }
  refuseField(
    'output',
    hook,
    `returned ${describeValue(returned)}, but an assertion must return nothing and throw to refuse. If it is a predicate, throw when it is false`,
    returned,
    { details: { hook } },
  )
}

/**
 * A catalog of model bindings and the one way to call them: {@link ModelCalls.invoke} validates the
 * request, resolves the binding, checks the input, takes an attempt from the context's budget and hands
 * over to the binding in the same call stack, with the context's signal and the call's timeout bounding
 * the I/O. Input and output types follow the registration id.
 *
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
 *
 * const shout = defineModelBinding({
 *   id: 'shout',
 *   identity: 'toy-shouter',
 *   invoke: (text: string) => text.toUpperCase(),
 * })
 * const models = new ModelCalls([shout])
 * const { value, invocation } = await models.invoke(
 *   { modelId: 'shout', input: 'hello', timeoutMs: 1000 },
 *   { attemptBudget: new AttemptBudget(2) },
 * )
 * // value: 'HELLO', invocation.attempt?.attempt: 1
 * ```
 */
export class ModelCalls<Binding extends AnyModelBinding = AnyModelBinding> {
  readonly #bindings: Registry<Binding>

  /**
   * @param bindings - the bindings, as a sealed core `Registry` (its lookups and error factories are used
   *   as they are) or as an array / iterable (a sealed registry is built from it)
   * @throws `InvalidDefinitionError` for a malformed binding or an unsealed registry;
   *   `DuplicateIdError` / `InvalidIdError` for ids an array repeats or leaves empty
   */
  constructor(bindings: Registry<Binding> | Iterable<Binding>) {
    if (bindings instanceof Registry) {
      if (!bindings.sealed) {
        refuseField(
          'definition',
          'bindings',
          'must be a sealed Registry, so that the bindings cannot change under running calls: call registry.seal() first, or pass an array',
          bindings,
          { prefix: 'ModelCalls: ' },
        )
      }
      for (const binding of bindings.values()) assertModelBinding(binding)
      this.#bindings = bindings
      return
    }
    if (
      typeof bindings !== 'object' ||
      bindings === null ||
      typeof (bindings as Iterable<Binding>)[Symbol.iterator] !== 'function'
    ) {
      refuseField(
        'definition',
        'bindings',
        `must be an array (or a sealed Registry) of model bindings, but got ${describeValue(bindings)}`,
        bindings,
        { prefix: 'ModelCalls: ' },
      )
    }
    this.#bindings = Registry.create<Binding>([...bindings], {
      kind: 'model binding',
      assertDefinition: assertModelBinding,
    })
  }

  /** The registered bindings (sealed). */
  get bindings(): Registry<Binding> {
    return this.#bindings
  }

  /** Registered ids, in registration order. */
  ids(): readonly ModelIdOf<Binding>[] {
    return this.#bindings.ids() as readonly ModelIdOf<Binding>[]
  }

  /**
   * Calls the binding registered as `request.modelId` and resolves to `{ value, invocation }`.
   *
   * In order: the request is checked (`timeoutMs` must be a safe integer from 1 to 2147483647), the binding
   * is resolved, the context is completed, the signal is checked (a cancelled call consumes nothing),
   * `assertInput` runs, one attempt is taken from `context.attemptBudget` (when given) and `invoke` is called
   * in the same call stack, with no microtask in between. The binding receives a context whose signal
   * aborts on cancellation or at the timeout; the wait is raced against both, so a binding that ignores its
   * signal cannot hold the caller (its late result or rejection is consumed). Then `assertOutput` runs.
   * A `model-call` diagnostics span covers the call from the accepted attempt to the end.
   *
   * @throws `InvalidInputError` for a malformed request or context; `UnknownIdError` for an unregistered id
   * @throws `AbortedError` when the signal aborts; `TimeoutError` when `timeoutMs` passes
   * @throws `BudgetExhaustedError` when the attempt budget is used up
   * @throws whatever `assertInput`, `invoke` or `assertOutput` throw, unchanged
   */
  invoke<Id extends string>(
    request: ModelCallRequest<
      Id & (string extends Id ? unknown : ModelIdOf<Binding>),
      ModelInputFor<Binding, Id>
    >,
    context?: OperationContextInit<ModelAppFor<Binding, Id>>,
  ): Promise<ModelResult<ModelOutputFor<Binding, Id>>>
  async invoke(
    request: ModelCallRequest,
    context: OperationContextInit<unknown> = {},
  ): Promise<ModelResult<unknown>> {
    assertObject(request, 'model call request')
    const { modelId, input, timeoutMs } = request
    assertSafeInteger(timeoutMs, 'timeoutMs', { min: 1, max: MAX_TIMEOUT_MS })
    if (typeof modelId !== 'string' || modelId.length === 0) {
      refuseField(
        'input',
        'modelId',
        `must be the id of a registered binding (${this.#knownIds()}), but got ${describeValue(modelId)}`,
        modelId,
      )
    }
    const binding = this.#bindings.require(modelId)
    const operation = createOperationContext(context)
    throwIfAborted(operation.signal, `before model call "${modelId}"`)
    if (binding.assertInput !== undefined) {
      assertVoid(binding.assertInput(input), `model binding "${modelId}" assertInput`)
    }
    const attempt = operation.attemptBudget?.take({ signal: operation.signal, label: `model "${modelId}"` })
    const invocationId = createInvocationId()
    const startedAtMs = operation.now()
    const span = operation.diagnostics.span('model-call', {
      modelId,
      identity: binding.identity,
      invocationId,
      ...(attempt ? { attempt: attempt.attempt } : {}),
    })
    const deadline = deadlineSignal(operation.signal, timeoutMs, `model call "${modelId}"`)
    try {
      const bound: OperationContext<unknown> = {
        ...operation,
        signal: deadline.signal,
        diagnostics: span.diagnostics,
      }
      let pending: unknown
      try {
        pending = binding.invoke(input, bound)
      } catch (error) {
        pending = Promise.reject(error)
      }
      const value = await raceSignal(
        Promise.resolve(pending),
        deadline.signal,
        `waiting for model call "${modelId}"`,
      )
      if (binding.assertOutput !== undefined) {
        assertVoid(binding.assertOutput(value), `model binding "${modelId}" assertOutput`)
      }
      const finishedAtMs = operation.now()
      span.end('ok')
      return {
        value,
        invocation: Object.freeze({
          invocationId,
          modelId,
          identity: binding.identity,
          attempt,
          startedAtMs,
          finishedAtMs,
        }),
      }
    } catch (error) {
      span.fail(error)
      throw error
    } finally {
      deadline.dispose()
    }
  }

  #knownIds(): string {
    const ids = this.#bindings.ids()
    return ids.length ? `one of ${ids.map((id) => `"${id}"`).join(', ')}` : 'none are registered'
  }
}
