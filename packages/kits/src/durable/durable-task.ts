import type { MaybePromise, OperationContext, OperationContextInit } from '@agent-core/core'
import { runDurableTask } from './internal/runner.js'
import { checkDefinition, checkOptions } from './internal/validation.js'
import type { CheckpointV2, DurableReplayPolicy, DurableStore } from './store.js'

/**
 * The context a step handler receives: the run's {@link OperationContext} (signal, app, clock, budget)
 * with diagnostics inside the step's span (its scope ends in
 * `['durable', taskId, 'task', 'attempt', 'step', stepId]`), plus where the task stands and `checkpoint`
 * to save progress part-way through the step.
 *
 * @example
 * ```ts
 * import type { DurableStep } from '@agent-core/kits/durable'
 *
 * interface Batch { readonly items: readonly string[]; readonly done: readonly string[] }
 * const process: DurableStep<Batch> = {
 *   id: 'process',
 *   replayPolicy: 'safe',
 *   run: async (batch, context) => {
 *     let state = batch // on a resume: the last progress saved below
 *     for (const item of batch.items.filter((i) => !batch.done.includes(i))) {
 *       context.signal.throwIfAborted()
 *       state = { ...state, done: [...state.done, item] }
 *       await context.checkpoint(state) // saved: a resumed attempt never redoes this item
 *     }
 *     return state
 *   },
 * }
 * ```
 */
export interface DurableStepContext<App = unknown, State = unknown> extends OperationContext<App> {
  readonly taskId: string
  readonly stepId: string
  readonly stepIndex: number
  /** The attempt executing the step (the checkpoint's `attemptCount`, already saved). */
  readonly attempt: number
  /** `reconcile` when the step is re-entered after an interruption and goes through `reconcile`. */
  readonly mode: 'run' | 'reconcile'
  /**
   * True when an earlier attempt was interrupted at this step, so it may already have done part of the
   * work: the step is re-entered (`run` for a `safe` step, `reconcile` for a `reconcile` one) with the last
   * state saved at this step, which is its last `checkpoint` progress or, when it saved none, the previous
   * step's result. False on the step's first entry.
   */
  readonly resuming: boolean
  /**
   * The model calls this attempt reserved (already persisted, never refunded); `undefined` when the task
   * has no model budget. Constrain the real model runner with it, e.g. `new AttemptBudget(maxModelCalls)`.
   */
  readonly maxModelCalls: number | undefined
  /** The task's fixed deadline in epoch milliseconds, or `null`. The signal also aborts at the deadline. */
  readonly deadlineAtMs: number | null
  /**
   * Saves `state` as the step's progress, under the same lease and fencing as a step result and after the
   * same checks: it is cloned and checked with `isState` (`InvalidInputError` when refused), then
   * cancellation (`AbortedError`), the lease (`ConflictError`) and the deadline (`TimeoutError`) are
   * checked before the write. Resolves once the write committed. The step stays at the same index: if the
   * attempt is interrupted, the next one re-enters the step with this state and `resuming: true`. Calls
   * are saved in call order; a call after the step returned is refused (`InvalidStateError`).
   */
  checkpoint(state: State): Promise<void>
}

/**
 * One step of a durable task. It returns the next state; the runner clones, checks and saves it.
 * @example
 * ```ts
 * import type { DurableStep } from '@agent-core/kits/durable'
 * const send: DurableStep<{ sent: boolean }> = {
 *   id: 'send-mail',
 *   replayPolicy: 'reconcile',
 *   run: async (state) => ({ ...state, sent: true }),
 *   reconcile: async (state) => ({ ...state, sent: true }),
 * }
 * ```
 */
export interface DurableStep<State, App = unknown> {
  /** Unique within the task. */
  readonly id: string
  /**
   * `safe`: re-running the step after an interruption is harmless (the App guarantees it).
   * `reconcile`: a resumed task re-enters the step only through `reconcile`, which finds out what the
   * interrupted attempt already did; without `reconcile` the resume is refused.
   */
  readonly replayPolicy: DurableReplayPolicy
  run(state: State, context: DurableStepContext<App, State>): MaybePromise<State>
  /** Re-entry of a `reconcile` step after an interruption; returns the state as if the step had completed. */
  reconcile?(state: State, context: DurableStepContext<App, State>): MaybePromise<State>
}

