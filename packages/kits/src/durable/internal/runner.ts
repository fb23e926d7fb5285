import {
  abortedError,
  BudgetExhaustedError,
  ConflictError,
  childContext,
  createOperationContext,
  deadlineSignal,
  describeValue,
  InvalidInputError,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  TimeoutError,
  UnknownIdError,
} from '@agent-core/core'
import { parseCheckpointEnvelope } from '../checkpoint.js'
import type {
  DurableInspectRequest,
  DurableRunRequest,
  DurableStep,
  DurableStepContext,
  DurableTaskDefinition,
  DurableTaskOptions,
} from '../durable-task.js'
import type { CheckpointV2, DurableStore } from '../store.js'
import { checkedClock, checkLoaded, savedVersion } from './port-checks.js'
import { sameJson } from './same-json.js'
import { authorizeCheckpoint, checkState, checkStepOutput, reserve } from './state-checks.js'
import { type ParsedRequest, parseRequest } from './validation.js'

const MAX_TIMER_MS = 2_147_483_647

/** Runs (`mode: 'run'`) or inspects a task; the implementation behind `DurableTask`. */
export async function runDurableTask<State, App>(
  definition: DurableTaskDefinition<State, App>,
  options: DurableTaskOptions,
  mode: 'run' | 'inspect',
  request: DurableRunRequest<State> | DurableInspectRequest,
  contextInit: OperationContext<App> | OperationContextInit<App> | undefined,
): Promise<State | CheckpointV2<State> | undefined> {
  const context = createOperationContext<App>(contextInit ?? {})
  const parsed = parseRequest<State>(definition.id, options, request)
  const runner = new Runner(
    definition,
    parsed,
    context,
    checkedClock(options.now ?? context.now, definition.id),
  )
  if (mode === 'inspect') return runner.inspect()
  runner.checkSignal('entering exclusive')
  return parsed.store.exclusive(parsed.taskId, () => runner.execute(), { signal: context.signal })
}

class Runner<State, App> {
  readonly #definition: DurableTaskDefinition<State, App>
  readonly #request: ParsedRequest<State>
  readonly #context: OperationContext<App>
  readonly #taskContext: OperationContext<App>
  readonly #now: () => number
  #checkpoint: CheckpointV2<State> | undefined
  #version: number | undefined
  #maxModelCalls: number | undefined

  constructor(
    definition: DurableTaskDefinition<State, App>,
    request: ParsedRequest<State>,
    context: OperationContext<App>,
    now: () => number,
  ) {
    this.#definition = definition
    this.#request = request
    this.#context = context
    this.#taskContext = childContext(childContext(context, 'durable'), request.taskId)
    this.#now = now
  }

