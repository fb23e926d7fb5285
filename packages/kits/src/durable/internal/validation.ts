import { describeValue, InvalidDefinitionError, InvalidInputError } from '@agent-core/core'
import type {
  DurableInspectRequest,
  DurableRunRequest,
  DurableStep,
  DurableTaskDefinition,
  DurableTaskOptions,
} from '../durable-task.js'
import type { DurableReplayPolicy, DurableStore } from '../store.js'

const DEFAULT_MAX_ATTEMPTS = 3

const REPLAY_POLICIES: readonly DurableReplayPolicy[] = ['safe', 'reconcile']

function invalidDefinition(message: string, details: Record<string, unknown>): InvalidDefinitionError {
  return new InvalidDefinitionError(message, { details })
}

export function checkDefinition<State, App>(definition: DurableTaskDefinition<State, App>): void {
  if (typeof definition !== 'object' || definition === null) {
    throw invalidDefinition(
      `A durable task definition must be an object, but got ${describeValue(definition)}. Pass { id, revision, steps, isState }.`,
      {},
    )
  }
  const { id, revision, steps, isState, authorize } = definition
  if (typeof id !== 'string' || id.length === 0) {
    throw invalidDefinition(`A durable task id must be a non-empty string, but got ${describeValue(id)}.`, {
      field: 'id',
    })
  }
  if (typeof revision !== 'string' || revision.length === 0) {
    throw invalidDefinition(
      `Durable task "${id}": revision must be a non-empty string, but got ${describeValue(revision)}.`,
      { id, field: 'revision' },
    )
  }
  if (typeof isState !== 'function') {
    throw invalidDefinition(
      `Durable task "${id}": isState must be a synchronous predicate, but got ${describeValue(isState)}.`,
      { id, field: 'isState' },
    )
  }
  if (authorize !== undefined && typeof authorize !== 'function') {
    throw invalidDefinition(
      `Durable task "${id}": authorize must be a function or omitted, but got ${describeValue(authorize)}.`,
      { id, field: 'authorize' },
    )
  }
  if (!Array.isArray(steps) || steps.length === 0) {
    throw invalidDefinition(
      `Durable task "${id}": steps must be a non-empty array, but got ${describeValue(steps)}.`,
      { id, field: 'steps' },
    )
  }
  const seen = new Set<string>()
  // An index loop, not forEach: forEach skips the holes of a sparse array, which must be refused too.
  for (let index = 0; index < steps.length; index++) {
    const step: DurableStep<State, App> | undefined = steps[index]
    if (typeof step !== 'object' || step === null) {
      throw invalidDefinition(
        `Durable task "${id}": step ${index} must be an object, but got ${describeValue(step)}.`,
        { id, index },
      )
    }
    if (typeof step.id !== 'string' || step.id.length === 0) {
      throw invalidDefinition(
        `Durable task "${id}": step ${index} needs a non-empty string id, but got ${describeValue(step.id)}.`,
        { id, index },
      )
    }
    if (seen.has(step.id)) {
      throw invalidDefinition(
        `Durable task "${id}": step id "${step.id}" is used twice. Give every step its own id.`,
        { id, stepId: step.id },
      )
    }
    seen.add(step.id)
    if (!REPLAY_POLICIES.includes(step.replayPolicy)) {
      throw invalidDefinition(
        `Durable task "${id}": step "${step.id}" has replayPolicy ${describeValue(step.replayPolicy)}; use 'safe' or 'reconcile'.`,
        { id, stepId: step.id, field: 'replayPolicy' },
      )
    }
    if (typeof step.run !== 'function') {
      throw invalidDefinition(`Durable task "${id}": step "${step.id}" run must be a function.`, {
        id,
        stepId: step.id,
        field: 'run',
      })
    }
    if (step.reconcile !== undefined && typeof step.reconcile !== 'function') {
      throw invalidDefinition(
        `Durable task "${id}": step "${step.id}" reconcile must be a function or omitted.`,
        { id, stepId: step.id, field: 'reconcile' },
      )
    }
  }
}