/**
 * The static declaration of a durable task.
 * @example
 * ```ts
 * import type { DurableTaskDefinition } from '@agent-core/kits/durable'
 * const definition: DurableTaskDefinition<number> = {
 *   id: 'increment',
 *   revision: '1',
 *   isState: (value): value is number => typeof value === 'number',
 *   steps: [{ id: 'add', replayPolicy: 'safe', run: (n) => n + 1 }],
 * }
 * ```
 */
export interface DurableTaskDefinition<State, App = unknown> {
  readonly id: string
  /** Stored in every checkpoint; a checkpoint of another revision is refused. Bump it when steps change. */
  readonly revision: string
  readonly steps: readonly DurableStep<NoInfer<State>, App>[]
  /**
   * Synchronous predicate checked on the input, on every loaded state and on every step result. The
   * state type is inferred from it alone, so a step returning something else is a type error at the step.
   */
  isState(input: unknown): input is State
  /**
   * Checks the caller may continue this task: called with a frozen copy of the checkpoint on every resume,
   * before creating a task and before returning a completed result. Return nothing to allow; throw to refuse
   * (a thrown non-agent-core error becomes an `UnauthorizedError`).
   */
  authorize?(
    checkpoint: Readonly<CheckpointV2<NoInfer<State>>>,
    context: OperationContext<App>,
  ): void | Promise<void>
}

/**
 * A model-call budget for a new task (see {@link DurableModelBudget}).
 * @example
 * ```ts
 * import type { DurableModelBudgetInit } from '@agent-core/kits/durable'
 * const modelBudget: DurableModelBudgetInit = { maxCalls: 20, maxCallsPerAttempt: 5 }
 * ```
 */
export interface DurableModelBudgetInit {
  readonly maxCalls: number
  readonly maxCallsPerAttempt: number
}

/**
 * Options bound to a task when it is defined.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type DurableTaskOptions } from '@agent-core/kits/durable'
 * const options: DurableTaskOptions = { store: createMemoryDurableStore(), maxAttempts: 5, timeoutMs: 60_000 }
 * ```
 */
export interface DurableTaskOptions {
  /** The store used when a run request names none. */
  readonly store?: DurableStore | undefined
  /** The clock (epoch milliseconds) for deadlines. Default: the run context's `now`. */
  readonly now?: (() => number) | undefined
  /** Attempts a new task allows. Default 3. */
  readonly maxAttempts?: number | undefined
  /** A new task's deadline, relative to its creation. Default: no deadline. */
  readonly timeoutMs?: number | undefined
  /** A new task's model budget. Default: none. */
  readonly modelBudget?: DurableModelBudgetInit | undefined
}

/**
 * One run of a task. `input` and the creation fields (`maxAttempts`, `deadlineAtMs`/`timeoutMs`,
 * `modelBudget`) apply only when no checkpoint exists yet; a resumed task keeps what it was created with.
 * @example
 * ```ts
 * import type { DurableRunRequest } from '@agent-core/kits/durable'
 * const request: DurableRunRequest<number> = { taskId: 'job-1', input: 0, maxAttempts: 2, timeoutMs: 30_000 }
 * ```
 */
export interface DurableRunRequest<State> {
  readonly taskId: string
  /** The store for this run; overrides the one bound in the options. */
  readonly store?: DurableStore | undefined
  /** The initial state of a new task. Ignored when the task already has a checkpoint. */
  readonly input?: State
  readonly maxAttempts?: number | undefined
  /** Absolute deadline of a new task (epoch ms). Exclusive with `timeoutMs`. */
  readonly deadlineAtMs?: number | undefined
  /** Deadline of a new task relative to now. Exclusive with `deadlineAtMs`. */
  readonly timeoutMs?: number | undefined
  readonly modelBudget?: DurableModelBudgetInit | undefined
}

