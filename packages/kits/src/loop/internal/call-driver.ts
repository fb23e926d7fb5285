import {
  AbortedError,
  InvalidStateError,
  type OperationContext,
  raceSignal,
  TimeoutError,
  type ToolMessage,
} from '@agent-core/core'
import { type PendingToolCall, signToolCall, type ToolDecision } from '@agent-core/kits/tools'
import type { AgentEvent, ToolAbortCause } from '../events.js'
import type { AgentPendingCall, WaitingFor } from '../run-state.js'
import {
  advance,
  type CallFacts,
  type CallInput,
  type CallState,
  kitPending,
  LOOP_WAITS,
  type SettledOutcome,
} from './call-state.js'
import { questionText } from './engine-host.js'
import type { Journal } from './journal.js'
import { checkAnswer, checkEdit, readResolution } from './resume-checks.js'
import type { CompiledAgent, ParsedRun } from './run.js'
import type { Slots } from './slots.js'
import type { ProgressRegistry, ToolProgressChannel } from './tool-progress.js'

/** What a tool step uses of its run. */
export interface StepHost {
  readonly agent: CompiledAgent
  readonly request: ParsedRun
  readonly journal: Journal
  readonly slots: Slots
  /** The run's signal (aborts when the run stops). */
  readonly signal: AbortSignal
  /** False without an `onEvent` listener: hot paths then build no event objects. */
  readonly listening: boolean
  emit(event: AgentEvent): void
  /** The run's tool progress (internal/tool-progress.ts): reports as events until each call settles. */
  readonly progress: ToolProgressChannel
  /** The agent's registry, each call given its progress reporter. */
  readonly registry: ProgressRegistry
}

/** The calls of one step (the tool calls of one reply) and what happened among them. */
export class Step {
  /** A person refused a call of this step: the calls still waiting are refused too. */
  personRefused = false
  /** A call could not be carried on (no resolver, no handler): the run ends with this error. */
  fatal: unknown
  #controller: AbortController | undefined
  constructor(
    readonly turn: number,
    readonly run: AbortSignal,
    /** The tools the turn offered, or undefined for all of the run's. */
    readonly offered: ReadonlySet<string> | undefined,
  ) {}

  /** Aborts when the run stops or a person refuses a call of the step: resolvers waiting for this step stop waiting. Made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
      if (this.run.aborted) controller.abort(this.run.reason)
      else this.run.addEventListener('abort', () => controller.abort(this.run.reason), { once: true })
    }
    return this.#controller.signal
  }

  refuse(): void {
    this.personRefused = true
    this.#controller?.abort(new AbortedError('Another call of the same step was refused.'))
  }
}

/**
 * Moves one call through its states ({@link advance}) with the effects each state needs: the run's answer
 * for a waiting call, lifecycle passes, signatures, saves, and the call's end (history item and event).
 */
export class CallDriver {
  readonly #host: StepHost
  readonly facts: CallFacts