  get #taskId(): string {
    return this.#request.taskId
  }

  checkSignal(point: string): void {
    const { signal } = this.#context
    if (signal.aborted) throw abortedError(signal, `${point}, task "${this.#taskId}"`)
  }

  #deadlinePassed(): boolean {
    const deadline = this.#checkpoint?.deadlineAtMs
    return deadline !== null && deadline !== undefined && this.#now() >= deadline
  }

  /** Reads the task's stored record (racing the run's signal) and checks the store's answer has the right shape. */
  async #load(): Promise<ReturnType<typeof checkLoaded>> {
    const loading = this.#request.store.load(this.#taskId)
    return checkLoaded(
      await raceSignal(loading, this.#context.signal, `reading task "${this.#taskId}"`),
      this.#taskId,
    )
  }

  async inspect(): Promise<CheckpointV2<State> | undefined> {
    this.checkSignal('before reading')
    const stored = await this.#load()
    if (stored === undefined) return undefined
    const checkpoint = this.#validateStored(stored.checkpoint)
    await this.#authorize(checkpoint)
    return checkpoint
  }

  async execute(): Promise<State> {
    this.checkSignal('entering exclusive')
    const stored = await this.#load()
    this.checkSignal('after reading')
    if (stored === undefined) return this.#start()
    this.#checkpoint = this.#validateStored(stored.checkpoint)
    this.#version = stored.version
    this.checkSignal('after validating state')
    const checkpoint = this.#checkpoint
    // A completed task is authorized by #finish; every other status before anything is revealed or written.
    if (checkpoint.status === 'completed') return this.#finish()
    await this.#authorize(checkpoint)
    if (checkpoint.status === 'failed') throw this.#attemptsExhausted()
    if (checkpoint.status === 'expired') throw this.#expiredError('after reading')
    if (this.#deadlinePassed()) return this.#expire('after validating state')
    if (checkpoint.attemptCount >= checkpoint.maxAttempts) return this.#fail()
    const step = this.#step(checkpoint.nextStepIndex)
    const resumeMode = step.replayPolicy === 'reconcile' ? 'reconcile' : 'run'
    if (resumeMode === 'reconcile' && typeof step.reconcile !== 'function') {
      throw new InvalidStateError(
        `Task "${this.#taskId}" resumes at step "${step.id}", whose replayPolicy is 'reconcile', but the step has no reconcile. Nothing was written; add reconcile to the step (in a new revision) or settle the task by hand.`,
        { details: { taskId: this.#taskId, stepId: step.id, reason: 'reconcile-missing' } },
      )
    }
    // authorize may have taken a while: the deadline is checked again right before the attempt is saved.
    if (this.#deadlinePassed()) return this.#expire('before saving the attempt')
    const reservation = reserve(checkpoint.modelBudget)
    this.#maxModelCalls = reservation?.granted
    await this.#commit(
      {
        ...checkpoint,
        attemptCount: checkpoint.attemptCount + 1,
        status: 'running',
        ...(reservation ? { modelBudget: reservation.budget } : {}),
      },
      'attempt',
    )
    this.#taskContext.diagnostics.emit('attempt-started', {
      attempt: checkpoint.attemptCount + 1,
      stepId: step.id,
      resumeMode,
    })
    return this.#runSteps(resumeMode)
  }

  async #start(): Promise<State> {
    const request = this.#request
    if (!request.hasInput) {
      throw new UnknownIdError(
        `Task "${this.#taskId}" has no checkpoint in the store. Pass { input } to start it, or check the task id and store.`,
        { details: { taskId: this.#taskId, id: this.#taskId } },
      )
    }
    const state = checkState(this.#definition, this.#taskId, request.input, 'input')
    this.checkSignal('after validating state')
    const now = this.#now()
    const deadlineAtMs =
      request.deadlineAtMs ?? (request.timeoutMs === undefined ? null : now + request.timeoutMs)
    if (deadlineAtMs !== null && !Number.isSafeInteger(deadlineAtMs)) {
      throw new InvalidInputError(
        `Task "${this.#taskId}" was not started: timeoutMs ${request.timeoutMs} puts its deadline past the largest safe epoch millisecond. Nothing was written; pass a smaller timeoutMs.`,
        { details: { taskId: this.#taskId, field: 'timeoutMs', received: describeValue(request.timeoutMs) } },
      )
    }
    if (deadlineAtMs !== null && now >= deadlineAtMs) {
      throw new TimeoutError(
        `Task "${this.#taskId}" was not started: its deadline ${deadlineAtMs} has already passed. Nothing was written.`,
        {
          details: { taskId: this.#taskId, deadlineAtMs, timeoutMs: request.timeoutMs },
        },
      )
    }
    const budget = request.modelBudget
    const reservation = budget
      ? reserve({
          maxCalls: budget.maxCalls,
          maxCallsPerAttempt: budget.maxCallsPerAttempt,
          reservedCalls: 0,
        })
      : undefined
    this.#maxModelCalls = reservation?.granted
    const checkpoint: CheckpointV2<State> = {
      version: 2,
      definitionId: this.#definition.id,
      revision: this.#definition.revision,
      nextStepIndex: 0,
      attemptCount: 1,
      maxAttempts: request.maxAttempts,
      deadlineAtMs,
      status: 'running',
      state,
      ...(reservation ? { modelBudget: reservation.budget } : {}),
    }
    await this.#authorize(checkpoint)
    this.checkSignal('after authorizing')
    if (deadlineAtMs !== null && this.#now() >= deadlineAtMs) {
      throw new TimeoutError(
        `Task "${this.#taskId}" was not started: its deadline ${deadlineAtMs} passed before it was saved. Nothing was written.`,
        { details: { taskId: this.#taskId, deadlineAtMs, timeoutMs: request.timeoutMs } },
      )
    }
    await this.#commit(checkpoint, 'create')
    this.#taskContext.diagnostics.emit('task-created', {
      attempt: 1,
      maxAttempts: request.maxAttempts,
      deadlineAtMs,
    })
    return this.#runSteps('run')
  }

  async #runSteps(firstMode: 'run' | 'reconcile'): Promise<State> {
    let mode = firstMode
    for (let checkpoint = this.#current(); checkpoint.status === 'running'; checkpoint = this.#current()) {
      const index = checkpoint.nextStepIndex
      const step = this.#step(index)
      // The deadline may have passed during the save before this step: no step starts after it.
      if (this.#deadlinePassed()) return this.#expire(`before step "${step.id}"`)
      const next = await this.#executeStep(step, index, checkpoint, mode)
      mode = 'run'
      this.checkSignal(`after step "${step.id}"`)
      if (this.#deadlinePassed()) return this.#expire(`after step "${step.id}"`)
      const last = index + 1 === this.#definition.steps.length
      this.checkSignal('before save')
      if (this.#deadlinePassed()) return this.#expire('before save')
      await this.#commit(
        { ...checkpoint, nextStepIndex: index + 1, status: last ? 'completed' : 'running', state: next },
        `step "${step.id}"`,
      )
    }
    return this.#finish()
  }

  async #executeStep(
    step: DurableStep<State, App>,
    index: number,
    checkpoint: CheckpointV2<State>,
    mode: 'run' | 'reconcile',
  ): Promise<State> {
    const base = childContext(this.#taskContext, step.id)
    const deadline = checkpoint.deadlineAtMs
    const remaining = deadline === null ? undefined : deadline - this.#now()
    const timer =
      remaining !== undefined && remaining <= MAX_TIMER_MS
        ? deadlineSignal(this.#context.signal, Math.max(1, remaining), `durable task "${this.#taskId}"`)
        : undefined
    const context: DurableStepContext<App> = {
      ...base,
      signal: timer?.signal ?? base.signal,
      now: this.#now,
      taskId: this.#taskId,
      stepId: step.id,
      stepIndex: index,
      attempt: checkpoint.attemptCount,
      mode,
      maxModelCalls: this.#maxModelCalls,
      deadlineAtMs: deadline,
    }
    base.diagnostics.emit('step-started', { index, mode, attempt: checkpoint.attemptCount })
    try {
      const input = structuredClone(checkpoint.state)
      const output =
        mode === 'reconcile' ? await step.reconcile?.(input, context) : await step.run(input, context)
      const next = checkStepOutput(this.#definition, this.#taskId, output, step)
      base.diagnostics.emit('step-completed', { index, mode })
      return next
    } catch (error) {
      return await this.#stepFailed(error, step)
    } finally {
      timer?.dispose()
    }
  }

  async #stepFailed(error: unknown, step: DurableStep<State, App>): Promise<never> {
    const { signal } = this.#context
    if (signal.aborted) throw abortedError(signal, `during step "${step.id}", task "${this.#taskId}"`)
    if (this.#deadlinePassed()) return this.#expire(`during step "${step.id}"`)
    const checkpoint = this.#current()
    this.#taskContext.diagnostics.emit(
      'step-failed',
      { stepId: step.id, attempt: checkpoint.attemptCount, error: describeValue(error) },
      'warn',
    )
    if (checkpoint.attemptCount >= checkpoint.maxAttempts) {
      await this.#commit({ ...checkpoint, status: 'failed' }, 'failed')
      this.#taskContext.diagnostics.emit('task-failed', { attemptCount: checkpoint.attemptCount }, 'error')
    }
    throw error
  }

  #validateStored(raw: unknown): CheckpointV2<State> {
    const envelope = parseCheckpointEnvelope(raw, {
      taskId: this.#taskId,
      definitionId: this.#definition.id,
      revision: this.#definition.revision,
      stepCount: this.#definition.steps.length,
    })
    return { ...envelope, state: checkState(this.#definition, this.#taskId, envelope.state, 'stored') }
  }

  #authorize(checkpoint: CheckpointV2<State>): Promise<void> {
    return authorizeCheckpoint(this.#definition, this.#taskId, checkpoint, this.#taskContext)
  }

  /** Saves under the fencing token. A failure whose write did commit is recognised by reading back. */
  async #commit(next: CheckpointV2<State>, what: string): Promise<void> {
    this.checkSignal(`before save (${what})`)
    const store = this.#request.store
    const expectedVersion = this.#version
    let version: number
    try {
      version = savedVersion(await store.save(this.#taskId, next, { expectedVersion }), this.#taskId)
    } catch (error) {
      if (ConflictError.isInstance(error)) {
        throw new ConflictError(
          `Task "${this.#taskId}" was changed by another owner while this run held it (its lease lapsed); this run stops without overwriting the newer checkpoint. Run the task again to continue from the stored checkpoint.`,
          { cause: error, details: { taskId: this.#taskId, expectedVersion, save: what } },
        )
      }
      version = await this.#confirmSave(next, expectedVersion, error)
    }
    this.#version = version
    this.#checkpoint = next
    this.#taskContext.diagnostics.emit('checkpoint-saved', {
      save: what,
      nextStepIndex: next.nextStepIndex,
      status: next.status,
      version,
    })
    this.checkSignal(`after save (${what}, committed)`)
  }

  async #confirmSave(
    next: CheckpointV2<State>,
    expectedVersion: number | undefined,
    failure: unknown,
  ): Promise<number> {
    let stored: Awaited<ReturnType<DurableStore['load']>>
    try {
      stored = checkLoaded(await this.#request.store.load(this.#taskId), this.#taskId)
    } catch {
      throw failure
    }
    if (stored === undefined || stored.version === expectedVersion || !sameJson(stored.checkpoint, next))
      throw failure
    this.#taskContext.diagnostics.emit(
      'save-confirmed',
      { version: stored.version, error: describeValue(failure) },
      'warn',
    )
    return stored.version
  }

  async #finish(): Promise<State> {
    const checkpoint = this.#current()
    await this.#authorize(checkpoint)
    this.#taskContext.diagnostics.emit('task-completed', { attemptCount: checkpoint.attemptCount })
    return structuredClone(checkpoint.state)
  }

  async #expire(point: string): Promise<never> {
    await this.#commit({ ...this.#current(), status: 'expired' }, 'expired')
    this.#taskContext.diagnostics.emit(
      'task-expired',
      { point, deadlineAtMs: this.#current().deadlineAtMs },
      'warn',
    )
    throw this.#expiredError(point)
  }

  async #fail(): Promise<never> {
    await this.#commit({ ...this.#current(), status: 'failed' }, 'failed')
    this.#taskContext.diagnostics.emit('task-failed', { attemptCount: this.#current().attemptCount }, 'error')
    throw this.#attemptsExhausted()
  }

  #expiredError(point: string): TimeoutError {
    const { deadlineAtMs, nextStepIndex } = this.#current()
    return new TimeoutError(
      `Task "${this.#taskId}" passed its deadline (${deadlineAtMs}) and is expired (${point}); no further step runs. Start a new task to try again.`,
      { details: { taskId: this.#taskId, deadlineAtMs, nextStepIndex, status: 'expired' } },
    )
  }

  #attemptsExhausted(): BudgetExhaustedError {
    const { attemptCount, maxAttempts, nextStepIndex } = this.#current()
    return new BudgetExhaustedError(
      `Task "${this.#taskId}" used all ${maxAttempts} attempts and is failed; no further step runs. Start a new task to try again.`,
      {
        details: {
          taskId: this.#taskId,
          attemptCount,
          maxAttempts,
          limit: maxAttempts,
          nextStepIndex,
          status: 'failed',
        },
      },
    )
  }

  #current(): CheckpointV2<State> {
    if (this.#checkpoint === undefined)
      throw new InvalidStateError(`Task "${this.#taskId}" has no checkpoint loaded.`, {
        details: { taskId: this.#taskId },
      })
    return this.#checkpoint
  }

  #step(index: number): DurableStep<State, App> {
    const step = this.#definition.steps[index]
    if (step === undefined) {
      throw new InvalidStateError(`Task "${this.#taskId}" has no step at index ${index}.`, {
        details: { taskId: this.#taskId, reason: 'bad-index' },
      })
    }
    return step
  }
}
