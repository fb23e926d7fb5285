import {
  type Diagnostics,
  InvalidStateError,
  isThenable,
  type OperationContext,
  TimeoutError,
} from '@agent-core/core'
import type { DurableStep, DurableStepContext, DurableTaskDefinition } from '../durable-task.js'
import type { CheckpointV2 } from '../store.js'
import { checkProgressState, checkStepOutput } from './state-checks.js'
import { linkedSignal } from './step-signal.js'

/** What a step needs from the run that executes it (the runner implements it). */
export interface StepRun<State, App> {
  readonly definition: DurableTaskDefinition<State, App>
  readonly context: OperationContext<App>
  readonly now: () => number
  readonly taskId: string
  readonly maxModelCalls: number | undefined
  /** The run's signal joined with the lease's: what every step's signal starts from. */
  readonly signal: AbortSignal
  current(): CheckpointV2<State>
  checkSignal(point: string): void
  deadlinePassed(): boolean
  commit(next: CheckpointV2<State>, what: string, diagnostics: Diagnostics): Promise<void>
  expire(point: string, diagnostics: Diagnostics): Promise<never>
  stepFailed(error: unknown, step: DurableStep<State, App>, diagnostics: Diagnostics): Promise<never>
}

/**
 * Executes the step at `index` inside a `step` span and saves its result: the handler (`run`, or
 * `reconcile` in mode `reconcile`) with its context and progress saves, then the checks on its result,
 * then the save that moves the task to the next step.
 */
export async function runStep<State, App>(
  run: StepRun<State, App>,
  step: DurableStep<State, App>,
  index: number,
  mode: 'run' | 'reconcile',
  resuming: boolean,
  diagnostics: Diagnostics,
): Promise<void> {
  const entry = run.current()
  const span = diagnostics.span(
    'step',
    diagnostics.enabled ? { stepId: step.id, index, mode, resuming, attempt: entry.attemptCount } : NO_DATA,
  )
  const progress = new ProgressSaves(run, step, span.diagnostics)
  try {
    const next = await executeHandler(run, step, index, mode, resuming, span.diagnostics, progress)
    run.checkSignal(`after step "${step.id}"`)
    if (run.deadlinePassed()) return await run.expire(`after step "${step.id}"`, span.diagnostics)
    run.checkSignal('before save')
    if (run.deadlinePassed()) return await run.expire('before save', span.diagnostics)
    const last = index + 1 === run.definition.steps.length
    await run.commit(
      { ...run.current(), nextStepIndex: index + 1, status: last ? 'completed' : 'running', state: next },
      `step "${step.id}"`,
      span.diagnostics,
    )
    if (diagnostics.enabled) span.end('ok', { nextStepIndex: index + 1, progressSaves: progress.count })
    else span.end('ok')
  } catch (error) {
    span.fail(error, { progressSaves: progress.count })
    throw error
  }
}

const NO_DATA: Readonly<Record<string, unknown>> = Object.freeze({})

function executeHandler<State, App>(
  run: StepRun<State, App>,
  step: DurableStep<State, App>,
  index: number,
  mode: 'run' | 'reconcile',
  resuming: boolean,
  diagnostics: Diagnostics,
  progress: ProgressSaves<State, App>,
): Promise<State> {
  const entry = run.current()
  const deadline = entry.deadlineAtMs
  // The run's signal already includes the lease's; only a deadline gives the step a signal of its own.
  const signal =
    deadline === null
      ? undefined
      : linkedSignal([run.signal], deadline - run.now(), `durable task "${run.taskId}"`)
  const context: DurableStepContext<App, State> = {
    ...run.context,
    diagnostics: diagnostics.child(step.id),
    signal: signal?.signal ?? run.signal,
    now: run.now,
    taskId: run.taskId,
    stepId: step.id,
    stepIndex: index,
    attempt: entry.attemptCount,
    mode,
    resuming,
    maxModelCalls: run.maxModelCalls,
    deadlineAtMs: deadline,
    checkpoint: (state: State) => progress.save(state),
  }
  const handled = handle(run, step, mode, context, progress, diagnostics)
  return signal === undefined ? handled : handled.finally(() => signal.dispose())
}

async function handle<State, App>(
  run: StepRun<State, App>,
  step: DurableStep<State, App>,
  mode: 'run' | 'reconcile',
  context: DurableStepContext<App, State>,
  progress: ProgressSaves<State, App>,
  diagnostics: Diagnostics,
): Promise<State> {
  try {
    const input = structuredClone(run.current().state)
    let output: unknown
    try {
      const returned = mode === 'reconcile' ? step.reconcile?.(input, context) : step.run(input, context)
      output = isThenable(returned) ? await returned : returned
    } finally {
      // Progress saves the handler started and did not await still land before anything else is written.
      const pending = progress.close()
      if (pending !== undefined) await pending
    }
    return checkStepOutput(run.definition, run.taskId, output, step)
  } catch (error) {
    return await run.stepFailed(error, step, diagnostics)
  }
}

/**
 * The `context.checkpoint(state)` of one step execution: each call is checked like a step result (clone,
 * `isState`, cancellation, lease, deadline) and saved under the same lease and fencing, in call order.
 * Calls after the handler settled are refused.
 */
class ProgressSaves<State, App> {
  count = 0
  readonly #run: StepRun<State, App>
  readonly #step: DurableStep<State, App>
  readonly #diagnostics: Diagnostics
  #closed = false
  #pending = 0
  #tail: Promise<void> = Promise.resolve()

  constructor(run: StepRun<State, App>, step: DurableStep<State, App>, diagnostics: Diagnostics) {
    this.#run = run
    this.#step = step
    this.#diagnostics = diagnostics
  }

  save(state: unknown): Promise<void> {
    if (this.#closed) {
      return Promise.reject(
        new InvalidStateError(
          `Step "${this.#step.id}" of task "${this.#run.taskId}" called context.checkpoint after it returned or threw. Nothing was saved; save progress only while the step runs, and await each save.`,
          { details: { taskId: this.#run.taskId, stepId: this.#step.id, reason: 'step-finished' } },
        ),
      )
    }
    this.#pending += 1
    const saving = this.#tail.then(() => this.#saveNow(state))
    this.#tail = saving.then(
      () => void (this.#pending -= 1),
      () => void (this.#pending -= 1),
    )
    return saving
  }

  /** Refuses later calls; returns the wait for the saves still in flight, if any. */
  close(): Promise<void> | undefined {
    this.#closed = true
    return this.#pending === 0 ? undefined : this.#tail
  }

  async #saveNow(state: unknown): Promise<void> {
    const run = this.#run
    const stepId = this.#step.id
    const next = checkProgressState(run.definition, run.taskId, state, stepId)
    run.checkSignal(`before saving the progress of step "${stepId}"`)
    if (run.deadlinePassed()) {
      const { deadlineAtMs } = run.current()
      throw new TimeoutError(
        `Task "${run.taskId}" passed its deadline (${deadlineAtMs}) while step "${stepId}" ran; its progress was not saved and the task expires when the step ends.`,
        { details: { taskId: run.taskId, stepId, deadlineAtMs } },
      )
    }
    await run.commit({ ...run.current(), state: next }, `progress of step "${stepId}"`, this.#diagnostics)
    this.count += 1
  }
}