  constructor(host: StepHost) {
    this.#host = host
    const { tools } = host.agent
    this.facts = {
      kindOf: (toolId) => tools.get(toolId)?.kind ?? 'local',
      questionOf: (toolId, input) => {
        const tool = tools.get(toolId)
        return tool === undefined
          ? undefined
          : { question: questionText(tool, input), answerSchema: tool.answerSchema }
      },
      pendingOf: (record) => this.pendingCall(record, LOOP_WAITS[record.waitingFor]),
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // A call carried on from the run's state (resumed, or waiting again)

  /** Moves a call through its states until it is settled or kept: the only driver of a resumed call. */
  async carry(from: CallState, step: Step, ctx: OperationContext<unknown>): Promise<void> {
    const { journal, registry } = { journal: this.#host.journal, registry: this.#host.registry }
    let state = from
    for (;;) {
      switch (state.kind) {
        case 'settled':
          return this.settle(state, step)
        case 'kept':
          journal.track(state.pending.toolCallId, state)
          return
        case 'waiting': {
          const input: CallInput =
            state.outcome !== undefined
              ? { type: 'outcome', outcome: state.outcome }
              : await this.ask(state.pending, step, ctx)
          const next = advance(state, input, this.facts)
          this.approved(input, state.pending)
          if (next.kind === 'running') {
            journal.track(next.pending.toolCallId, next)
            await journal.save()
          } else if (next.kind === 'waiting') {
            // Approved; the host's result or an answer comes next. An edit is signed over the new input.
            const pending =
              next.pending.input === state.pending.input ? next.pending : await this.sign(next.pending)
            state = { ...next, pending }
            journal.track(pending.toolCallId, state)
            this.emitWaiting(pending, 'question')
            await journal.save()
            continue
          } else if (next.kind !== 'settled') journal.track(next.pending.toolCallId, next)
          state = next
          continue
        }
        case 'running': {
          if (state === from) await journal.save()
          const { pending, approval } = state
          const outcome = await this.#host.slots.run(() =>
            registry.resume(kitPending(pending), unsigned(approval), ctx),
          )
          const next = advance(state, { type: 'passed', outcome }, this.facts)
          if (next.kind === 'waiting') {
            // The tool asked for a person again while it ran (a code tool reaching another host call that
            // needs one): saved at once, so a restart does not re-enter it with the approval just used.
            state = { ...next, pending: await this.sign(next.pending) }
            journal.track(state.pending.toolCallId, state)
            await journal.save()
            this.emitWaiting(state.pending)
            continue
          }
          state = next
          continue
        }
        case 'completing':
        case 'refusing': {
          const current = state
          const outcome = await this.#host.slots.run(() =>
            current.kind === 'completing'
              ? registry.resume(kitPending(current.pending), unsigned(current.approval), ctx, {
                  result: current.result,
                })
              : registry.resume(kitPending(current.pending), current.rejection, ctx),
          )
          state = advance(current, { type: 'passed', outcome }, this.facts)
          continue
        }
      }
    }
  }

  /**
   * How the run answers a waiting call: a resolver's outcome (checked), an earlier refusal, deferral, a
   * stop, or nobody (the run then ends with an error, set on the step).
   */
  async ask(pending: AgentPendingCall, step: Step, ctx: OperationContext<unknown>): Promise<CallInput> {
    const { agent, request, signal } = this.#host
    if (signal.aborted) return { type: 'stop' }
    if (step.personRefused && agent.stopStepOnRefusal) return { type: 'earlier-refusal' }
    const resolver =
      pending.waitingFor === 'approval'
        ? request.resolveApproval
        : pending.waitingFor === 'question'
          ? request.answerQuestion
          : undefined
    if (resolver !== undefined) {
      const hook = pending.waitingFor === 'approval' ? 'request.resolveApproval' : 'request.answerQuestion'
      let answered: unknown
      try {
        answered = await raceSignal(
          Promise.resolve().then(() => resolver(pending, { ...ctx, signal: step.signal })),
          step.signal,
          `waiting for ${hook} about tool call "${pending.toolCallId}"`,
        )
      } catch (error) {
        if (signal.aborted) return { type: 'stop' }
        if (step.signal.aborted && step.personRefused) return { type: 'earlier-refusal' }
        throw error
      }
      if (step.personRefused && agent.stopStepOnRefusal) return { type: 'earlier-refusal' }
      const outcome = readResolution(answered, pending, hook)
      if (outcome.type === 'answer') checkAnswer(agent, pending, outcome.value, hook)
      if (outcome.type === 'approve' && outcome.input !== undefined)
        checkEdit(agent, pending, outcome.input, hook)
      return { type: 'outcome', outcome }
    }
    if (request.defer) return { type: 'defer' }
    step.fatal ??= cannotGoOn(pending)
    return { type: 'nobody', cause: pending.waitingFor === 'external' ? 'no-handler' : 'no-resolver' }
  }

  /** Reports an approval the run applies. */
  approved(input: CallInput, pending: AgentPendingCall): void {
    if (input.type !== 'outcome' || input.outcome.type !== 'approve') return
    this.#host.emit({
      type: 'tool-approved',
      toolCallId: pending.toolCallId,
      toolId: pending.toolId,
      by: input.outcome.by,
    })
  }