/**
 * What `inspect` needs.
 * @example
 * ```ts
 * import { createMemoryDurableStore, type DurableInspectRequest } from '@agent-core/kits/durable'
 * const request: DurableInspectRequest = { taskId: 'job-1', store: createMemoryDurableStore() }
 * ```
 */
export interface DurableInspectRequest {
  readonly taskId: string
  readonly store?: DurableStore | undefined
}

/**
 * A defined durable task.
 * @example
 * ```ts
 * import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
 * const task = defineDurableTask({
 *   id: 'increment',
 *   revision: '1',
 *   isState: (value): value is number => typeof value === 'number',
 *   steps: [{ id: 'add', replayPolicy: 'safe', run: (n) => n + 1 }],
 * })
 * const store = createMemoryDurableStore()
 * await task.run({ taskId: 'i1', store, input: 1 }) // 2
 * await task.inspect({ taskId: 'i1', store }) // the completed checkpoint
 * ```
 */
export interface DurableTask<State, App = unknown> {
  readonly id: string
  readonly revision: string
  readonly steps: readonly DurableStep<State, App>[]
  /**
   * Creates or resumes the task under the store's lease and runs its remaining steps, saving a checkpoint
   * after each. Resolves with the final state; a completed task returns its state without running anything.
   */
  run(
    request: DurableRunRequest<State>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<State>
  /**
   * Loads and validates the task's checkpoint without writing or locking; `authorize` is applied. Resolves
   * `undefined` for an unknown task.
   */
  inspect(
    request: DurableInspectRequest,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<CheckpointV2<State> | undefined>
}

/**
 * Defines a durable task: a fixed list of steps whose progress is checkpointed in an App-chosen store, so
 * that a crash, a cancellation or another worker can resume it without repeating completed steps.
 *
 * @throws `InvalidDefinitionError` for a malformed definition, `InvalidInputError` for bad options
 * @example
 * ```ts
 * import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
 *
 * interface Order { readonly id: string; readonly charged: boolean; readonly shipped: boolean }
 * const isOrder = (value: unknown): value is Order =>
 *   typeof value === 'object' && value !== null && typeof (value as Order).id === 'string'
 *
 * const fulfil = defineDurableTask(
 *   {
 *     id: 'fulfil-order',
 *     revision: '1',
 *     isState: isOrder,
 *     steps: [
 *       { id: 'charge', replayPolicy: 'reconcile', run: (order) => ({ ...order, charged: true }),
 *         reconcile: (order) => ({ ...order, charged: true }) },
 *       { id: 'ship', replayPolicy: 'safe', run: (order) => ({ ...order, shipped: true }) },
 *     ],
 *   },
 *   { store: createMemoryDurableStore(), maxAttempts: 5 },
 * )
 * const done = await fulfil.run({ taskId: 'order-7', input: { id: '7', charged: false, shipped: false } })
 * ```
 */
export function defineDurableTask<State, App = unknown>(
  definition: DurableTaskDefinition<State, App>,
  options: DurableTaskOptions = {},
): DurableTask<State, App> {
  checkDefinition(definition)
  checkOptions(options)
  const steps = Object.freeze([...definition.steps])
  const bound = Object.freeze({ ...options })
  const frozen: DurableTaskDefinition<State, App> = Object.freeze({
    id: definition.id,
    revision: definition.revision,
    steps,
    isState: (input: unknown): input is State => definition.isState(input),
    ...(definition.authorize
      ? {
          authorize: (checkpoint: Readonly<CheckpointV2<State>>, context: OperationContext<App>) =>
            definition.authorize?.(checkpoint, context),
        }
      : {}),
  })
  return Object.freeze({
    id: definition.id,
    revision: definition.revision,
    steps,
    run: (request: DurableRunRequest<State>, context?: OperationContext<App> | OperationContextInit<App>) =>
      runDurableTask(frozen, bound, 'run', request, context) as Promise<State>,
    inspect: (request: DurableInspectRequest, context?: OperationContext<App> | OperationContextInit<App>) =>
      runDurableTask(frozen, bound, 'inspect', request, context) as Promise<CheckpointV2<State> | undefined>,
  })
}
