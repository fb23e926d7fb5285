import type { OperationContext, ToolCall } from '@agent-core/core'
import { createInvocationId } from '@agent-core/core/tools'
import type {
  ApproveDecision,
  JsonValue,
  PendingToolCall,
  ToolCallOutcome,
  ToolResume,
  ToolRunOptions,
} from '@agent-core/kits/tools'
import type { ToolAbortCause } from '../events.js'
import { CallDriver, Step, type StepHost } from './call-driver.js'
import { advance, approvalOf, type CallState, kitPending, LOOP_WAITS, REFUSAL_TEXT } from './call-state.js'
import { parseArguments } from './engine-host.js'
import type { NextStep } from './run.js'

/** What one fresh call learns while its pass runs (kept on the call, never in a module). */
interface CallFlow {
  /** The approval given in this process, once there is one. */
  approval: ApproveDecision | undefined
  /** Why the run refused the call itself (no resolver, no handler). */
  cause: ToolAbortCause | undefined
  /** An error of a resolver or its answer: the run ends with it once the pass is over. */
  error: unknown
}

const NO_CAPS: ReadonlyMap<string, number> = new Map()

/** Waits for every task; then rethrows the first failure, if any. */
async function settleAll(tasks: readonly Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(tasks)
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected')
  if (failure) throw failure.reason
}

/**
 * The tool step of a run: the calls of one reply (or the open calls of a resumed history) through the
 * lifecycle, in parallel up to the concurrency limit, each moved by its {@link CallState}.
 */
export class ToolSteps {
  readonly #host: StepHost
  readonly #calls: CallDriver

  constructor(host: StepHost) {
    this.#host = host
    this.#calls = new CallDriver(host)
  }

