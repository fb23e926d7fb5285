import {
  abortedError,
  BudgetExhaustedError,
  ConflictError,
  consumeRejection,
  createOperationContext,
  type DiagnosticSpan,
  type Diagnostics,
  describeValue,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  refuseField,
  TimeoutError,
  UnknownIdError,
} from '@agent-core/core'
import { parseCheckpointEnvelope } from '../checkpoint.js'
import type {
  DurableInspectRequest,
  DurableRunRequest,
  DurableStep,
  DurableTaskDefinition,
  DurableTaskOptions,
} from '../durable-task.js'
import type { CheckpointV2, DurableExclusiveOptions } from '../store.js'
import { type CheckedLease, checkedClock, checkLease, holderData } from './port-checks.js'
import { sameJson } from './same-json.js'
import { authorizeCheckpoint, checkState, reserve } from './state-checks.js'
import { runStep, type StepRun } from './step-run.js'
import { type LinkedSignal, linkedSignal } from './step-signal.js'
import { StoreAccess } from './store-access.js'
import { type ParsedRequest, parseRequest } from './validation.js'

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
  return mode === 'inspect' ? runner.inspect() : runner.run()
}

/**
 * One run of one task. Diagnostics: a `task` span around the whole run (scope `[..., 'durable', taskId]`),
 * inside it an `attempt` span per executed attempt and a `step` span per step; every span ends exactly once.
 */
export class Runner<State, App> implements StepRun<State, App> {
  readonly definition: DurableTaskDefinition<State, App>
  readonly context: OperationContext<App>
  readonly now: () => number
  readonly #request: ParsedRequest<State>
  readonly #access: StoreAccess
  readonly #durable: Diagnostics
  #taskSpan: DiagnosticSpan | undefined
  #waitSpan: DiagnosticSpan | undefined
  #lease: CheckedLease | undefined
  #signal: LinkedSignal | undefined
  /** Set once the operation ran; the store must not settle `exclusive` before that. */
  #entered = false
  /** Set once `exclusive` settled: any later write would happen outside the lease. */
  #released = false
  #checkpoint: CheckpointV2<State> | undefined
  #version: number | undefined
  #maxModelCalls: number | undefined

  constructor(
    definition: DurableTaskDefinition<State, App>,
    request: ParsedRequest<State>,
    context: OperationContext<App>,
    now: () => number,
  ) {
    this.definition = definition
    this.context = context
    this.now = now
    this.#request = request
    this.#access = new StoreAccess(request.store, request.taskId)
    this.#durable = context.diagnostics.child('durable').child(request.taskId)
  }

  get taskId(): string {
    return this.#request.taskId
  }

  get maxModelCalls(): number | undefined {
    return this.#maxModelCalls
  }

  /** The run's signal, joined with the lease's once the lease is held. */
  get signal(): AbortSignal {
    return this.#signal?.signal ?? this.context.signal
  }

