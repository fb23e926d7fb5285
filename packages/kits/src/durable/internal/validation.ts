import {
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  FieldReader,
  InvalidDefinitionError,
  refuseField,
} from '@agent-core/core'
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

function invalidDefinition(
  message: string,
  details: Record<string, unknown> & { readonly field: string },
): InvalidDefinitionError {
  return new InvalidDefinitionError(message, { details })
}

export function checkDefinition<State, App>(definition: DurableTaskDefinition<State, App>): void {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw invalidDefinition(
      `A durable task definition must be an object, but got ${describeValue(definition)}. Pass { id, revision, steps, isState }.`,
      { field: 'definition', received: describeValue(definition) },
    )
  }
  // The id first, alone: every later message names the task by it.
  const named: FieldReader = new FieldReader(definition, '', 'a durable task definition', 'definition', {
    prefix: 'A durable task ',
  })
  const id = named.requiredString('id')
  const fields: FieldReader = new FieldReader(definition, '', 'a durable task definition', 'definition', {
    prefix: `Durable task "${id}": `,
    details: { id },
  })
  fields.requiredString('revision')
  const isState = fields.get('isState')
  if (typeof isState !== 'function') fields.mustBe('isState', 'a synchronous predicate', isState)
  const authorize = fields.get('authorize')
  if (authorize !== undefined && typeof authorize !== 'function')
    fields.mustBe('authorize', 'a function or omitted', authorize)
  const steps = fields.requiredArray('steps', { empty: false }) as readonly (
    | DurableStep<State, App>
    | undefined
  )[]
  const seen = new Set<string>()
  // An index loop, not forEach: forEach skips the holes of a sparse array, which must be refused too.
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index]
    if (typeof step !== 'object' || step === null) {
      throw invalidDefinition(
        `Durable task "${id}": step ${index} must be an object, but got ${describeValue(step)}.`,
        { id, index, field: `steps[${index}]`, received: describeValue(step) },
      )
    }
    if (typeof step.id !== 'string' || step.id.length === 0) {
      throw invalidDefinition(
        `Durable task "${id}": step ${index} needs a non-empty string id, but got ${describeValue(step.id)}.`,
        { id, index, field: `steps[${index}].id`, received: describeValue(step.id) },
      )
    }
    if (seen.has(step.id)) {
      throw invalidDefinition(
        `Durable task "${id}": step id "${step.id}" is used twice. Give every step its own id.`,
        { id, stepId: step.id, field: `steps[${index}].id` },
      )
    }
    seen.add(step.id)
    if (!REPLAY_POLICIES.includes(step.replayPolicy)) {
      throw invalidDefinition(
        `Durable task "${id}": step "${step.id}" has replayPolicy ${describeValue(step.replayPolicy)}; use 'safe' or 'reconcile'.`,
        {
          id,
          stepId: step.id,
          field: `steps[${index}].replayPolicy`,
          received: describeValue(step.replayPolicy),
        },
      )
    }
    if (typeof step.run !== 'function') {
      throw invalidDefinition(
        `Durable task "${id}": step "${step.id}" run must be a function, but got ${describeValue(step.run)}.`,
        { id, stepId: step.id, field: `steps[${index}].run`, received: describeValue(step.run) },
      )
    }
    if (step.reconcile !== undefined && typeof step.reconcile !== 'function') {
      throw invalidDefinition(
        `Durable task "${id}": step "${step.id}" reconcile must be a function or omitted, but got ${describeValue(step.reconcile)}.`,
        { id, stepId: step.id, field: `steps[${index}].reconcile`, received: describeValue(step.reconcile) },
      )
    }
  }
}

/** Checks the creation fields shared by options and run requests (`prefix` is `options` or `request`). */
export function checkCreationFields(source: Record<string, unknown>, prefix: 'options' | 'request'): void {
  for (const name of ['maxAttempts', 'timeoutMs'] as const) {
    const value = source[name]
    if (value !== undefined) assertSafeInteger(value, `${prefix}.${name}`, { min: 1 })
  }
  const budget = source.modelBudget
  if (budget !== undefined) {
    assertObject(budget, `${prefix}.modelBudget`)
    assertSafeInteger(budget.maxCalls, `${prefix}.modelBudget.maxCalls`, { min: 0 })
    assertSafeInteger(budget.maxCallsPerAttempt, `${prefix}.modelBudget.maxCallsPerAttempt`, { min: 0 })
  }
}

/**
 * Checks that a value has the shape of a {@link DurableStore}: the three contract methods and, when
 * declared, well-formed capabilities. Runs before anything is read or written.
 */
export function checkStore(store: unknown, field: string): asserts store is DurableStore {
  const candidate = store as Partial<Record<keyof DurableStore, unknown>> | null
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.exclusive !== 'function' ||
    typeof candidate.load !== 'function' ||
    typeof candidate.save !== 'function'
  ) {
    refuseField(
      'input',
      field,
      `must be a DurableStore with the methods exclusive(taskId, operation), load(taskId) and save(taskId, checkpoint), but got ${describeValue(store)}`,
      store,
    )
  }
  const { fencing, reportsLeaseWaits } = candidate
  if (fencing !== undefined) {
    const methods = (typeof fencing === 'object' && fencing !== null ? fencing : {}) as Record<
      string,
      unknown
    >
    if (typeof methods.load !== 'function' || typeof methods.save !== 'function') {
      refuseField(
        'input',
        `${field}.fencing`,
        `declares version fencing, so it must be { load(taskId), save(taskId, checkpoint, { expectedVersion }) }, but got ${describeValue(fencing)}. Implement both or leave fencing out`,
        fencing,
      )
    }
  }
  if (reportsLeaseWaits !== undefined && typeof reportsLeaseWaits !== 'boolean') {
    refuseField(
      'input',
      `${field}.reportsLeaseWaits`,
      `must be a boolean or omitted, but got ${describeValue(reportsLeaseWaits)}`,
      reportsLeaseWaits,
    )
  }
}

/** Checks the options of `defineDurableTask`. */
export function checkOptions(options: DurableTaskOptions): void {
  assertObject(options, 'options')
  if (options.store !== undefined) checkStore(options.store, 'options.store')
  if (options.now !== undefined) assertFunction(options.now, 'options.now')
  checkCreationFields(options as Record<string, unknown>, 'options')
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
  assertObject(request, 'request')
  const fields = request as DurableRunRequest<State>
  const { taskId } = fields
  assertNonEmptyString(taskId, 'request.taskId')
  const store = fields.store ?? options.store
  if (store === undefined) {
    refuseField(
      'input',
      'request.store',
      'is missing: pass { store } in the request or bind one in the defineDurableTask options',
      store,
      { prefix: `Durable task "${definitionId}": ` },
    )
  }
  checkStore(store, fields.store === undefined ? 'options.store' : 'request.store')
  checkCreationFields(fields as unknown as Record<string, unknown>, 'request')
  const { deadlineAtMs, timeoutMs } = fields
  if (deadlineAtMs !== undefined) assertSafeInteger(deadlineAtMs, 'request.deadlineAtMs', { min: 0 })
  if (deadlineAtMs !== undefined && timeoutMs !== undefined) {
    refuseField(
      'input',
      'request.deadlineAtMs',
      'cannot be given with request.timeoutMs: pass one of them, not both',
      deadlineAtMs,
      { prefix: `Durable task "${definitionId}": ` },
    )
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