/** Checks the fields shared by options and run requests. */
export function checkCreationFields(source: Record<string, unknown>, where: string): void {
  for (const name of ['maxAttempts', 'timeoutMs'] as const) {
    const value = source[name]
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) {
      throw new InvalidInputError(
        `${where}: ${name} must be a safe integer of at least 1, but got ${describeValue(value)}.`,
        {
          details: { name, received: describeValue(value) },
        },
      )
    }
  }
  const budget = source.modelBudget
  if (budget !== undefined) {
    const { maxCalls, maxCallsPerAttempt } = (
      typeof budget === 'object' && budget !== null ? budget : {}
    ) as Record<string, unknown>
    const count = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    if (!count(maxCalls) || !count(maxCallsPerAttempt)) {
      throw new InvalidInputError(
        `${where}: modelBudget must be { maxCalls, maxCallsPerAttempt } with non-negative safe integers, but got ${describeValue(budget)}.`,
        { details: { name: 'modelBudget' } },
      )
    }
  }
}

/** Checks that a value looks like a {@link DurableStore}. */
export function checkStore(store: unknown, where: string): asserts store is DurableStore {
  const candidate = store as Partial<DurableStore> | null
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.exclusive !== 'function' ||
    typeof candidate.load !== 'function' ||
    typeof candidate.save !== 'function'
  ) {
    throw new InvalidInputError(
      `${where}: store must be a DurableStore with exclusive, load and save, but got ${describeValue(store)}.`,
      {
        details: { name: 'store', received: describeValue(store) },
      },
    )
  }
}

export interface ParsedRequest<State> {
  readonly taskId: string
  readonly store: DurableStore
  readonly hasInput: boolean
  readonly input: State | undefined
  readonly maxAttempts: number
  readonly deadlineAtMs: number | undefined
  readonly timeoutMs: number | undefined
  readonly modelBudget: { readonly maxCalls: number; readonly maxCallsPerAttempt: number } | undefined
}

export function parseRequest<State>(
  definitionId: string,
  options: DurableTaskOptions,
  request: DurableRunRequest<State> | DurableInspectRequest,
): ParsedRequest<State> {
  const where = `Durable task "${definitionId}" run`
  if (typeof request !== 'object' || request === null) {
    throw new InvalidInputError(
      `${where}: the request must be an object such as { taskId, store }, but got ${describeValue(request)}.`,
      {
        details: { name: 'request' },
      },
    )
  }
  const fields = request as DurableRunRequest<State>
  const { taskId } = fields
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new InvalidInputError(
      `${where}: taskId must be a non-empty string, but got ${describeValue(taskId)}.`,
      {
        details: { name: 'taskId', received: describeValue(taskId) },
      },
    )
  }
  const store = fields.store ?? options.store
  if (store === undefined) {
    throw new InvalidInputError(
      `${where}: no store. Pass { store } in the request or bind one in defineDurableTask options.`,
      {
        details: { name: 'store' },
      },
    )
  }
  checkStore(store, where)
  checkCreationFields(fields as unknown as Record<string, unknown>, where)
  const { deadlineAtMs, timeoutMs } = fields
  if (
    deadlineAtMs !== undefined &&
    (typeof deadlineAtMs !== 'number' || !Number.isSafeInteger(deadlineAtMs) || deadlineAtMs < 0)
  ) {
    throw new InvalidInputError(
      `${where}: deadlineAtMs must be a non-negative safe integer (epoch ms), but got ${describeValue(deadlineAtMs)}.`,
      {
        details: { name: 'deadlineAtMs', received: describeValue(deadlineAtMs) },
      },
    )
  }
  if (deadlineAtMs !== undefined && timeoutMs !== undefined) {
    throw new InvalidInputError(`${where}: pass deadlineAtMs or timeoutMs, not both.`, {
      details: { name: 'deadlineAtMs' },
    })
  }
  return {
    taskId,
    store,
    hasInput: 'input' in fields,
    input: fields.input,
    maxAttempts: fields.maxAttempts ?? options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    deadlineAtMs,
    timeoutMs: deadlineAtMs === undefined ? (timeoutMs ?? options.timeoutMs) : undefined,
    modelBudget: fields.modelBudget ?? options.modelBudget,
  }
}