  /** Reports that a call waits for a person (`only`: one kind of wait only). */
  emitWaiting(pending: AgentPendingCall, only?: WaitingFor): void {
    if (only !== undefined && pending.waitingFor !== only) return
    if (pending.waitingFor === 'approval') {
      this.#host.emit({
        type: 'tool-awaiting-approval',
        toolCallId: pending.toolCallId,
        toolId: pending.toolId,
        input: pending.input,
        reason: pending.reason,
      })
    } else if (pending.waitingFor === 'question') {
      this.#host.emit({
        type: 'tool-awaiting-answer',
        toolCallId: pending.toolCallId,
        toolId: pending.toolId,
        question: pending.question!,
      })
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // The end of a call

  /** A settled call: its message becomes the history item, and its event is made from that item. */
  async settle(state: Extract<CallState, { kind: 'settled' }>, step: Step): Promise<void> {
    const { outcome, cause } = state
    const { journal, listening } = this.#host
    // Later progress reports of the call are dropped; those it kept go before its result.
    const item = this.#host.progress.settle(outcome.toolCallId, outcome.message)
    if (outcome.status === 'rejected' && cause === undefined) {
      this.#host.emit(rejectedEvent(item, outcome))
      if (outcome.rejection.by === 'person') {
        if (this.#host.agent.stopStepOnRefusal) step.refuse()
        else step.personRefused = true
      }
    } else if (listening) {
      this.#host.emit(settledEvent(item, outcome, cause, this.#host.signal.aborted))
    }
    journal.track(item.toolCallId, state)
    const reported = journal.append(item)
    if (reported) await reported
    const saved = journal.save()
    if (saved) await saved
  }

  // ---------------------------------------------------------------------------------------------------
  // Pending calls

  /** Signs a pending call for the run's state when the agent has decision keys (once, when it is kept). */
  async sign(pending: AgentPendingCall): Promise<AgentPendingCall> {
    const keys = this.#host.agent.keys
    if (keys === undefined) return pending
    const signature = await signToolCall(
      {
        runId: this.#host.request.runId,
        toolCallId: pending.toolCallId,
        invocationId: pending.invocationId,
        toolId: pending.toolId,
        input: pending.input,
      },
      keys[0]!,
    )
    return { ...pending, signature }
  }

  /** The loop's pending call for the tools kit's pending record (unsigned). */
  pendingCall(record: PendingToolCall, waitingFor: WaitingFor): AgentPendingCall {
    const tool = this.#host.agent.tools.get(record.toolId)
    return {
      toolCallId: record.toolCallId,
      invocationId: record.invocationId,
      toolId: record.toolId,
      input: record.input,
      runId: this.#host.request.runId,
      waitingFor,
      reason: record.reason,
      ...(waitingFor === 'question' && tool?.answerSchema !== undefined
        ? { question: record.question ?? record.reason, answerSchema: tool.answerSchema }
        : {}),
    }
  }
}

/** The error a run ends with when a call waits and nobody in the run can carry it on. */
function cannotGoOn(pending: AgentPendingCall): InvalidStateError {
  const external = pending.waitingFor === 'external'
  const needs = external
    ? `tool "${pending.toolId}" is run by the host, but this run cannot wait for its result. Run with defer: true and resume with the result`
    : pending.waitingFor === 'question'
      ? `tool call "${pending.toolCallId}" asks a person a question, but the run has neither answerQuestion nor defer: true. Give one of them`
      : `tool call "${pending.toolCallId}" (${pending.toolId}) needs a person's approval, but the run has neither resolveApproval nor defer: true. Give one of them`
  return new InvalidStateError(`The run cannot go on: ${needs}.`, {
    details: { field: external ? 'request.defer' : 'request.resolveApproval', received: 'undefined' },
  })
}

/**
 * A decision the loop makes itself, for the agent's own registry: never signed (the registry has no
 * decision keys; outcomes from outside are verified once, by `checkResume`).
 */
function unsigned<D extends ToolDecision>(decision: D): D {
  if (decision.signature === undefined) return decision
  const { signature: _drop, ...rest } = decision
  return rest as D
}

/** The event of a refusal, made from the history item it produced. */
function rejectedEvent(
  item: ToolMessage,
  outcome: Extract<SettledOutcome, { status: 'rejected' }>,
): AgentEvent {
  const { rejection } = outcome
  return {
    type: 'tool-rejected',
    toolCallId: item.toolCallId,
    toolId: outcome.toolId,
    reason: rejection.reason,
    by: rejection.by,
    ...(rejection.instruction === undefined ? {} : { instruction: rejection.instruction }),
  }
}

/** The event of a settled call (not a refusal by a person or a policy), made from its history item. */
function settledEvent(
  item: ToolMessage,
  outcome: SettledOutcome,
  cause: ToolAbortCause | undefined,
  stopped: boolean,
): AgentEvent {
  const base = { toolCallId: item.toolCallId, toolId: outcome.toolId, content: item.content }
  switch (outcome.status) {
    case 'completed':
      return { type: 'tool-resolved', ...base, output: outcome.record.output, record: outcome.record }
    case 'rejected':
      return { type: 'tool-aborted', ...base, cause, record: outcome.record }
    case 'failed': {
      const { error, record } = outcome
      if (TimeoutError.isInstance(error)) return { type: 'tool-aborted', ...base, cause: 'timeout', record }
      if (AbortedError.isInstance(error))
        return { type: 'tool-aborted', ...base, cause: stopped ? 'stopped' : undefined, record }
      return { type: 'tool-failed', ...base, error: record.error, record }
    }
  }
}
