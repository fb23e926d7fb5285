import {
  addUsage,
  assertNotThenable,
  type ChatMessage,
  type ChatModel,
  childContext,
  createId,
  type DiagnosticSpan,
  type Diagnostics,
  describeValue,
  type ModelRequest,
  type ModelUsage,
  type OperationContext,
  refuseField,
  type ToolCall,
  type ToolChoice,
  type ToolSpec,
  ZERO_USAGE,
} from '@agent-core/core'
import type { DecisionKey, JsonValue, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import type { AgentTool } from '../agent-tool.js'
import type { AnswerFlow } from '../answer-flow.js'
import type { PlacedCustomInput } from '../custom-inputs.js'
import type { AgentEvent } from '../events.js'
import type { CompiledGuardrail, GuardrailTrip } from '../guardrails.js'
import type { AgentCallOutcome, AgentPendingCall, AgentRunState, StopReason } from '../run-state.js'
import type { TransformInput } from './custom-inputs.js'
import { CustomInputs, RUN_TOOL_STATE, readControl } from './engine-host.js'
import { GuardrailRun } from './guardrails-run.js'
import { Journal } from './journal.js'
import { CallDeadline, callModel, type ModelReply, type ReplySink } from './model-call.js'
import { openCalls } from './resume-checks.js'
import { RunToolState } from './run-tool-state.js'
import { Slots } from './slots.js'
import { signState } from './state-signature.js'
import { ToolProgressChannel } from './tool-progress.js'
import { ToolSteps } from './tool-step.js'
import { readTurnControl, uniqueCalls } from './turn-control.js'

/** The agent as a run needs it: everything checked and compiled once by `defineAgent`. */
export interface CompiledAgent {
  readonly model: ChatModel<unknown>
  /** The tools lifecycle (a run with its own tool policy gets a view that adds it to every call). */
  readonly registry: Pick<ToolLifecycleRegistry<unknown>, 'run' | 'resume'>
  readonly tools: ReadonlyMap<string, AgentTool>
  readonly toolSpecs: readonly ToolSpec[]
  readonly toolTokens: number
  readonly system: string | undefined
  readonly request: Omit<ModelRequest, 'messages' | 'tools' | 'toolChoice' | 'responseFormat'>
  readonly maxTurns: number
  readonly maxTokens: number | undefined
  readonly toolConcurrency: number
  readonly modelTimeoutMs: number
  readonly modelIdleTimeoutMs: number | undefined
  readonly answer: AnswerFlow<unknown, unknown>
  readonly beforeTurn: BeforeTurn | undefined
  /** Converts custom inputs into messages (a run's own hook wins). */
  readonly transformInput: TransformInput | undefined
  readonly estimate: (messages: readonly ChatMessage[]) => number
  readonly keys: readonly DecisionKey[] | undefined
  readonly stopStepOnRefusal: boolean
  /** Whether a tool keeps state: runs then carry a {@link RunToolState} in their context. */
  readonly keepsToolState: boolean
  /** Input and output guardrails (`guardrails.ts`); undefined when the agent has none. */
  readonly guardrails?: {
    readonly input: readonly CompiledGuardrail[]
    readonly output: readonly CompiledGuardrail[]
    /** Whether tools run with guardrails (a stop from one is seen in the registry's outcomes). */
    readonly tool: boolean
  }
}

/** The `beforeTurn` hook with the object it is called on. */
export interface BeforeTurn {
  readonly hook: (input: unknown, context: OperationContext<unknown>) => unknown
  readonly holder: unknown
}

/** A person's or a resolver's answer about a call, before it becomes a lifecycle decision. */
type Resolver = (call: AgentPendingCall, context: OperationContext<unknown>) => unknown

/** A run request after its checks. */
export interface ParsedRun {
  readonly runId: string
  readonly messages: ChatMessage[]
  /** Messages the run itself adds before the first model call (the prompt), reported like the others. */
  readonly added: readonly ChatMessage[]
  readonly resumed: AgentRunState | undefined
  readonly outcomes: ReadonlyMap<string, AgentCallOutcome>
  readonly toolChoice: ToolChoice | { readonly name: string; readonly input: JsonValue } | undefined
  /** The tools of this run (`request.tools`); all of the agent's when absent. */
  readonly tools: ReadonlySet<string> | undefined
  readonly defer: boolean
  readonly resolveApproval: Resolver | undefined
  readonly answerQuestion: Resolver | undefined
  readonly onEvent: ((event: AgentEvent) => unknown) | undefined
  readonly onHistoryAppend: ((message: ChatMessage) => unknown) | undefined
  readonly onProgress: ((state: AgentRunState) => unknown) | undefined
  /** The custom inputs of the history (the shared empty list when none), kept as data in the state. */
  readonly customInputs: readonly PlacedCustomInput[]
  /** The hook that converts them: the run's, else the agent's (required when there are inputs). */
  readonly transformInput: TransformInput | undefined
}

/**
 * What happens after a turn (or after the run's first step): every step of the run returns one, and the
 * turn loop reads nothing else.
 */
export type NextStep =
  /** Call the model again (tool results or an answer retry were added to the history). */
  | { readonly kind: 'next-model-call' }
  /** The AnswerFlow accepted the model's answer. */
  | { readonly kind: 'final'; readonly answer: unknown }
  /** Calls wait for people or the host: the run returns its state to resume from. */
  | { readonly kind: 'suspended' }
  /** The run's signal stopped it. */
  | { readonly kind: 'stopped' }
  /** A cap stopped it before the next model call. */
  | { readonly kind: 'limit'; readonly limit: 'turn-limit' | 'token-limit' }
  /** It cannot go on (the AnswerFlow failed the answer, a call nobody can carry on). */
  | { readonly kind: 'error'; readonly error: unknown }
  /** A guardrail tripped. */
  | { readonly kind: 'guardrail'; readonly trip: GuardrailTrip }

/** How a run ended (before the result is assembled). */
export type RunEnd =
  | { readonly reason: 'final'; readonly answer: unknown }
  | { readonly reason: 'suspended' }
  | { readonly reason: 'turn-limit' | 'token-limit' | 'stopped' }
  | { readonly reason: 'error'; readonly error: unknown }
  | { readonly reason: 'guardrail'; readonly trip: GuardrailTrip }

/** What the run hands back to `Agent.run`. */
export interface RunOutcome {
  readonly end: RunEnd
  readonly state: AgentRunState
  readonly text: string
  readonly partialText: string | undefined
  readonly messages: readonly ChatMessage[]
  readonly usage: ModelUsage
  readonly turns: number
  readonly pending: readonly AgentPendingCall[]
}

/** A fresh `<prefix>_<32 hex>` id: core's one generator, under the name the loop's modules use. */
const newId = createId

const NOOP = (): undefined => undefined
const NEXT_MODEL_CALL: NextStep = Object.freeze({ kind: 'next-model-call' })

/** What the loop uses of a span; with diagnostics off, a stand-in that costs nothing and keeps the scope. */
type OpenSpan = Pick<DiagnosticSpan, 'diagnostics' | 'end' | 'fail'>

function silentSpan(diagnostics: Diagnostics): OpenSpan {
  return { diagnostics, end: NOOP, fail: NOOP }
}

function endOf(next: Exclude<NextStep, { kind: 'next-model-call' }>): RunEnd {
  switch (next.kind) {
    case 'final':
      return { reason: 'final', answer: next.answer }
    case 'limit':
      return { reason: next.limit }
    case 'error':
      return { reason: 'error', error: next.error }
    case 'guardrail':
      return { reason: 'guardrail', trip: next.trip }
    default:
      return { reason: next.kind }
  }
}

/** One run of an agent: its lifecycle (start, end, events) and its turns; tool steps are `ToolSteps`'. */
export class AgentRun {
  readonly #agent: CompiledAgent
  readonly #request: ParsedRun
  readonly #context: OperationContext<unknown>
  readonly #controller = new AbortController()
  readonly #journal: Journal
  readonly #steps: ToolSteps
  #partialText: string | undefined
  /** False without an `onEvent` listener: hot paths then build no event objects. */
  readonly #listening: boolean
  /** The model call in progress: its turn and the text streamed so far. */
  #replyTurn = 0
  #replyText = ''
  readonly #sink: ReplySink = {
    text: (text) => {
      this.#replyText += text
      if (this.#listening) this.#emit({ type: 'text-delta', turn: this.#replyTurn, text })
    },
    thinking: (text) => {
      if (this.#listening) this.#emit({ type: 'thinking-delta', turn: this.#replyTurn, text })
    },
  }
  /** Model calls in flight (at most one): stopped with the run. */
  readonly #calls = new Set<CallDeadline>()
  readonly #callDone = (deadline: CallDeadline): void => {
    this.#calls.delete(deadline)
  }
  /** The tools offered by the model call in progress (the run's, narrowed by `beforeTurn`). */
  #turnTools: ReadonlySet<string> | undefined
  /** The `toolChoice` of the first model call, used once. */
  #firstChoice: ToolChoice | undefined
  /** The run's guardrails; undefined when the agent has none. */
  readonly #guards: GuardrailRun | undefined
  /** The run's custom inputs and their hook; undefined when it has none (no work per turn). */
  readonly #custom: CustomInputs | undefined

  constructor(agent: CompiledAgent, request: ParsedRun, context: OperationContext<unknown>) {
    this.#agent = agent
    this.#request = request
    this.#context = childContext(context, 'loop')
    this.#listening = request.onEvent !== undefined
    this.#turnTools = request.tools
    this.#journal = new Journal(request, request.messages, request.resumed, request.outcomes)
    this.#custom =
      request.customInputs.length > 0 && request.transformInput !== undefined
        ? new CustomInputs(request.customInputs, request.transformInput)
        : undefined
    const guardrails = agent.guardrails
    this.#guards =
      guardrails &&
      new GuardrailRun(
        request.resumed ? [] : guardrails.input,
        guardrails.output,
        (event) => this.#emit(event),
        (reason) => {
          for (const call of this.#calls) call.stop(reason)
        },
        guardrails.tool,
      )
    const progress = new ToolProgressChannel((event) => this.#emit(event))
    const registry = progress.registry(agent.registry)
    this.#steps = new ToolSteps({
      agent,
      progress,
      registry: this.#guards?.tool ? this.#guards.registry(registry) : registry,
      request,
      journal: this.#journal,
      slots: new Slots(agent.toolConcurrency),
      signal: this.#controller.signal,
      listening: this.#listening,
      emit: (event) => this.#emit(event),
    })
  }

  get #signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Runs to the end. Never rejects for what happens in the run; a listener that throws at the end does. */
  async execute(): Promise<RunOutcome> {
    const journal = this.#journal
    const outer = this.#context.signal
    const stop = () => this.#controller.abort(outer.reason)
    if (outer.aborted) stop()
    else outer.addEventListener('abort', stop, { once: true })
    this.#signal.addEventListener(
      'abort',
      () => {
        for (const call of this.#calls) call.stop(this.#signal.reason)
      },
      { once: true },
    )
    const span = this.#context.diagnostics.span('run', {
      runId: this.#request.runId,
      resumed: this.#request.resumed !== undefined,
      model: this.#agent.model.identity,
    })
    const ctx: OperationContext<unknown> = {
      ...this.#context,
      signal: this.#signal,
      diagnostics: span.diagnostics,
      // The tools that keep state read and leave it through the run's context (the journal's records).
      ...(this.#agent.keepsToolState ? { [RUN_TOOL_STATE]: new RunToolState(journal.toolState) } : {}),
    }
    let end: RunEnd
    try {
      this.#emit({
        type: 'run-start',
        runId: this.#request.runId,
        resumed: this.#request.resumed !== undefined,
        turns: journal.turns,
      })
      let next = await this.#start(ctx)
      while (next.kind === 'next-model-call' && this.#guards?.stop === undefined) next = await this.#turn(ctx)
      // Parallel input guardrails still running (the run ended before its first reply) finish first; a tool
      // guardrail that stops the run ends it after its step, whatever the step said.
      const guarded = this.#guards && (await this.#guards.gate())
      end = endOf(
        guarded && next.kind !== 'stopped'
          ? guarded
          : (next as Exclude<NextStep, { kind: 'next-model-call' }>),
      )
    } catch (error) {
      const guarded = this.#guards && (await this.#guards.gate())
      end = this.#signal.aborted
        ? { reason: 'stopped' }
        : guarded
          ? endOf(guarded)
          : { reason: 'error', error }
    } finally {
      outer.removeEventListener('abort', stop)
    }
    if (end.reason === 'stopped') {
      try {
        await this.#steps.abandon(ctx, journal.turns)
      } catch (error) {
        end = { reason: 'error', error }
      }
    }
    const outcome = await this.#outcome(end)
    const data = { reason: end.reason, turns: journal.turns, ...journal.usage }
    if (end.reason === 'error') span.fail(end.error, data)
    else span.end(end.reason === 'stopped' ? 'aborted' : 'ok', data)
    if (end.reason === 'stopped') this.#emit({ type: 'run-aborted', reason: this.#context.signal.reason })
    if (end.reason === 'suspended') {
      this.#emit({
        type: 'run-suspended',
        pending: outcome.pending,
        state: outcome.state,
        usage: journal.usage,
      })
    } else {
      this.#emit({
        type: 'run-done',
        reason: end.reason,
        usage: journal.usage,
        turns: journal.turns,
        text: journal.text,
        ...(end.reason === 'error' ? { error: end.error } : {}),
      })
    }
    return outcome
  }

  /** How the run ended; a suspended state is signed here (with the agent's keys), whatever entry ran it. */
  async #outcome(end: RunEnd): Promise<RunOutcome> {
    const journal = this.#journal
    const state =
      end.reason === 'suspended'
        ? // Each suspension gets its own id (the key a resume claims, so this state is resumed once), then
          // the signature over the whole state, id included.
          await signState(
            Object.freeze({ ...journal.snapshot('suspended'), suspensionId: newId('suspension') }),
            this.#agent.keys,
          )
        : journal.snapshot('done', end)
    return {
      end,
      state,
      text: journal.text,
      partialText: this.#partialText,
      messages: Object.freeze([...journal.messages]),
      usage: journal.usage,
      turns: journal.turns,
      pending: state.pending,
    }
  }

  #emit(event: AgentEvent): void {
    const listener = this.#request.onEvent
    if (listener === undefined) return
    assertNotThenable(listener(event), 'request.onEvent')
  }

  /**
   * The run's first step, before its first model call: the prompt is added; then a forced call
   * (`toolChoice: { name, input }`) runs, the open calls of a resumed history are carried on, or an answer
   * saved before its AnswerFlow decided is decided.
   */
  async #start(ctx: OperationContext<unknown>): Promise<NextStep> {
    const journal = this.#journal
    for (const message of this.#request.added) await journal.append(message)
    // Input guardrails check what the first model call reads: custom inputs converted in their places.
    const guarded = await this.#guards?.startInput(
      ctx,
      this.#custom && this.#guards
        ? this.#custom.history(journal.messages, journal.turns + 1)
        : journal.messages,
    )
    if (guarded) return guarded
    const choice = this.#request.toolChoice
    if (choice !== undefined && typeof choice === 'object' && 'input' in choice) {
      const gated = await this.#guards?.gate()
      if (gated) return gated
      const call: ToolCall = { id: newId('call'), name: choice.name, arguments: JSON.stringify(choice.input) }
      await journal.append(
        Object.freeze({ role: 'assistant', content: '', toolCalls: Object.freeze([call]) }),
      )
      await journal.save()
      return this.#steps.run(ctx, 0, [call], 'fresh', this.#turnTools)
    }
    this.#firstChoice = choice as ToolChoice | undefined
    const open = openCalls(journal.messages)
    if (open.length > 0) return this.#steps.run(ctx, journal.turns, open, 'resumed', this.#turnTools)
    const last = journal.messages.at(-1)
    if (this.#request.resumed && last?.role === 'assistant') {
      // Progress saved after the model's answer and before the AnswerFlow decided: decide now, without
      // calling the model again.
      return this.#decide({ message: last, finishReason: 'stop', usage: ZERO_USAGE }, journal.turns, ctx)
    }
    return NEXT_MODEL_CALL
  }

  /** One turn: the caps, one model call, then its tool step or the AnswerFlow's decision. */
  async #turn(ctx: OperationContext<unknown>): Promise<NextStep> {
    const journal = this.#journal
    if (this.#signal.aborted) return { kind: 'stopped' }
    const { maxTurns, maxTokens } = this.#agent
    if (journal.turns >= maxTurns) {
      this.#emit({ type: 'turn-limit-exceeded', scope: 'global', limit: maxTurns })
      return { kind: 'limit', limit: 'turn-limit' }
    }
    if (maxTokens !== undefined && journal.usage.totalTokens >= maxTokens) {
      this.#emit({ type: 'token-limit-exceeded', limit: maxTokens, used: journal.usage.totalTokens })
      return { kind: 'limit', limit: 'token-limit' }
    }
    const turn = journal.turns + 1
    const traced = ctx.diagnostics.enabled
    const span = traced ? ctx.diagnostics.span('turn', { turn }) : silentSpan(ctx.diagnostics)
    const turnCtx: OperationContext<unknown> = traced ? { ...ctx, diagnostics: span.diagnostics } : ctx
    try {
      const request = await this.#buildRequest(turn, turnCtx)
      if (maxTokens !== undefined) {
        const estimate = this.#estimate(request.messages) + this.#agent.toolTokens
        if (journal.usage.totalTokens + estimate > maxTokens) {
          this.#emit({
            type: 'token-limit-exceeded',
            limit: maxTokens,
            used: journal.usage.totalTokens,
            estimate,
          })
          span.end('ok', { stopped: 'token-limit' })
          return { kind: 'limit', limit: 'token-limit' }
        }
      }
      journal.turns = turn
      if (this.#listening) this.#emit({ type: 'turn-start', turn })
      const reply = await this.#callModel(request, turn, turnCtx)
      journal.usage = addUsage(journal.usage, reply.usage)
      // Parallel input guardrails gate the first reply: nothing of it is kept or run before they pass.
      const gated = this.#guards && (await this.#guards.gate())
      if (gated) {
        span.end('ok', { end: endOf(gated).reason })
        return gated
      }
      const made = reply.message.toolCalls ?? []
      const calls = uniqueCalls(made, turn)
      const message =
        calls === made ? reply.message : Object.freeze({ ...reply.message, toolCalls: Object.freeze(calls) })
      if (this.#listening && message.content !== '')
        this.#emit({ type: 'text-flush', turn, text: message.content })
      const reported = journal.append(message)
      if (reported) await reported
      const saved = journal.save()
      if (saved) await saved
      const next =
        calls.length > 0
          ? await this.#steps.run(turnCtx, turn, calls, 'fresh', this.#turnTools)
          : await this.#decide(reply, turn, turnCtx)
      if (traced) {
        span.end('ok', {
          toolCalls: calls.length,
          ...(next.kind === 'next-model-call' ? {} : { end: endOf(next).reason }),
        })
      }
      return next
    } catch (error) {
      span.fail(error)
      throw error
    }
  }

  #estimate(messages: readonly ChatMessage[]): number {
    const tokens: unknown = this.#agent.estimate(messages)
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      refuseField(
        'output',
        'estimateTokens',
        `must return a finite number of tokens, but returned ${describeValue(tokens)}`,
        tokens,
        { details: { hook: 'estimateTokens' } },
      )
    }
    return tokens
  }

  /** The turn's model request: the history (or what `beforeTurn` made of it), the turn's tools and choice. */
  async #buildRequest(turn: number, ctx: OperationContext<unknown>): Promise<ModelRequest> {
    const journal = this.#journal
    const { system, request, toolSpecs, answer, beforeTurn } = this.#agent
    const runTools = this.#request.tools
    let offered = runTools
    let choice = this.#firstChoice
    this.#firstChoice = undefined
    const history = this.#custom ? this.#custom.history(journal.messages, turn) : journal.messages
    let messages: readonly ChatMessage[] =
      system === undefined ? [...history] : [{ role: 'system', content: system }, ...history]
    if (beforeTurn) {
      const input = Object.freeze({
        turn,
        messages: Object.freeze(messages),
        usage: journal.usage,
        history: Object.freeze([...journal.messages]),
      })
      const answered: unknown = await Reflect.apply(beforeTurn.hook, beforeTurn.holder, [input, ctx])
      if (answered !== undefined) {
        const turnControl = readTurnControl(answered, runTools)
        if (turnControl.messages !== undefined) messages = turnControl.messages
        if (turnControl.tools !== undefined) offered = turnControl.tools
        if (turnControl.toolChoice !== undefined) choice = turnControl.toolChoice
      }
    }
    this.#turnTools = offered
    // Copied, then stored: not `{ ...request, messages }` (V8 makes a new hidden class for each property
    // added after a spread, on every turn).
    const built: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = Object.assign(
      {},
      request,
    ) as ModelRequest
    built.messages = messages
    const specs = offered === undefined ? toolSpecs : toolSpecs.filter((spec) => offered.has(spec.name))
    if (specs.length > 0) built.tools = specs
    if (choice !== undefined) built.toolChoice = choice
    if (answer.responseFormat !== undefined) built.responseFormat = answer.responseFormat
    return built
  }

  async #callModel(request: ModelRequest, turn: number, ctx: OperationContext<unknown>): Promise<ModelReply> {
    const { model } = this.#agent
    const what = `model "${model.identity}" (turn ${turn})`
    const ticket = ctx.attemptBudget?.take({ signal: this.#signal, label: what })
    const traced = ctx.diagnostics.enabled
    const span = traced
      ? ctx.diagnostics.span('model-call', {
          model: model.identity,
          turn,
          ...(ticket ? { attempt: ticket.attempt, limit: ticket.limit } : {}),
        })
      : silentSpan(ctx.diagnostics)
    this.#replyTurn = turn
    this.#replyText = ''
    try {
      const deadline = new CallDeadline(this.#agent.modelTimeoutMs, what, this.#callDone)
      this.#calls.add(deadline)
      if (this.#signal.aborted) deadline.stop(this.#signal.reason)
      const reply = await callModel(
        model,
        request,
        traced ? { ...ctx, diagnostics: span.diagnostics } : ctx,
        deadline,
        this.#agent.modelIdleTimeoutMs,
        this.#sink,
        what,
      )
      if (traced) span.end('ok', { finishReason: reply.finishReason, ...reply.usage })
      return reply
    } catch (error) {
      if (this.#replyText !== '') this.#partialText = this.#replyText
      span.fail(error)
      throw error
    }
  }

  /** The AnswerFlow's decision about a final answer. */
  async #decide(reply: ModelReply, turn: number, ctx: OperationContext<unknown>): Promise<NextStep> {
    const journal = this.#journal
    const input = Object.freeze({
      text: reply.message.content,
      message: reply.message,
      finishReason: reply.finishReason,
      turn,
      retries: Object.freeze([...journal.answerRetries]),
      messages: Object.freeze([...journal.messages]),
    })
    const control = readControl<unknown>(await this.#agent.answer.decide(input, ctx), 'answer.decide')
    switch (control.type) {
      case 'accept': {
        const guarded =
          this.#guards?.hasOutput &&
          (await this.#guards.checkOutput(ctx, control.value, reply.message.content, journal.messages))
        return guarded || { kind: 'final', answer: control.value }
      }
      case 'fail':
        return { kind: 'error', error: control.error }
      case 'retry': {
        journal.answerRetries.push({ text: reply.message.content, feedback: control.feedback })
        this.#emit({ type: 'answer-retried', turn, feedback: control.feedback })
        await journal.append(Object.freeze({ role: 'user', content: control.feedback }))
        await journal.save()
        return NEXT_MODEL_CALL
      }
    }
  }
}

export type { StopReason }