  /** The checkpoint as last loaded or saved. */
  current(): CheckpointV2<State> {
    if (this.#checkpoint === undefined)
      throw new InvalidStateError(`Task "${this.taskId}" has no checkpoint loaded.`, {
        details: { taskId: this.taskId, reason: 'no-checkpoint' },
      })
    return this.#checkpoint
  }

  /**
   * Throws when the run must stop at `point`: `AbortedError` when the run's signal aborted, `ConflictError`
   * (`reason: 'lease-lost'`) when the store reported the lease lost or settled `exclusive` early.
   */
  checkSignal(point: string): void {
    const { signal } = this.context
    if (signal.aborted) throw abortedError(signal, `${point}, task "${this.taskId}"`)
    const lease = this.#lease?.signal
    if (lease?.aborted || this.#released) throw this.#leaseLost(point, lease?.reason)
  }

  deadlinePassed(): boolean {
    const deadline = this.#checkpoint?.deadlineAtMs
    return deadline !== null && deadline !== undefined && this.now() >= deadline
  }

  async inspect(): Promise<CheckpointV2<State> | undefined> {
    this.checkSignal('before reading')
    const stored = await this.#access.read(this.context.signal, `reading task "${this.taskId}"`)
    if (stored === undefined) return undefined
    const checkpoint = this.#validateStored(stored.checkpoint)
    await this.#authorize(checkpoint, this.#durable)
    return checkpoint
  }

  async run(): Promise<State> {
    const span = this.#durable.span('task', {
      definitionId: this.definition.id,
      revision: this.definition.revision,
      fenced: this.#access.fenced,
    })
    this.#taskSpan = span
    try {
      this.checkSignal('entering exclusive')
      const store = this.#request.store
      const options: DurableExclusiveOptions = store.reportsLeaseWaits
        ? { signal: this.context.signal, onWait: (wait) => this.#onWait(wait) }
        : { signal: this.context.signal }
      let outcome: { readonly value: State } | undefined
      try {
        await store.exclusive(
          this.taskId,
          (lease) => {
            const entering = this.#enter(lease).then((value) => {
              outcome = { value }
              return value
            })
            // A store that does not await the operation must not turn its failure into an unhandled rejection.
            consumeRejection(entering)
            return entering
          },
          options,
        )
      } finally {
        this.#released = true
      }
      if (outcome === undefined) throw this.#exclusiveMisbehaved()
      span.end('ok', this.#summary())
      return outcome.value
    } catch (error) {
      this.#waitSpan?.fail(error)
      span.fail(error, this.#summary())
      throw error
    }
  }

  /** The operation run under the lease. */
  async #enter(lease: unknown): Promise<State> {
    if (this.#entered) throw this.#exclusiveMisbehaved()
    this.#entered = true
    this.#lease = checkLease(lease, this.taskId)
    this.#signal = linkedSignal([this.context.signal, this.#lease.signal], undefined, '')
    const takenOver = this.#lease.takenOver
    const taskDiagnostics = this.#taskDiagnostics()
    this.#waitSpan?.end('ok', takenOver ? { takenOver: takenOver.reason } : {})
    if (takenOver !== undefined) {
      taskDiagnostics.emit(
        'lease-taken-over',
        { reason: takenOver.reason, ownerId: this.#lease.ownerId, ...holderData(takenOver.previous) },
        'warn',
      )
    }
    try {
      return await this.#execute(taskDiagnostics)
    } finally {
      this.#signal.dispose()
    }
  }

  #onWait(wait: unknown): void {
    if (this.#entered) return
    const holder = holderData((wait as { holder?: unknown } | null)?.holder)
    if (this.#waitSpan === undefined) this.#waitSpan = this.#taskDiagnostics().span('lease-wait', holder)
    else this.#waitSpan.diagnostics.emit('lease-holder-changed', holder)
  }

  async #execute(diagnostics: Diagnostics): Promise<State> {
    this.checkSignal('entering exclusive')
    const stored = await this.#access.read(this.context.signal, `reading task "${this.taskId}"`)
    this.checkSignal('after reading')
    if (stored === undefined) return this.#start(diagnostics)
    this.#checkpoint = this.#validateStored(stored.checkpoint)
    this.#version = stored.version
    this.checkSignal('after validating state')
    const checkpoint = this.#checkpoint
    // A completed task is authorized by #finish; every other status before anything is revealed or written.
    if (checkpoint.status === 'completed') return this.#finish(diagnostics)
    await this.#authorize(checkpoint, diagnostics)
    if (checkpoint.status === 'failed') throw this.#attemptsExhausted()
    if (checkpoint.status === 'expired') throw this.expiredError('after reading')
    if (this.deadlinePassed()) return this.expire('after validating state', diagnostics)
    if (checkpoint.attemptCount >= checkpoint.maxAttempts) return this.#fail(diagnostics)
    const step = this.#step(checkpoint.nextStepIndex)
    const resumeMode = step.replayPolicy === 'reconcile' ? 'reconcile' : 'run'
    if (resumeMode === 'reconcile' && typeof step.reconcile !== 'function') {
      throw new InvalidStateError(
        `Task "${this.taskId}" resumes at step "${step.id}", whose replayPolicy is 'reconcile', but the step has no reconcile. Nothing was written. Add reconcile to that step and keep revision "${this.definition.revision}" (a checkpoint is only resumed by the revision that wrote it, so a new revision cannot resume this task), or settle the task by hand.`,
        {
          details: {
            taskId: this.taskId,
            stepId: step.id,
            revision: this.definition.revision,
            reason: 'reconcile-missing',
          },
        },
      )
    }
    // authorize may have taken a while: the deadline is checked again right before the attempt is saved.
    if (this.deadlinePassed()) return this.expire('before saving the attempt', diagnostics)
    const reservation = reserve(checkpoint.modelBudget)
    this.#maxModelCalls = reservation?.granted
    await this.commit(
      {
        ...checkpoint,
        attemptCount: checkpoint.attemptCount + 1,
        status: 'running',
        ...(reservation ? { modelBudget: reservation.budget } : {}),
      },
      'attempt',
      diagnostics,
    )
    return this.#attempt(diagnostics, resumeMode, true)
  }

  async #start(diagnostics: Diagnostics): Promise<State> {
    const request = this.#request
    const taskId = this.taskId
    if (!request.hasInput) {
      throw new UnknownIdError(
        `Task "${taskId}" has no checkpoint in the store. Pass { input } to start it, or check the task id and store.`,
        { details: { taskId, id: taskId } },
      )
    }
    const state = checkState(this.definition, taskId, request.input, 'input')
    this.checkSignal('after validating state')
    const now = this.now()
    const deadlineAtMs =
      request.deadlineAtMs ?? (request.timeoutMs === undefined ? null : now + request.timeoutMs)
    if (deadlineAtMs !== null && !Number.isSafeInteger(deadlineAtMs)) {
      refuseField(
        'input',
        'request.timeoutMs',
        `${request.timeoutMs} puts its deadline past the largest safe epoch millisecond. Nothing was written; pass a smaller timeoutMs`,
        request.timeoutMs,
        { prefix: `Task "${taskId}" was not started: `, details: { taskId } },
      )
    }
    if (deadlineAtMs !== null && now >= deadlineAtMs) {
      throw new TimeoutError(
        `Task "${taskId}" was not started: its deadline ${deadlineAtMs} has already passed. Nothing was written.`,
        { details: { taskId, deadlineAtMs, timeoutMs: request.timeoutMs } },
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
      definitionId: this.definition.id,
      revision: this.definition.revision,
      nextStepIndex: 0,
      attemptCount: 1,
      maxAttempts: request.maxAttempts,
      deadlineAtMs,
      status: 'running',
      state,
      ...(reservation ? { modelBudget: reservation.budget } : {}),
    }
    await this.#authorize(checkpoint, diagnostics)
    this.checkSignal('after authorizing')
    if (deadlineAtMs !== null && this.now() >= deadlineAtMs) {
      throw new TimeoutError(
        `Task "${taskId}" was not started: its deadline ${deadlineAtMs} passed before it was saved. Nothing was written.`,
        { details: { taskId, deadlineAtMs, timeoutMs: request.timeoutMs } },
      )
    }
    await this.commit(checkpoint, 'create', diagnostics)
    diagnostics.emit('task-created', { attempt: 1, maxAttempts: request.maxAttempts, deadlineAtMs })
    return this.#attempt(diagnostics, 'run', false)
  }

  /** Runs the remaining steps as one attempt, inside an `attempt` span. */
  async #attempt(diagnostics: Diagnostics, firstMode: 'run' | 'reconcile', resumed: boolean): Promise<State> {
    const started = this.current()
    const span = diagnostics.span('attempt', {
      attempt: started.attemptCount,
      maxAttempts: started.maxAttempts,
      nextStepIndex: started.nextStepIndex,
      resuming: resumed,
      maxModelCalls: this.#maxModelCalls,
    })
    try {
      let mode = firstMode
      let resuming = resumed
      for (let checkpoint = started; checkpoint.status === 'running'; checkpoint = this.current()) {
        const index = checkpoint.nextStepIndex
        const step = this.#step(index)
        // The deadline may have passed during the save before this step: no step starts after it.
        if (this.deadlinePassed()) return await this.expire(`before step "${step.id}"`, span.diagnostics)
        await runStep(this, step, index, mode, resuming, span.diagnostics)
        mode = 'run'
        resuming = false
      }
      span.end('ok', this.#summary())
      return await this.#finish(diagnostics)
    } catch (error) {
      span.fail(error, this.#summary())
      throw error
    }
  }

  /**
   * What follows a step that threw: cancellation, a lost lease and the deadline take precedence over the
   * step's own error; a failure on the last allowed attempt marks the task failed.
   */
  async stepFailed(error: unknown, step: DurableStep<State, App>, diagnostics: Diagnostics): Promise<never> {
    this.checkSignal(`during step "${step.id}"`)
    if (this.deadlinePassed()) return this.expire(`during step "${step.id}"`, diagnostics)
    const checkpoint = this.current()
    if (checkpoint.attemptCount >= checkpoint.maxAttempts) {
      await this.commit({ ...checkpoint, status: 'failed' }, 'failed', diagnostics)
    }
    throw error
  }

  #validateStored(raw: unknown): CheckpointV2<State> {
    const envelope = parseCheckpointEnvelope(raw, {
      taskId: this.taskId,
      definitionId: this.definition.id,
      revision: this.definition.revision,
      stepCount: this.definition.steps.length,
    })
    return { ...envelope, state: checkState(this.definition, this.taskId, envelope.state, 'stored') }
  }

  #authorize(checkpoint: CheckpointV2<State>, diagnostics: Diagnostics): Promise<void> {
    return authorizeCheckpoint(this.definition, this.taskId, checkpoint, { ...this.context, diagnostics })
  }

  /**
   * Saves `next` inside the lease: a compare-and-set on the version this run holds when the store fences,
   * the contract's save otherwise. A failure whose write did commit is recognised by reading back.
   */
  async commit(next: CheckpointV2<State>, what: string, diagnostics: Diagnostics): Promise<void> {
    this.checkSignal(`before save (${what})`)
    const expectedVersion = this.#version
    let version: number | undefined
    try {
      version = await this.#access.write(next, expectedVersion)
    } catch (error) {
      if (ConflictError.isInstance(error)) {
        throw new ConflictError(
          `Task "${this.taskId}" was changed by another owner while this run held it (its lease lapsed); this run stops without overwriting the newer checkpoint. Run the task again to continue from the stored checkpoint.`,
          { cause: error, details: { taskId: this.taskId, expectedVersion, save: what } },
        )
      }
      version = await this.#confirmSave(next, expectedVersion, error, diagnostics)
    }
    this.#version = version
    this.#checkpoint = next
    if (diagnostics.enabled) {
      diagnostics.emit('checkpoint-saved', {
        save: what,
        nextStepIndex: next.nextStepIndex,
        status: next.status,
        version,
      })
    }
    this.checkSignal(`after save (${what}, committed)`)
  }

  async #confirmSave(
    next: CheckpointV2<State>,
    expectedVersion: number | undefined,
    failure: unknown,
    diagnostics: Diagnostics,
  ): Promise<number | undefined> {
    let stored: Awaited<ReturnType<StoreAccess['read']>>
    try {
      stored = await this.#access.read()
    } catch {
      throw failure
    }
    const moved = !this.#access.fenced || stored?.version !== expectedVersion
    if (stored === undefined || !moved || !sameJson(stored.checkpoint, next)) throw failure
    diagnostics.emit('save-confirmed', { version: stored.version, error: describeValue(failure) }, 'warn')
    return stored.version
  }

