import {
  AgentCoreError,
  assertBoolean,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  isThenable,
  type OperationContext,
  raceSignal,
  refuseField,
  UnauthorizedError,
} from '@agent-core/core'
import type { DurableStep, DurableTaskDefinition } from '../durable-task.js'
import type { CheckpointV2, DurableModelBudget } from '../store.js'

/** Clones a step's result and checks it with `isState`; a failure is the step's {@link InvalidOutputError}. */
export function checkStepOutput<State, App>(
  definition: DurableTaskDefinition<State, App>,
  taskId: string,
  output: unknown,
  step: DurableStep<State, App>,
): State {
  let copy: unknown
  try {
    copy = structuredClone(output)
  } catch (error) {
    refuseField(
      'output',
      `step "${step.id}"`,
      'returned a state that cannot be cloned; return plain JSON data',
      output,
      {
        prefix: `Task "${taskId}": `,
        details: { taskId, stepId: step.id, hook: `step "${step.id}"` },
        cause: error,
      },
    )
  }
  if (!assertBoolean(definition.isState(copy), `durable task "${definition.id}" isState`)) {
    refuseField(
      'output',
      `step "${step.id}"`,
      `returned ${describeValue(output)}, which isState rejects; return the next state`,
      output,
      { prefix: `Task "${taskId}": `, details: { taskId, stepId: step.id, hook: `step "${step.id}"` } },
    )
  }
  return copy as State
}

/**
 * Clones the state a step passed to `context.checkpoint` and checks it with `isState`; a failure is an
 * {@link InvalidInputError} (the argument is refused, nothing is saved).
 */
export function checkProgressState<State, App>(
  definition: DurableTaskDefinition<State, App>,
  taskId: string,
  state: unknown,
  stepId: string,
): State {
  let copy: unknown
  try {
    copy = structuredClone(state)
  } catch (error) {
    refuseField(
      'input',
      'state',
      'passed to context.checkpoint cannot be cloned; pass plain JSON data',
      state,
      {
        prefix: `Step "${stepId}" of task "${taskId}": `,
        details: { taskId, stepId },
        cause: error,
      },
    )
  }
  if (!assertBoolean(definition.isState(copy), `durable task "${definition.id}" isState`)) {
    refuseField(
      'input',
      'state',
      `passed to context.checkpoint is ${describeValue(state)}, which isState rejects. Nothing was saved; pass a state of the task`,
      state,
      { prefix: `Step "${stepId}" of task "${taskId}": `, details: { taskId, stepId } },
    )
  }
  return copy as State
}

/**
 * Clones a state and checks it with `isState`: a bad `input` is an {@link InvalidInputError}, a bad stored
 * state an {@link InvalidStateError} (`reason: 'bad-state'`).
 */
export function checkState<State, App>(
  definition: DurableTaskDefinition<State, App>,
  taskId: string,
  value: unknown,
  origin: 'input' | 'stored',
): State {
  const bad = (problem: string, cause?: unknown): AgentCoreError =>
    origin === 'input'
      ? new InvalidInputError(
          `The input of task "${taskId}" is not a valid state: ${problem}. Pass a value isState accepts.`,
          { cause, details: { taskId, field: 'request.input', received: describeValue(value) } },
        )
      : new InvalidStateError(
          `The stored checkpoint of task "${taskId}" is refused: its state is not valid (${problem}). Nothing was written; repair or delete the stored record.`,
          { cause, details: { taskId, definitionId: definition.id, reason: 'bad-state' } },
        )
  let copy: unknown
  try {
    copy = structuredClone(value)
  } catch (error) {
    throw bad('it cannot be cloned', error)
  }
  if (!assertBoolean(definition.isState(copy), `durable task "${definition.id}" isState`)) {
    throw bad(`isState rejects ${describeValue(value)}`)
  }
  return copy as State
}

/**
 * Calls the definition's `authorize` with a deep-frozen copy of the checkpoint. A thrown non-agent-core
 * error becomes {@link UnauthorizedError}; a returned value is an {@link InvalidOutputError}.
 */
export async function authorizeCheckpoint<State, App>(
  definition: DurableTaskDefinition<State, App>,
  taskId: string,
  checkpoint: CheckpointV2<State>,
  context: OperationContext<App>,
): Promise<void> {
  const authorize = definition.authorize
  if (authorize === undefined) return
  let result: unknown
  try {
    const returned: unknown = authorize(deepFreeze(structuredClone(checkpoint)), context)
    // An asynchronous authorize is raced with the run's signal, so a cancelled run never hangs on it.
    result = isThenable(returned)
      ? await raceSignal(Promise.resolve(returned), context.signal, `authorizing task "${taskId}"`)
      : returned
  } catch (error) {
    if (AgentCoreError.isInstance(error)) throw error
    throw new UnauthorizedError(
      `Task "${taskId}" was refused by authorize: ${error instanceof Error ? error.message : describeValue(error)}.`,
      { cause: error, details: { taskId, definitionId: definition.id } },
    )
  }
  if (result !== undefined) {
    refuseField(
      'output',
      'authorize',
      `returned ${describeValue(result)}; it must return nothing to allow or throw to refuse`,
      result,
      { prefix: `Durable task "${definition.id}": `, details: { taskId, hook: 'authorize' } },
    )
  }
}

/** The reservation of one attempt: `min(perAttempt, max - reserved)`, added to `reservedCalls`. */
export function reserve(
  budget: DurableModelBudget | undefined,
): { readonly granted: number; readonly budget: DurableModelBudget } | undefined {
  if (budget === undefined) return undefined
  const granted = Math.min(budget.maxCallsPerAttempt, budget.maxCalls - budget.reservedCalls)
  return { granted, budget: { ...budget, reservedCalls: budget.reservedCalls + granted } }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}