  /** Runs one step and says what the run does next. */
  async run(
    ctx: OperationContext<unknown>,
    turn: number,
    calls: readonly ToolCall[],
    mode: 'fresh' | 'resumed',
    offered: ReadonlySet<string> | undefined,
  ): Promise<NextStep> {
    const { journal } = this.#host
    const step = new Step(turn, this.#host.signal, offered)
    const capped = mode === 'fresh' ? this.#countToolTurns(calls) : NO_CAPS
    if (mode === 'fresh' && calls.length === 1) {
      await this.#fresh(calls[0]!, step, ctx, capped)
      return this.#next(step)
    }
    // On a resume, the calls with an outcome (and those re-entered) go first, so that a person's refusal
    // among them reaches the calls left undecided and those that never started.
    const first: (() => Promise<void>)[] = []
    const later: (() => Promise<void>)[] = []
    for (const call of calls) {
      const state = mode === 'fresh' ? undefined : journal.call(call.id)
      if (mode === 'fresh') first.push(() => this.#fresh(call, step, ctx, capped))
      else if (state === undefined) later.push(() => this.#fresh(call, step, ctx, capped))
      else if (state.kind === 'running' || (state.kind === 'waiting' && state.outcome !== undefined)) {
        first.push(() => this.#calls.carry(state, step, ctx))
      } else later.push(() => this.#calls.carry(state, step, ctx))
    }
    await settleAll(first.map((task) => task()))
    await settleAll(later.map((task) => task()))
    return this.#next(step)
  }

  /** How the run goes on after a step: stopped, failed, suspended, or another model call. */
  #next(step: Step): NextStep {
    if (this.#host.signal.aborted) return { kind: 'stopped' }
    if (step.fatal !== undefined) return { kind: 'error', error: step.fatal }
    if (this.#host.journal.waits()) return { kind: 'suspended' }
    return { kind: 'next-model-call' }
  }

  /** Counts this turn's calls against the per-tool caps; returns the capped tools and their limits. */
  #countToolTurns(calls: readonly ToolCall[]): ReadonlyMap<string, number> {
    const { agent, journal } = this.#host
    let capped: Map<string, number> | undefined
    for (let index = 0; index < calls.length; index++) {
      const name = calls[index]!.name
      const tool = agent.tools.get(name)
      if (tool === undefined) continue
      let repeat = false
      for (let before = 0; before < index; before++) if (calls[before]!.name === name) repeat = true
      if (repeat) continue
      const used = journal.toolTurns[name] ?? 0
      if (tool.maxTurns !== undefined && used >= tool.maxTurns) {
        capped ??= new Map()
        capped.set(name, tool.maxTurns)
        this.#host.emit({ type: 'turn-limit-exceeded', scope: 'tool', limit: tool.maxTurns, toolId: name })
      } else {
        journal.toolTurns[name] = used + 1
      }
    }
    return capped ?? NO_CAPS
  }

  // ---------------------------------------------------------------------------------------------------
  // A fresh call: one lifecycle pass

  /**
   * A fresh call: one lifecycle pass. Its arguments are parsed here, once; a wait it reaches is decided
   * in this process inside that pass (`decide`, through {@link advance}), and a call that is not
   * replay-safe is saved before it runs by the pass's save-before-run stage.
   */
  async #fresh(
    call: ToolCall,
    step: Step,
    ctx: OperationContext<unknown>,
    capped: ReadonlyMap<string, number>,
  ): Promise<void> {
    const parsed = parseArguments(call.arguments)
    if (this.#host.listening) {
      this.#host.emit({
        type: 'tool-start',
        turn: step.turn,
        toolCallId: call.id,
        toolId: call.name,
        input: parsed?.value,
        arguments: call.arguments,
      })
    }
    const limit = capped.size === 0 ? undefined : capped.get(call.name)
    const flow: CallFlow = { approval: undefined, cause: undefined, error: undefined }
    const outcome = await this.#host.slots.run(() => this.#pass(call, parsed, step, ctx, limit, flow))
    if (flow.error !== undefined) throw flow.error
    if (outcome.status === 'pending') return this.#keep(outcome.record, flow)
    return this.#calls.settle({ kind: 'settled', outcome, cause: flow.cause }, step)
  }

  /** The pass of a fresh call, or its refusal when the turn's tools, a cap or an earlier refusal stop it. */
  #pass(
    call: ToolCall,
    parsed: { readonly value: JsonValue } | undefined,
    step: Step,
    ctx: OperationContext<unknown>,
    limit: number | undefined,
    flow: CallFlow,
  ): Promise<ToolCallOutcome> {
    const { agent, request: run } = this.#host
    const offered = step.offered
    if (offered !== undefined && !offered.has(call.name) && agent.tools.has(call.name)) {
      return this.#refuseUnstarted(call, parsed?.value ?? null, ctx, {
        reason: `${call.name} is not one of the tools of this turn; use the tools you were given.`,
        by: 'policy',
      })
    }
    if (parsed !== undefined && (limit !== undefined || (step.personRefused && agent.stopStepOnRefusal))) {
      return this.#refuseUnstarted(
        call,
        parsed.value,
        ctx,
        limit !== undefined
          ? {
              reason: `${call.name} may be called in at most ${limit} turn${limit === 1 ? '' : 's'} of a run; answer without it.`,
              by: 'policy',
            }
          : { reason: REFUSAL_TEXT['earlier-refusal'], by: 'earlier-refusal' },
      )
    }
    // Arguments that are not JSON go to the lifecycle as text, which fails them in `protocol`.
    const request =
      parsed !== undefined
        ? { toolCallId: call.id, toolId: call.name, input: parsed.value, runId: run.runId }
        : { toolCallId: call.id, toolId: call.name, arguments: call.arguments, runId: run.runId }
    // Closures stored, not object-literal properties: a build that keeps function names (tsup and tsx
    // `keepNames`) names those again on every call.
    const options: { -readonly [K in keyof ToolRunOptions]: ToolRunOptions[K] } = {}
    options.decide = (record) => this.#decideInPass(record, step, ctx, flow)
    if (run.onProgress !== undefined)
      options.saveBeforeRun = (record: PendingToolCall) => this.#saveBeforeRun(record, flow)
    return this.#host.registry.run(request, ctx, options)
  }

  /** The save-before-run stage: a call of a tool that is not replay-safe, or an approved call, is saved as running. */
  async #saveBeforeRun(record: PendingToolCall, flow: CallFlow): Promise<void> {
    const approval = flow.approval
    if (approval === undefined && this.#host.agent.tools.get(record.toolId)?.replayPolicy !== 'keyed') return
    const pending = await this.#calls.sign({
      ...this.#calls.pendingCall(record, 'running'),
      ...(approval === undefined ? {} : { approval }),
    })
    this.#host.journal.track(pending.toolCallId, { kind: 'running', pending, approval: approvalOf(pending) })
    await this.#host.journal.save()
  }

  /**
   * `decide` of a fresh call's pass: the call waits (reported), the run answers it (`CallDriver.ask`), and the
   * state {@link advance} moves it to becomes the pass's resume, or nothing (kept: the call stays pending).
   */
  async #decideInPass(
    record: PendingToolCall,
    step: Step,
    ctx: OperationContext<unknown>,
    flow: CallFlow,
  ): Promise<ToolResume | undefined> {
    const { journal, slots } = this.#host
    const state: CallState = {
      kind: 'waiting',
      pending: {
        ...this.#calls.pendingCall(record, LOOP_WAITS[record.waitingFor]),
        ...(flow.approval === undefined ? {} : { approval: flow.approval }),
      },
      outcome: undefined,
    }
    journal.track(record.toolCallId, state)
    this.#calls.emitWaiting(state.pending)
    // The call waits outside the concurrency limit: other calls of the step run meanwhile.
    slots.release()
    try {
      // Approved, it waits again (the host's result, an answer, or a code tool's next host call): saved.
      if (flow.approval !== undefined) await journal.save()
      const input = await this.#calls.ask(state.pending, step, ctx)
      const next = advance(state, input, this.#calls.facts)
      this.#calls.approved(input, state.pending)
      switch (next.kind) {
        case 'kept':
          return undefined
        case 'refusing':
          flow.cause = next.cause
          return { decision: next.rejection }
        case 'completing':
          return { decision: flow.approval ?? next.approval, result: next.result }
        case 'running':
          flow.approval = withoutInput(next.approval as ApproveDecision)
          return { decision: next.approval }
        case 'waiting': {
          // Approved, and the host's result or an answer comes next: the pass reaches that wait itself.
          const approval = next.pending.approval!
          flow.approval = approval
          const edited = next.pending.input !== state.pending.input
          return { decision: edited ? { ...approval, input: next.pending.input } : approval }
        }
        default:
          return undefined
      }
    } catch (error) {
      flow.error = error
      return undefined
    } finally {
      await slots.acquire()
    }
  }

  /** A fresh call left pending (deferred, or the run stopped): kept, signed, for the run's state. */
  async #keep(record: PendingToolCall, flow: CallFlow): Promise<void> {
    const known = this.#host.journal.call(record.toolCallId)
    const pending = await this.#calls.sign(
      known?.kind === 'waiting' || known?.kind === 'running'
        ? known.pending
        : {
            ...this.#calls.pendingCall(record, LOOP_WAITS[record.waitingFor]),
            ...(flow.approval === undefined ? {} : { approval: flow.approval }),
          },
    )
    this.#host.journal.track(record.toolCallId, { kind: 'kept', pending })
  }

  /** Refuses a call that never started, through the lifecycle (inspect, decision, templates, finalize). */
  #refuseUnstarted(
    call: ToolCall,
    input: JsonValue,
    ctx: OperationContext<unknown>,
    rejection: { readonly reason: string; readonly by: 'policy' | 'earlier-refusal' },
  ): Promise<ToolCallOutcome> {
    const pending: PendingToolCall = {
      status: 'pending',
      toolCallId: call.id,
      invocationId: createInvocationId(),
      toolId: call.name,
      input,
      runId: this.#host.request.runId,
      waitingFor: 'approval',
      reason: rejection.reason,
    }
    return this.#host.registry.resume(pending, { type: 'reject', toolCallId: call.id, ...rejection }, ctx)
  }

  /** Settles the calls still waiting when the run is stopped, so the history answers every call. */
  async abandon(ctx: OperationContext<unknown>, turn: number): Promise<void> {
    const waiting = this.#host.journal.calls()
    if (waiting.length === 0) return
    const step = new Step(turn, this.#host.signal, undefined)
    const stopped: OperationContext<unknown> = { ...ctx, signal: this.#host.signal }
    for (const state of waiting) {
      const refusing = advance(state, { type: 'abandon' }, this.#calls.facts)
      if (refusing.kind !== 'refusing') continue
      const outcome = await this.#host.registry.resume(
        kitPending(refusing.pending),
        refusing.rejection,
        stopped,
      )
      const settled = advance(refusing, { type: 'passed', outcome }, this.#calls.facts)
      if (settled.kind === 'settled') await this.#calls.settle(settled, step)
    }
  }
}

function withoutInput(approval: ApproveDecision): ApproveDecision {
  if (approval.input === undefined) return approval
  const { input: _input, ...rest } = approval
  return rest
}