  async #finish(diagnostics: Diagnostics): Promise<State> {
    await this.#authorize(this.current(), diagnostics)
    return structuredClone(this.current().state)
  }

  async expire(point: string, diagnostics: Diagnostics): Promise<never> {
    await this.commit({ ...this.current(), status: 'expired' }, 'expired', diagnostics)
    throw this.expiredError(point)
  }

  async #fail(diagnostics: Diagnostics): Promise<never> {
    await this.commit({ ...this.current(), status: 'failed' }, 'failed', diagnostics)
    throw this.#attemptsExhausted()
  }

  expiredError(point: string): TimeoutError {
    const { deadlineAtMs, nextStepIndex } = this.current()
    return new TimeoutError(
      `Task "${this.taskId}" passed its deadline (${deadlineAtMs}) and is expired (${point}); no further step runs. Start a new task to try again.`,
      { details: { taskId: this.taskId, deadlineAtMs, nextStepIndex, status: 'expired' } },
    )
  }

  #attemptsExhausted(): BudgetExhaustedError {
    const { attemptCount, maxAttempts, nextStepIndex } = this.current()
    return new BudgetExhaustedError(
      `Task "${this.taskId}" used all ${maxAttempts} attempts and is failed; no further step runs. Start a new task to try again.`,
      {
        details: {
          taskId: this.taskId,
          attemptCount,
          maxAttempts,
          limit: maxAttempts,
          nextStepIndex,
          status: 'failed',
        },
      },
    )
  }

  #leaseLost(point: string, cause: unknown): ConflictError {
    const why = this.#released
      ? "the store's exclusive settled before the run finished"
      : 'the store reported that it lost the lease'
    return new ConflictError(
      `Task "${this.taskId}" stopped ${point}: ${why}, so another owner may run the task now. Nothing more was written by this run; run the task again to continue from the stored checkpoint.`,
      { cause, details: { taskId: this.taskId, reason: 'lease-lost', point } },
    )
  }

  #exclusiveMisbehaved(): InvalidStateError {
    return new InvalidStateError(
      `The store's exclusive for task "${this.taskId}" settled without running the operation exactly once. Fix the DurableStore implementation: exclusive must run the operation once and settle with its outcome.`,
      { details: { taskId: this.taskId, reason: 'bad-exclusive' } },
    )
  }

  /** The diagnostics inside the task span (scope `[..., 'durable', taskId, 'task']`). */
  #taskDiagnostics(): Diagnostics {
    return (this.#taskSpan as DiagnosticSpan).diagnostics
  }

  #summary(): Record<string, unknown> {
    const checkpoint = this.#checkpoint
    return checkpoint === undefined
      ? {}
      : {
          status: checkpoint.status,
          nextStepIndex: checkpoint.nextStepIndex,
          attemptCount: checkpoint.attemptCount,
        }
  }

  #step(index: number): DurableStep<State, App> {
    const step = this.definition.steps[index]
    if (step === undefined) {
      throw new InvalidStateError(`Task "${this.taskId}" has no step at index ${index}.`, {
        details: { taskId: this.taskId, reason: 'bad-index' },
      })
    }
    return step
  }
}
