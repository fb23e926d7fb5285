import {
  AbortedError,
  addUsage,
  assertNotThenable,
  type ChatMessage,
  type ChatModel,
  ConflictError,
  childContext,
  consumeRejection,
  type DiagnosticSpan,
  type Diagnostics,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  type ModelRequest,
  type ModelUsage,
  type OperationContext,
  raceSignal,
  type SchemaIssue,
  TimeoutError,
  type ToolCall,
  type ToolChoice,
  type ToolSpec,
  UnauthorizedError,
  ZERO_USAGE,
} from '@agent-core/core'
import { createInvocationId, type ModelTool, modelToolSchemas } from '@agent-core/core/tools'
import {
  type ApproveDecision,
  type DecisionKey,
  type JsonValue,
  type PendingToolCall,
  signToolCall,
  type ToolCallOutcome,
  type ToolDecision,
  type ToolHostResult,
  type ToolLifecycleRegistry,
  type ToolResume,
  type ToolRunOptions,
  type ToolWaitKind,
  verifyToolCallSignature,
} from '@agent-core/kits/tools'
import { type AgentTool, answerValidatorOf, ExternalToolError, questionText } from '../agent-tool.js'
import type { AnswerFlow } from '../answer-flow.js'
import { readControl } from '../answer-flow.js'
import type { AgentEvent, ToolAbortCause } from '../events.js'
import type {
  AgentCallOutcome,
  AgentPendingCall,
  AgentRunState,
  AnswerRetry,
  StopReason,
  WaitingFor,
} from '../run-state.js'
import { isRecord } from './check.js'
import { canonicalJson, jsonProblem, parseArguments } from './json.js'
import { readMessages } from './messages.js'
import { CallDeadline, callModel, type ModelReply, type ReplySink } from './model-call.js'
import { Slots } from './slots.js'
import { verifyState } from './state-signature.js'
import { readToolIds } from './tool-ids.js'

/** The agent as a run needs it: everything checked and compiled once by `defineAgent`. */
export interface CompiledAgent {
  readonly model: ChatModel<unknown>
  readonly registry: ToolLifecycleRegistry<unknown>
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
  readonly estimate: (messages: readonly ChatMessage[]) => number
  readonly keys: readonly DecisionKey[] | undefined
  readonly stopStepOnRefusal: boolean
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
}

/** How a run ended (before the result is assembled). */
export type RunEnd =
  | { readonly reason: 'final'; readonly answer: unknown }
  | { readonly reason: 'suspended' }
  | { readonly reason: 'turn-limit' | 'token-limit' | 'stopped' }
  | { readonly reason: 'error'; readonly error: unknown }

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

/** The calls of one step (the tool calls of one reply) and what happened among them. */
class Step {
  /** A person refused a call of this step: the calls still waiting are refused too. */
  personRefused = false
  /** A call could not be carried on (no resolver, no handler): the run ends with this error. */
  fatal: unknown
  #controller: AbortController | undefined
  constructor(
    readonly turn: number,
    readonly run: AbortSignal,
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

const REFUSAL_TEXT = {
  person: 'The person reviewing this call rejected it.',
  policy: 'The approval policy refused this call.',
  'earlier-refusal': 'It was not run because another call of the same step was refused.',
} as const

function newId(prefix: string): string {
  const random =
    (globalThis.crypto as Crypto | undefined)?.randomUUID?.().replaceAll('-', '') ??
    `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`
  return `${prefix}_${random}`
}

export { newId }

const NOOP = (): undefined => undefined
const NO_CAPS: ReadonlyMap<string, number> = new Map()
/** Stands for an event's base fields when nobody listens (no event is built then). */
const NO_BASE = { toolCallId: '', toolId: '' }

/** What the loop uses of a span; with diagnostics off, a stand-in that costs nothing and keeps the scope. */
type OpenSpan = Pick<DiagnosticSpan, 'diagnostics' | 'end' | 'fail'>

function silentSpan(diagnostics: Diagnostics): OpenSpan {
  return { diagnostics, end: NOOP, fail: NOOP }
}

/** Waits for every task; then rethrows the first failure, if any. */
async function settleAll(tasks: readonly Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(tasks)
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected')
  if (failure) throw failure.reason
}

/** One run of an agent: the turn loop, the tool steps, the events, the saves. */
export class AgentRun {
  readonly #agent: CompiledAgent
  readonly #request: ParsedRun
  readonly #context: OperationContext<unknown>
  readonly #controller = new AbortController()
  readonly #slots: Slots
  readonly #messages: ChatMessage[]
  #turns: number
  #usage: ModelUsage
  readonly #toolTurns: Record<string, number>
  readonly #answerRetries: AnswerRetry[]
  readonly #pending = new Map<string, AgentPendingCall>()
  #text = ''
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
  #historyTail: Promise<unknown> = Promise.resolve()
  #saveTail: Promise<unknown> = Promise.resolve()
  #queuedSave: Promise<void> | undefined
  /** The run's tools (`request.tools`), or undefined for all of the agent's. */
  readonly #runTools: ReadonlySet<string> | undefined
  /** The tools offered by the model call in progress (the run's, narrowed by `beforeTurn`). */
  #turnTools: ReadonlySet<string> | undefined
  /** Outcomes of the resume request already applied (each is used once). */
  readonly #usedOutcomes = new Set<string>()

  constructor(agent: CompiledAgent, request: ParsedRun, context: OperationContext<unknown>) {
    this.#agent = agent
    this.#request = request
    this.#context = childContext(context, 'loop')
    this.#slots = new Slots(agent.toolConcurrency)
    this.#listening = request.onEvent !== undefined
    this.#runTools = request.tools
    this.#turnTools = request.tools
    const resumed = request.resumed
    this.#messages = [...request.messages]
    this.#turns = resumed?.turns ?? 0
    this.#usage = resumed ? { ...resumed.usage } : ZERO_USAGE
    this.#toolTurns = { ...(resumed?.toolTurns ?? {}) }
    this.#answerRetries = [...(resumed?.answerRetries ?? [])]
    for (const call of resumed?.pending ?? []) this.#pending.set(call.toolCallId, call)
    for (const message of this.#messages) {
      if (message.role === 'assistant' && message.content !== '') this.#text = message.content
    }
  }

  get #signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Runs to the end. Never rejects for what happens in the run; a listener that throws at the end does. */
  async execute(): Promise<RunOutcome> {
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
    }
    let end: RunEnd
    try {
      this.#emit({
        type: 'run-start',
        runId: this.#request.runId,
        resumed: this.#request.resumed !== undefined,
        turns: this.#turns,
      })
      end = await this.#drive(ctx)
    } catch (error) {
      end = this.#signal.aborted ? { reason: 'stopped' } : { reason: 'error', error }
    } finally {
      outer.removeEventListener('abort', stop)
    }
    if (end.reason === 'stopped') {
      try {
        await this.#abandonWaiting(ctx)
      } catch (error) {
        end = { reason: 'error', error }
      }
    }
    const outcome = this.#outcome(end)
    const data = { reason: end.reason, turns: this.#turns, ...this.#usage }
    if (end.reason === 'error') span.fail(end.error, data)
    else span.end(end.reason === 'stopped' ? 'aborted' : 'ok', data)
    if (end.reason === 'stopped') this.#emit({ type: 'run-aborted', reason: this.#context.signal.reason })
    if (end.reason === 'suspended') {
      this.#emit({
        type: 'run-suspended',
        pending: outcome.pending,
        state: outcome.state,
        usage: this.#usage,
      })
    } else {
      this.#emit({
        type: 'run-done',
        reason: end.reason,
        usage: this.#usage,
        turns: this.#turns,
        text: this.#text,
        ...(end.reason === 'error' ? { error: end.error } : {}),
      })
    }
    return outcome
  }

  #outcome(end: RunEnd): RunOutcome {
    const state = this.#snapshot(
      end.reason === 'suspended' ? 'suspended' : 'done',
      end.reason === 'suspended' ? undefined : end,
    )
    return {
      end,
      state,
      text: this.#text,
      partialText: this.#partialText,
      messages: Object.freeze([...this.#messages]),
      usage: this.#usage,
      turns: this.#turns,
      pending: state.pending,
    }
  }

  #snapshot(status: AgentRunState['status'], end?: Exclude<RunEnd, { reason: 'suspended' }>): AgentRunState {
    const pending = status === 'done' ? [] : [...this.#pending.values()]
    const state: Record<string, unknown> = {
      version: 1,
      status,
      runId: this.#request.runId,
      messages: [...this.#messages],
      turns: this.#turns,
      usage: { ...this.#usage },
      toolTurns: { ...this.#toolTurns },
      answerRetries: [...this.#answerRetries],
      pending,
    }
    if (end) {
      state.reason = end.reason
      state.text = this.#text
      if (
        end.reason === 'final' &&
        end.answer !== undefined &&
        jsonProblem(end.answer, 'answer') === undefined
      ) {
        state.answer = end.answer
      }
    }
    return state as unknown as AgentRunState
  }

  #emit(event: AgentEvent): void {
    const listener = this.#request.onEvent
    if (listener === undefined) return
    assertNotThenable(listener(event), 'request.onEvent')
  }

  /** Adds a message to the history and reports it in order; the promise (none without a listener) settles once the host took it. */
  #append(message: ChatMessage): Promise<unknown> | undefined {
    this.#messages.push(message)
    if (message.role === 'assistant' && message.content !== '') this.#text = message.content
    const report = this.#request.onHistoryAppend
    if (report === undefined) return undefined
    const done = this.#historyTail.then(() => report(message))
    this.#historyTail = done.catch(() => undefined)
    return done
  }

  /** Saves progress (when the run has `onProgress`): a save that starts after this call, shared by callers that arrive before it starts. */
  #save(): Promise<void> | undefined {
    const save = this.#request.onProgress
    if (save === undefined) return undefined
    if (this.#queuedSave) return this.#queuedSave
    const next = this.#saveTail.then(async () => {
      this.#queuedSave = undefined
      await save(this.#snapshot('running'))
    })
    this.#queuedSave = next
    this.#saveTail = next.catch(() => undefined)
    return next
  }

  async #drive(ctx: OperationContext<unknown>): Promise<RunEnd> {
    for (const message of this.#request.added) await this.#append(message)
    let firstChoice: ToolChoice | undefined
    const choice = this.#request.toolChoice
    if (choice !== undefined && typeof choice === 'object' && 'input' in choice) {
      const call: ToolCall = { id: newId('call'), name: choice.name, arguments: JSON.stringify(choice.input) }
      await this.#append(Object.freeze({ role: 'assistant', content: '', toolCalls: Object.freeze([call]) }))
      await this.#save()
      const end = await this.#step(ctx, 0, [call], 'fresh')
      if (end) return end
    } else {
      firstChoice = choice as ToolChoice | undefined
      const open = openCalls(this.#messages)
      const last = this.#messages.at(-1)
      if (open.length > 0) {
        const end = await this.#step(ctx, this.#turns, open, 'resumed')
        if (end) return end
      } else if (this.#request.resumed && last?.role === 'assistant') {
        // Progress saved after the model's answer and before the AnswerFlow decided: decide now, without
        // calling the model again.
        const end = await this.#decide(
          { message: last, finishReason: 'stop', usage: ZERO_USAGE },
          this.#turns,
          ctx,
        )
        if (end) return end
      }
    }
    for (;;) {
      if (this.#signal.aborted) return { reason: 'stopped' }
      const { maxTurns, maxTokens } = this.#agent
      if (this.#turns >= maxTurns) {
        this.#emit({ type: 'turn-limit-exceeded', scope: 'global', limit: maxTurns })
        return { reason: 'turn-limit' }
      }
      if (maxTokens !== undefined && this.#usage.totalTokens >= maxTokens) {
        this.#emit({ type: 'token-limit-exceeded', limit: maxTokens, used: this.#usage.totalTokens })
        return { reason: 'token-limit' }
      }
      const turn = this.#turns + 1
      const traced = ctx.diagnostics.enabled
      const span = traced ? ctx.diagnostics.span('turn', { turn }) : silentSpan(ctx.diagnostics)
      const turnCtx: OperationContext<unknown> = traced ? { ...ctx, diagnostics: span.diagnostics } : ctx
      let end: RunEnd | undefined
      try {
        const request = await this.#buildRequest(turn, firstChoice, turnCtx)
        firstChoice = undefined
        if (maxTokens !== undefined) {
          const estimate = this.#estimate(request.messages) + this.#agent.toolTokens
          if (this.#usage.totalTokens + estimate > maxTokens) {
            this.#emit({
              type: 'token-limit-exceeded',
              limit: maxTokens,
              used: this.#usage.totalTokens,
              estimate,
            })
            span.end('ok', { stopped: 'token-limit' })
            return { reason: 'token-limit' }
          }
        }
        this.#turns = turn
        if (this.#listening) this.#emit({ type: 'turn-start', turn })
        const reply = await this.#callModel(request, turn, turnCtx)
        this.#usage = addUsage(this.#usage, reply.usage)
        const made = reply.message.toolCalls ?? []
        const calls = uniqueCalls(made, turn)
        const message =
          calls === made
            ? reply.message
            : Object.freeze({ ...reply.message, toolCalls: Object.freeze(calls) })
        if (this.#listening && message.content !== '')
          this.#emit({ type: 'text-flush', turn, text: message.content })
        const reported = this.#append(message)
        if (reported) await reported
        const saved = this.#save()
        if (saved) await saved
        if (calls.length > 0) {
          end = await this.#step(turnCtx, turn, calls, 'fresh')
        } else {
          end = await this.#decide(reply, turn, turnCtx)
        }
        span.end('ok', { toolCalls: calls.length, ...(end ? { end: end.reason } : {}) })
      } catch (error) {
        span.fail(error)
        throw error
      }
      if (end) return end
    }
  }

  #estimate(messages: readonly ChatMessage[]): number {
    const tokens: unknown = this.#agent.estimate(messages)
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      throw new InvalidOutputError(
        `estimateTokens must return a finite number of tokens, but returned ${describeValue(tokens)}.`,
        {
          details: { hook: 'estimateTokens', received: describeValue(tokens) },
        },
      )
    }
    return tokens
  }

  async #buildRequest(
    turn: number,
    toolChoice: ToolChoice | undefined,
    ctx: OperationContext<unknown>,
  ): Promise<ModelRequest> {
    const { system, request, toolSpecs, answer, beforeTurn } = this.#agent
    let offered = this.#runTools
    let choice = toolChoice
    let messages: readonly ChatMessage[] =
      system === undefined ? [...this.#messages] : [{ role: 'system', content: system }, ...this.#messages]
    if (beforeTurn) {
      const input = Object.freeze({
        turn,
        messages: Object.freeze(messages),
        usage: this.#usage,
        history: Object.freeze([...this.#messages]),
      })
      const answered: unknown = await Reflect.apply(beforeTurn.hook, beforeTurn.holder, [input, ctx])
      if (answered !== undefined) {
        const turnControl = readTurnControl(answered, this.#runTools)
        if (turnControl.messages !== undefined) messages = turnControl.messages
        if (turnControl.tools !== undefined) offered = turnControl.tools
        if (turnControl.toolChoice !== undefined) choice = turnControl.toolChoice
      }
    }
    this.#turnTools = offered
    const built: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = { ...request, messages }
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
  async #decide(
    reply: ModelReply,
    turn: number,
    ctx: OperationContext<unknown>,
  ): Promise<RunEnd | undefined> {
    const flow = this.#agent.answer
    const input = Object.freeze({
      text: reply.message.content,
      message: reply.message,
      finishReason: reply.finishReason,
      turn,
      retries: Object.freeze([...this.#answerRetries]),
      messages: Object.freeze([...this.#messages]),
    })
    const control = readControl<unknown>(await flow.decide(input, ctx), 'answer.decide')
    switch (control.type) {
      case 'accept':
        return { reason: 'final', answer: control.value }
      case 'fail':
        return { reason: 'error', error: control.error }
      case 'retry': {
        this.#answerRetries.push({ text: reply.message.content, feedback: control.feedback })
        this.#emit({ type: 'answer-retried', turn, feedback: control.feedback })
        await this.#append(Object.freeze({ role: 'user', content: control.feedback }))
        await this.#save()
        return undefined
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Tool steps

  /**
   * Runs the calls of one reply (or the open calls of a resumed history) through the lifecycle, in
   * parallel up to the concurrency limit. Resolves to how the run ends, or `undefined` to call the model
   * again.
   */
  async #step(
    ctx: OperationContext<unknown>,
    turn: number,
    calls: readonly ToolCall[],
    mode: 'fresh' | 'resumed',
  ): Promise<RunEnd | undefined> {
    const step = new Step(turn, this.#signal)
    const capped = mode === 'fresh' ? this.#countToolTurns(calls) : NO_CAPS
    const toolCtx = ctx
    if (mode === 'fresh' && calls.length === 1) {
      await this.#fresh(calls[0]!, step, toolCtx, capped)
      return this.#stepEnd(step)
    }
    // On a resume, the calls with an outcome (and those re-entered) go first, so that a person's refusal
    // among them reaches the calls left undecided and those that never started.
    const first: (() => Promise<void>)[] = []
    const later: (() => Promise<void>)[] = []
    for (const call of calls) {
      const pending = this.#pending.get(call.id)
      if (mode === 'fresh') first.push(() => this.#fresh(call, step, toolCtx, capped))
      else if (pending === undefined) later.push(() => this.#fresh(call, step, toolCtx, capped))
      else if (pending.waitingFor === 'running' || this.#request.outcomes.has(call.id)) {
        first.push(() => this.#continue(pending, step, toolCtx))
      } else later.push(() => this.#continue(pending, step, toolCtx))
    }
    await settleAll(first.map((task) => task()))
    await settleAll(later.map((task) => task()))
    return this.#stepEnd(step)
  }

  /** How the run goes on after a step: stopped, failed, suspended, or `undefined` to call the model again. */
  #stepEnd(step: Step): RunEnd | undefined {
    if (this.#signal.aborted) return { reason: 'stopped' }
    if (step.fatal !== undefined) return { reason: 'error', error: step.fatal }
    for (const call of this.#pending.values())
      if (call.waitingFor !== 'running') return { reason: 'suspended' }
    return undefined
  }

  /** Counts this turn's calls against the per-tool caps; returns the capped tools and their limits. */
  #countToolTurns(calls: readonly ToolCall[]): ReadonlyMap<string, number> {
    let capped: Map<string, number> | undefined
    for (let index = 0; index < calls.length; index++) {
      const name = calls[index]!.name
      const tool = this.#agent.tools.get(name)
      if (tool === undefined) continue
      let repeat = false
      for (let before = 0; before < index; before++) if (calls[before]!.name === name) repeat = true
      if (repeat) continue
      const call = calls[index]!
      const used = this.#toolTurns[call.name] ?? 0
      if (tool.maxTurns !== undefined && used >= tool.maxTurns) {
        capped ??= new Map()
        capped.set(call.name, tool.maxTurns)
        this.#emit({ type: 'turn-limit-exceeded', scope: 'tool', limit: tool.maxTurns, toolId: call.name })
      } else {
        this.#toolTurns[call.name] = used + 1
      }
    }
    return capped ?? NO_CAPS
  }

  /**
   * A fresh call: one lifecycle pass. Its arguments are parsed here, once; a wait it reaches is decided
   * in this process inside that pass (`decide`), and a call that is not replay-safe is saved before it
   * runs by the pass's save-before-run stage.
   */
  async #fresh(
    call: ToolCall,
    step: Step,
    ctx: OperationContext<unknown>,
    capped: ReadonlyMap<string, number>,
  ): Promise<void> {
    const parsed = parseArguments(call.arguments)
    if (this.#listening) {
      this.#emit({
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
    const outcome = await this.#slots.run(() => this.#startFresh(call, parsed, step, ctx, limit, flow))
    if (flow.error !== undefined) throw flow.error
    if (outcome.status === 'pending') return this.#suspendCall(outcome.record, flow)
    return this.#settle(outcome, step, flow.cause)
  }

  /** The pass of a fresh call, or its refusal when a cap or an earlier refusal stops it. */
  #startFresh(
    call: ToolCall,
    parsed: { readonly value: JsonValue } | undefined,
    step: Step,
    ctx: OperationContext<unknown>,
    limit: number | undefined,
    flow: CallFlow,
  ): Promise<ToolCallOutcome> {
    const offered = this.#turnTools
    if (offered !== undefined && !offered.has(call.name) && this.#agent.tools.has(call.name)) {
      return this.#refuseUnstarted(call, parsed?.value ?? null, ctx, {
        reason: `${call.name} is not one of the tools of this turn; use the tools you were given.`,
        by: 'policy',
      })
    }
    if (
      parsed !== undefined &&
      (limit !== undefined || (step.personRefused && this.#agent.stopStepOnRefusal))
    ) {
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
        ? { toolCallId: call.id, toolId: call.name, input: parsed.value, runId: this.#request.runId }
        : { toolCallId: call.id, toolId: call.name, arguments: call.arguments, runId: this.#request.runId }
    const options: ToolRunOptions = {
      decide: (record) => this.#decideHere(record, step, ctx, flow),
      ...(this.#request.onProgress === undefined
        ? {}
        : { saveBeforeRun: (record: PendingToolCall) => this.#saveBeforeRun(record, flow) }),
    }
    return this.#agent.registry.run(request, ctx, options)
  }

  /** The save-before-run stage: a call of a tool that is not replay-safe, or an approved call, is saved as running. */
  async #saveBeforeRun(record: PendingToolCall, flow: CallFlow): Promise<void> {
    const approval = flow.approval
    if (approval === undefined && this.#agent.tools.get(record.toolId)?.replayPolicy !== 'keyed') return
    const running: AgentPendingCall = {
      ...this.#pendingCall(record, 'running'),
      ...(approval === undefined ? {} : { approval }),
    }
    this.#pending.set(record.toolCallId, await this.#signPending(running))
    await this.#save()
  }

  /**
   * `decide` of a fresh call's pass: the call waits (reported), and a resolver decides it here, or the run
   * defers it (nothing: the call stays pending), or it cannot go on (refused; the run ends with the error).
   */
  async #decideHere(
    record: PendingToolCall,
    step: Step,
    ctx: OperationContext<unknown>,
    flow: CallFlow,
  ): Promise<ToolResume | undefined> {
    const pending: AgentPendingCall = {
      ...this.#pendingCall(record, LOOP_WAITS[record.waitingFor]),
      ...(flow.approval === undefined ? {} : { approval: flow.approval }),
    }
    this.#pending.set(pending.toolCallId, pending)
    this.#emitWaiting(pending)
    // The call waits outside the concurrency limit: other calls of the step run meanwhile.
    this.#slots.release()
    try {
      // Approved, it waits again (the host's result, an answer, or a code tool's next host call): saved.
      if (flow.approval !== undefined) await this.#save()
      return await this.#resolveHere(pending, step, ctx, flow)
    } catch (error) {
      flow.error = error
      return undefined
    } finally {
      await this.#slots.acquire()
    }
  }

  /** Reports that a call waits for a person. */
  #emitWaiting(pending: AgentPendingCall): void {
    if (pending.waitingFor === 'approval') {
      this.#emit({
        type: 'tool-awaiting-approval',
        toolCallId: pending.toolCallId,
        toolId: pending.toolId,
        input: pending.input,
        reason: pending.reason,
      })
    } else if (pending.waitingFor === 'question') {
      this.#emit({
        type: 'tool-awaiting-answer',
        toolCallId: pending.toolCallId,
        toolId: pending.toolId,
        question: pending.question!,
      })
    }
  }

  /** How a waiting fresh call goes on in this process: a resolver's answer, an earlier refusal, deferral or a stop. */
  async #resolveHere(
    pending: AgentPendingCall,
    step: Step,
    ctx: OperationContext<unknown>,
    flow: CallFlow,
  ): Promise<ToolResume | undefined> {
    if (this.#signal.aborted) return undefined
    if (step.personRefused && this.#agent.stopStepOnRefusal) return earlierRefusal(pending)
    const resolver =
      pending.waitingFor === 'approval'
        ? this.#request.resolveApproval
        : pending.waitingFor === 'question'
          ? this.#request.answerQuestion
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
        if (this.#signal.aborted) return undefined
        if (step.signal.aborted && step.personRefused) return earlierRefusal(pending)
        throw error
      }
      if (step.personRefused && this.#agent.stopStepOnRefusal) return earlierRefusal(pending)
      const resolution = readResolution(answered, pending, hook)
      if (resolution.type === 'answer') this.#checkAnswer(pending, resolution.value, hook)
      if (resolution.type === 'approve' && resolution.input !== undefined) {
        this.#checkEdit(pending, resolution.input, hook)
      }
      return this.#resumeWith(pending, resolution, flow)
    }
    if (this.#request.defer) return undefined
    flow.cause = pending.waitingFor === 'external' ? 'no-handler' : 'no-resolver'
    step.fatal ??= cannotGoOn(pending)
    return {
      decision: {
        type: 'reject',
        toolCallId: pending.toolCallId,
        by: 'policy',
        reason: cannotWaitReason(pending, flow.cause),
      },
    }
  }

  /** The lifecycle's resume for an outcome decided in this process. */
  #resumeWith(pending: AgentPendingCall, outcome: AgentCallOutcome, flow: CallFlow): ToolResume {
    switch (outcome.type) {
      case 'reject':
        return {
          decision: {
            type: 'reject',
            toolCallId: pending.toolCallId,
            by: outcome.by,
            reason: outcome.reason,
            ...(outcome.instruction === undefined ? {} : { instruction: outcome.instruction }),
          },
        }
      case 'approve': {
        this.#emit({
          type: 'tool-approved',
          toolCallId: pending.toolCallId,
          toolId: pending.toolId,
          by: outcome.by,
        })
        const approval = { type: 'approve', toolCallId: pending.toolCallId, by: outcome.by } as const
        // The edit (if any) is applied by this pass; a later wait of the call keeps the edited input.
        flow.approval = approval
        return { decision: outcome.input === undefined ? approval : { ...approval, input: outcome.input } }
      }
      default:
        return {
          decision: flow.approval ??
            pending.approval ?? { type: 'approve', toolCallId: pending.toolCallId, by: 'policy' },
          result: hostResult(pending, outcome),
        }
    }
  }

  /** A fresh call left pending (deferred, or the run stopped): kept, signed, for the run's state. */
  async #suspendCall(record: PendingToolCall, flow: CallFlow): Promise<void> {
    const known = this.#pending.get(record.toolCallId)
    const pending: AgentPendingCall = known ?? {
      ...this.#pendingCall(record, LOOP_WAITS[record.waitingFor]),
      ...(flow.approval === undefined ? {} : { approval: flow.approval }),
    }
    this.#pending.set(record.toolCallId, await this.#signPending(pending))
  }

  /** Signs a pending call for the run's state when the agent has decision keys (once, when it is kept). */
  async #signPending(pending: AgentPendingCall): Promise<AgentPendingCall> {
    const keys = this.#agent.keys
    if (keys === undefined) return pending
    const signature = await signToolCall(
      {
        runId: this.#request.runId,
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
  #pendingCall(record: PendingToolCall, waitingFor: WaitingFor): AgentPendingCall {
    const tool = this.#agent.tools.get(record.toolId)
    return {
      toolCallId: record.toolCallId,
      invocationId: record.invocationId,
      toolId: record.toolId,
      input: record.input,
      runId: this.#request.runId,
      waitingFor,
      reason: record.reason,
      ...(waitingFor === 'question' && tool?.answerSchema !== undefined
        ? { question: record.question ?? record.reason, answerSchema: tool.answerSchema }
        : {}),
    }
  }

  /** Refuses a call that never started, through the lifecycle (inspect, decision, templates, finalize). */
  async #refuseUnstarted(
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
      runId: this.#request.runId,
      waitingFor: 'approval',
      reason: rejection.reason,
    }
    const decision = await this.#signed({ type: 'reject', toolCallId: call.id, ...rejection }, pending)
    return this.#agent.registry.resume(pending, decision, ctx)
  }

  /** What happens after a pass through the lifecycle. */
  async #handle(
    outcome: ToolCallOutcome,
    step: Step,
    ctx: OperationContext<unknown>,
    again = false,
  ): Promise<void> {
    if (outcome.status !== 'pending') return this.#settle(outcome, step, undefined)
    const waitingFor = LOOP_WAITS[outcome.record.waitingFor]
    const pending = await this.#signPending(this.#pendingCall(outcome.record, waitingFor))
    this.#pending.set(pending.toolCallId, pending)
    if (again) await this.#save()
    this.#emitWaiting(pending)
    return this.#continue(pending, step, ctx)
  }

  /** Carries a waiting call on: with its outcome (resume), a resolver, deferral, or not at all. */
  async #continue(pending: AgentPendingCall, step: Step, ctx: OperationContext<unknown>): Promise<void> {
    if (pending.waitingFor === 'running') {
      await this.#save()
      return this.#release(
        pending,
        pending.approval ?? { type: 'approve', toolCallId: pending.toolCallId, by: 'policy' },
        step,
        ctx,
      )
    }
    const outcome = this.#request.outcomes.get(pending.toolCallId)
    if (outcome !== undefined && !this.#usedOutcomes.has(pending.toolCallId)) {
      this.#usedOutcomes.add(pending.toolCallId)
      return this.#apply(pending, outcome, step, ctx)
    }
    if (this.#signal.aborted) return
    if (step.personRefused && this.#agent.stopStepOnRefusal) {
      return this.#refuseAfterEarlier(pending, step, ctx)
    }
    const resolver =
      pending.waitingFor === 'approval'
        ? this.#request.resolveApproval
        : pending.waitingFor === 'question'
          ? this.#request.answerQuestion
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
        if (this.#signal.aborted) return
        if (step.signal.aborted && step.personRefused) {
          return this.#refuseAfterEarlier(pending, step, ctx)
        }
        throw error
      }
      if (step.personRefused && this.#agent.stopStepOnRefusal) {
        return this.#refuseAfterEarlier(pending, step, ctx)
      }
      const resolution = readResolution(answered, pending, hook)
      if (resolution.type === 'answer') this.#checkAnswer(pending, resolution.value, hook)
      return this.#apply(pending, resolution, step, ctx)
    }
    if (this.#request.defer) return
    const cause: ToolAbortCause = pending.waitingFor === 'external' ? 'no-handler' : 'no-resolver'
    step.fatal ??= cannotGoOn(pending)
    const decision = await this.#signed(
      {
        type: 'reject',
        toolCallId: pending.toolCallId,
        by: 'policy',
        reason: cannotWaitReason(pending, cause),
      },
      pending,
    )
    const settled = await this.#agent.registry.resume(kitPending(pending), decision, ctx)
    return this.#settle(settled, step, cause)
  }

  /** Refuses an approved edit that does not match the tool's input schema. */
  #checkEdit(pending: AgentPendingCall, input: JsonValue, hook: string): void {
    const tool = this.#agent.tools.get(pending.toolId)
    const checked = tool ? checkEditedInput(tool.tool, input) : undefined
    if (checked !== undefined && !checked.ok) {
      throw new InvalidOutputError(
        `${hook} approved tool call "${pending.toolCallId}" with an input that does not match the input schema of ${pending.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}.`,
        { details: { hook, field: 'input', issues: checked.issues } },
      )
    }
  }

  /** Refuses an answer that does not match the question tool's answer schema. */
  #checkAnswer(pending: AgentPendingCall, value: JsonValue, hook: string): void {
    const tool = this.#agent.tools.get(pending.toolId)
    const checked = tool ? answerValidatorOf(tool)?.validate(value) : undefined
    if (checked !== undefined && !checked.ok) {
      throw new InvalidOutputError(
        `${hook} answered tool call "${pending.toolCallId}" with a value that does not match the answer schema of ${pending.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}.`,
        { details: { hook, issues: checked.issues } },
      )
    }
  }

  /** Applies a decision, result or answer to a waiting call. */
  /** Rejects `pending` because another call of its step was refused (`stopStepOnRefusal`). */
  #refuseAfterEarlier(pending: AgentPendingCall, step: Step, ctx: OperationContext<unknown>): Promise<void> {
    return this.#apply(
      pending,
      {
        type: 'reject',
        toolCallId: pending.toolCallId,
        by: 'earlier-refusal',
        reason: REFUSAL_TEXT['earlier-refusal'],
      },
      step,
      ctx,
    )
  }

  async #apply(
    pending: AgentPendingCall,
    outcome: AgentCallOutcome,
    step: Step,
    ctx: OperationContext<unknown>,
  ): Promise<void> {
    if (outcome.type === 'reject') {
      const decision = await this.#signed(
        {
          type: 'reject',
          toolCallId: pending.toolCallId,
          by: outcome.by,
          reason: outcome.reason,
          ...(outcome.instruction === undefined ? {} : { instruction: outcome.instruction }),
        },
        pending,
      )
      const settled = await this.#slots.run(() =>
        this.#agent.registry.resume(kitPending(pending), decision, ctx),
      )
      return this.#settle(settled, step, undefined)
    }
    if (outcome.type === 'approve') {
      this.#emit({
        type: 'tool-approved',
        toolCallId: pending.toolCallId,
        toolId: pending.toolId,
        by: outcome.by,
      })
      const approval = { type: 'approve', toolCallId: pending.toolCallId, by: outcome.by } as const
      const tool = this.#agent.tools.get(pending.toolId)
      const kind = tool?.kind ?? 'local'
      if (kind === 'local' || tool === undefined) {
        const running: AgentPendingCall = {
          ...pending,
          waitingFor: 'running',
          approval: outcome.input === undefined ? approval : { ...approval, input: outcome.input },
        }
        this.#pending.set(pending.toolCallId, running)
        await this.#save()
        return this.#release(running, running.approval!, step, ctx)
      }
      const waiting: AgentPendingCall = {
        ...pending,
        ...(outcome.input === undefined ? {} : { input: outcome.input }),
        waitingFor: kind,
        approval,
        ...(kind === 'question'
          ? { question: questionText(tool, pending.input), answerSchema: tool.answerSchema }
          : {}),
      }
      this.#pending.set(
        pending.toolCallId,
        outcome.input === undefined ? waiting : await this.#signPending(waiting),
      )
      if (kind === 'question') {
        this.#emit({
          type: 'tool-awaiting-answer',
          toolCallId: waiting.toolCallId,
          toolId: waiting.toolId,
          question: waiting.question!,
        })
      }
      await this.#save()
      // The result or answer comes later (a resolver may answer a question at once).
      return this.#continue(waiting, step, ctx)
    }
    // A result, a failure or an answer: it enters the lifecycle as the call's execution.
    const result = hostResult(pending, outcome)
    const approval = pending.approval ?? { type: 'approve', toolCallId: pending.toolCallId, by: 'policy' }
    const settled = await this.#slots.run(async () =>
      this.#agent.registry.resume(kitPending(pending), await this.#signed(approval, pending), ctx, {
        result,
      }),
    )
    return this.#settle(settled, step, undefined)
  }

  /** Runs an approved call (or re-enters one saved as running) with its own invocation id. */
  async #release(
    pending: AgentPendingCall,
    approval: ToolDecision,
    step: Step,
    ctx: OperationContext<unknown>,
  ): Promise<void> {
    const settled = await this.#slots.run(async () =>
      this.#agent.registry.resume(kitPending(pending), await this.#signed(approval, pending), ctx),
    )
    if (settled.status !== 'pending') return this.#settle(settled, step, undefined)
    // The tool asked for a person again while it ran (a code tool reaching another host call that needs
    // one): the call waits again, and is saved at once so that a restart does not re-enter it with the
    // approval it has just used.
    return this.#handle(settled, step, ctx, true)
  }

  /** Reports a settled call, adds its message to the history and saves. */
  async #settle(outcome: ToolCallOutcome, step: Step, cause: ToolAbortCause | undefined): Promise<void> {
    if (outcome.status === 'pending') {
      throw new InvalidStateError(
        `Tool call "${outcome.toolCallId}" became pending again after its decision.`,
        {
          details: { field: 'outcome.status', received: 'pending' },
        },
      )
    }
    const base = this.#listening ? { toolCallId: outcome.toolCallId, toolId: outcome.toolId } : NO_BASE
    const content = outcome.message.content
    switch (outcome.status) {
      case 'completed':
        if (!this.#listening) break
        this.#emit({
          type: 'tool-resolved',
          ...base,
          output: outcome.record.output,
          content,
          record: outcome.record,
        })
        break
      case 'rejected':
        if (cause !== undefined) {
          this.#emit({ type: 'tool-aborted', ...base, cause, content, record: outcome.record })
          break
        }
        this.#emit({
          type: 'tool-rejected',
          ...base,
          reason: outcome.rejection.reason,
          by: outcome.rejection.by,
          ...(outcome.rejection.instruction === undefined
            ? {}
            : { instruction: outcome.rejection.instruction }),
        })
        if (outcome.rejection.by === 'person') {
          if (this.#agent.stopStepOnRefusal) step.refuse()
          else step.personRefused = true
        }
        break
      case 'failed': {
        const { error } = outcome
        if (!this.#listening) break
        if (TimeoutError.isInstance(error)) {
          this.#emit({ type: 'tool-aborted', ...base, cause: 'timeout', content, record: outcome.record })
        } else if (AbortedError.isInstance(error)) {
          this.#emit({
            type: 'tool-aborted',
            ...base,
            cause: this.#signal.aborted ? 'stopped' : undefined,
            content,
            record: outcome.record,
          })
        } else {
          this.#emit({
            type: 'tool-failed',
            ...base,
            error: outcome.record.error,
            content,
            record: outcome.record,
          })
        }
        break
      }
    }
    this.#pending.delete(outcome.toolCallId)
    const reported = this.#append(outcome.message)
    if (reported) await reported
    const saved = this.#save()
    if (saved) await saved
  }

  /** Settles the calls still waiting when the run is stopped, so the history answers every call. */
  async #abandonWaiting(ctx: OperationContext<unknown>): Promise<void> {
    const waiting = [...this.#pending.values()]
    if (waiting.length === 0) return
    const step = new Step(this.#turns, this.#signal)
    const stopped: OperationContext<unknown> = { ...ctx, signal: this.#signal }
    for (const pending of waiting) {
      const decision = await this.#signed(
        {
          type: 'reject',
          toolCallId: pending.toolCallId,
          by: 'policy',
          reason: 'The run was stopped before this call could run.',
        },
        pending,
      )
      const settled = await this.#agent.registry.resume(kitPending(pending), decision, stopped)
      await this.#settle(settled, step, 'stopped')
    }
  }

  /**
   * A decision the loop makes itself, for the agent's own registry: never signed (the registry has no
   * decision keys; outcomes from outside are verified once, by `checkResume`).
   */
  #signed<D extends ToolDecision>(decision: D, _call: { readonly toolCallId: string }): D {
    if (decision.signature === undefined) return decision
    const { signature: _drop, ...unsigned } = decision
    return unsigned as D
  }
}

/** What one fresh call learns while its pass runs (kept on the call, never in a module). */
interface CallFlow {
  /** The approval given in this process, once there is one. */
  approval: ApproveDecision | undefined
  /** Why the run refused the call itself (no resolver, no handler). */
  cause: ToolAbortCause | undefined
  /** An error of a resolver or its answer: the run ends with it once the pass is over. */
  error: unknown
}

/** The refusal of a call because another call of its step was refused (`stopStepOnRefusal`). */
function earlierRefusal(pending: AgentPendingCall): ToolResume {
  return {
    decision: {
      type: 'reject',
      toolCallId: pending.toolCallId,
      by: 'earlier-refusal',
      reason: REFUSAL_TEXT['earlier-refusal'],
    },
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

function cannotWaitReason(pending: AgentPendingCall, cause: ToolAbortCause): string {
  return cause === 'no-handler'
    ? `The host runs ${pending.toolId}, but this run could not wait for it.`
    : 'Nobody could decide about this call in this run.'
}

/** The host's result (an external tool's result or failure, a person's answer) for the lifecycle. */
function hostResult(pending: AgentPendingCall, outcome: AgentCallOutcome): ToolHostResult {
  if (outcome.type === 'failure') {
    return {
      ok: false,
      error: new ExternalToolError(outcome.message, { details: { toolId: pending.toolId } }),
    }
  }
  return {
    ok: true,
    output: outcome.type === 'answer' ? outcome.value : (outcome as { output?: JsonValue }).output,
  }
}

/** Reads what `beforeTurn` returned: `{ messages?, tools?, toolChoice? }`, strictly. */
function readTurnControl(
  answered: unknown,
  runTools: ReadonlySet<string> | undefined,
): {
  readonly messages: readonly ChatMessage[] | undefined
  readonly tools: ReadonlySet<string> | undefined
  readonly toolChoice: ToolChoice | undefined
} {
  const fail = (message: string, cause?: unknown): never => {
    throw new InvalidOutputError(message, {
      ...(cause === undefined ? {} : { cause }),
      details: { hook: 'beforeTurn', received: describeValue(answered) },
    })
  }
  if (!isRecord(answered) || Object.keys(answered).some((key) => !TURN_FIELDS.includes(key))) {
    fail(
      `beforeTurn must return nothing or { messages?, tools?, toolChoice? }, but returned ${describeValue(answered)}.`,
    )
  }
  const record = answered as Record<string, unknown>
  let messages: readonly ChatMessage[] | undefined
  if (record.messages !== undefined) {
    try {
      messages = readMessages(record.messages, 'beforeTurn().messages')
    } catch (error) {
      fail((error as Error).message, error)
    }
    if (messages?.length === 0) fail('beforeTurn returned no messages; keep at least the newest turn.')
  }
  let tools: ReadonlySet<string> | undefined
  if (record.tools !== undefined) {
    try {
      tools = readToolIds(record.tools, 'beforeTurn().tools')
    } catch (error) {
      fail((error as Error).message, error)
    }
    for (const id of tools ?? []) {
      if (runTools !== undefined && !runTools.has(id)) {
        fail(
          `beforeTurn().tools names "${id}", which is not one of this run's tools; it may only narrow them.`,
        )
      }
    }
  }
  const choice = record.toolChoice
  if (
    choice !== undefined &&
    choice !== 'auto' &&
    choice !== 'none' &&
    choice !== 'required' &&
    !(isRecord(choice) && typeof choice.name === 'string' && Object.keys(choice).length === 1)
  ) {
    fail(
      `beforeTurn().toolChoice must be "auto", "none", "required" or { name }, but is ${describeValue(choice)}.`,
    )
  }
  return { messages, tools, toolChoice: choice as ToolChoice | undefined }
}

const TURN_FIELDS: readonly string[] = ['messages', 'tools', 'toolChoice']

/** The loop's name of each wait of the tools kit. */
const LOOP_WAITS: Readonly<Record<ToolWaitKind, WaitingFor>> = {
  approval: 'approval',
  external: 'external',
  answer: 'question',
  'write-ahead': 'running',
}
const KIT_WAITS: Readonly<Record<WaitingFor, ToolWaitKind>> = {
  approval: 'approval',
  external: 'external',
  question: 'answer',
  running: 'write-ahead',
}

/** The tools kit's pending record for a loop pending call. */
function kitPending(call: AgentPendingCall): PendingToolCall {
  return {
    status: 'pending',
    toolCallId: call.toolCallId,
    invocationId: call.invocationId,
    toolId: call.toolId,
    input: call.input,
    runId: call.runId,
    waitingFor: KIT_WAITS[call.waitingFor],
    reason: call.reason,
    ...(call.question === undefined ? {} : { question: call.question }),
    ...(call.signature === undefined ? {} : { signature: call.signature }),
  }
}

/** Gives every call of a reply a usable, distinct id (an empty or repeated id gets a new one). */
function uniqueCalls(calls: readonly ToolCall[], turn: number): readonly ToolCall[] {
  if (calls.length === 0 || (calls.length === 1 && calls[0]!.id !== '')) return calls
  const seen = new Set<string>()
  let changed = false
  const out = calls.map((call, index) => {
    if (call.id !== '' && !seen.has(call.id)) {
      seen.add(call.id)
      return call
    }
    changed = true
    let id = `call_t${turn}_${index}`
    while (seen.has(id)) id = `${id}_`
    seen.add(id)
    return Object.freeze({ ...call, id })
  })
  return changed ? out : calls
}

/** The calls of the history's last assistant message that have no answer yet. */
function openCalls(messages: readonly ChatMessage[]): readonly ToolCall[] {
  let index = messages.length - 1
  const answered = new Set<string>()
  while (index >= 0 && messages[index]!.role === 'tool') {
    answered.add((messages[index] as Extract<ChatMessage, { role: 'tool' }>).toolCallId)
    index--
  }
  const message = messages[index]
  if (message?.role !== 'assistant' || !message.toolCalls?.length) return []
  return message.toolCalls.filter((call) => !answered.has(call.id))
}

/** Reads what a resolver answered into an outcome for the call. */
function readResolution(value: unknown, call: AgentPendingCall, hook: string): AgentCallOutcome {
  const bad = (what: string): never => {
    throw new InvalidOutputError(
      `${hook} must answer ${call.waitingFor === 'question' ? '{ type: "answer", value } or { type: "reject", reason?, instruction? }' : '{ type: "approve", by? } or { type: "reject", reason?, instruction?, by? }'}, but ${what}.`,
      { details: { hook, received: describeValue(value) } },
    )
  }
  if (!isRecord(value)) return bad(`answered ${describeValue(value)}`)
  const { type, by, reason, instruction } = value
  const allowed =
    type === 'approve'
      ? ['type', 'by', 'input']
      : type === 'reject'
        ? ['type', 'by', 'reason', 'instruction']
        : ['type', 'value']
  const extra = Object.keys(value).filter((key) => !allowed.includes(key))
  if (extra.length > 0) bad(`its answer has unknown fields (${extra.join(', ')})`)
  if (by !== undefined && by !== 'person' && by !== 'policy') bad(`by is ${describeValue(by)}`)
  if (reason !== undefined && (typeof reason !== 'string' || reason === ''))
    bad(`reason is ${describeValue(reason)}`)
  if (instruction !== undefined && typeof instruction !== 'string')
    bad(`instruction is ${describeValue(instruction)}`)
  const who = (by as 'person' | 'policy' | undefined) ?? 'person'
  if (type === 'reject') {
    return {
      type: 'reject',
      toolCallId: call.toolCallId,
      by: who,
      reason: (reason as string | undefined) ?? REFUSAL_TEXT[who],
      ...(instruction === undefined ? {} : { instruction: instruction as string }),
    }
  }
  if (call.waitingFor === 'question') {
    if (type !== 'answer' || !Object.hasOwn(value, 'value'))
      return bad(`answered type ${describeValue(type)}`)
    const problem = jsonProblem(value.value, 'value')
    if (problem !== undefined) bad(`its value is not JSON (${problem})`)
    return { type: 'answer', toolCallId: call.toolCallId, value: value.value as JsonValue }
  }
  if (type !== 'approve') return bad(`answered type ${describeValue(type)}`)
  if (value.input !== undefined) {
    const problem = jsonProblem(value.input, 'input')
    if (problem !== undefined) bad(`its input is not JSON (${problem})`)
    return { type: 'approve', toolCallId: call.toolCallId, by: who, input: value.input as JsonValue }
  }
  return { type: 'approve', toolCallId: call.toolCallId, by: who }
}

/**
 * Checks a resume request against its state before anything runs: the history ends on the pending calls,
 * every outcome is for a call that waits and fits what it waits for, answers match their schemas, and
 * (with decision keys) every outcome carries a signature made for its call.
 * @throws `InvalidInputError`, `ConflictError`, `UnauthorizedError`
 */
export async function checkResume(
  agent: CompiledAgent,
  state: AgentRunState,
  outcomes: ReadonlyMap<string, AgentCallOutcome>,
): Promise<void> {
  if (state.status === 'done') {
    throw new InvalidInputError(
      `Run "${state.runId}" already ended (reason "${state.reason}"); a finished run cannot be resumed. Start a new run with its messages to continue the conversation.`,
      { details: { field: 'resume.status', received: describeValue(state.status) } },
    )
  }
  const open = openCalls(state.messages)
  const openIds = new Map(open.map((call) => [call.id, call]))
  for (const call of state.pending) {
    const made = openIds.get(call.toolCallId)
    if (made === undefined) {
      throw new ConflictError(
        `The history of run "${state.runId}" does not end on pending call "${call.toolCallId}": its last assistant message ${open.length === 0 ? 'has no unanswered tool calls' : 'does not make that call, or a tool message already answers it'}. Resume with the history the run returned or saved, unchanged.`,
        { details: { field: 'resume.messages', toolCallId: call.toolCallId } },
      )
    }
    const parsed = parseArguments(made.arguments)
    if (
      made.name !== call.toolId ||
      parsed === undefined ||
      canonicalJson(parsed.value) !== canonicalJson(call.input)
    ) {
      throw new ConflictError(
        `Pending call "${call.toolCallId}" is for ${call.toolId} with another input than the assistant message's call (${made.name}). The state was changed; resume with the state the run returned.`,
        { details: { field: `resume.pending`, toolCallId: call.toolCallId } },
      )
    }
  }
  if (state.status === 'suspended' && open.length !== state.pending.length) {
    throw new ConflictError(
      `The history of suspended run "${state.runId}" ends on ${open.length} unanswered call(s) but the run waits for ${state.pending.length}. Resume with the history the run returned, unchanged.`,
      { details: { field: 'resume.messages' } },
    )
  }
  const pending = new Map(state.pending.map((call) => [call.toolCallId, call]))
  for (const [id, outcome] of outcomes) {
    const call = pending.get(id)
    const field = `outcomes.${id}`
    if (call === undefined || call.waitingFor === 'running') {
      throw new InvalidInputError(
        `${field}: tool call "${id}" is not pending in run "${state.runId}" (pending: ${
          [...pending.values()]
            .filter((c) => c.waitingFor !== 'running')
            .map((c) => `"${c.toolCallId}"`)
            .join(', ') || 'none'
        }). Send outcomes only for the calls the run waits for.`,
        { details: { field, received: describeValue(id) } },
      )
    }
    const fits =
      outcome.type === 'reject' ||
      (call.waitingFor === 'approval' && outcome.type === 'approve') ||
      (call.waitingFor === 'external' && (outcome.type === 'result' || outcome.type === 'failure')) ||
      (call.waitingFor === 'question' && outcome.type === 'answer')
    if (!fits) {
      const expected = {
        approval: '"approve" or "reject"',
        external: '"result", "failure" or "reject"',
        question: '"answer" or "reject"',
      }[call.waitingFor as 'approval']
      throw new InvalidInputError(
        `${field} is of type "${outcome.type}", but call "${id}" waits for ${call.waitingFor === 'approval' ? 'approval' : call.waitingFor === 'external' ? "the host's result" : 'an answer'}; send ${expected}.`,
        { details: { field: `${field}.type`, received: describeValue(outcome.type) } },
      )
    }
    if (outcome.type === 'approve' && outcome.input !== undefined) {
      const tool = agent.tools.get(call.toolId)
      const checked = tool ? checkEditedInput(tool.tool, outcome.input) : undefined
      if (checked !== undefined && !checked.ok) {
        throw new InvalidInputError(
          `${field}.input (the approved edit) does not match the input schema of ${call.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}.`,
          { details: { field: `${field}.input`, issues: checked.issues } },
        )
      }
    }
    if (outcome.type === 'answer') {
      const tool = agent.tools.get(call.toolId)
      const validator = tool ? answerValidatorOf(tool) : undefined
      const checked = validator?.validate(outcome.value)
      if (checked !== undefined && !checked.ok) {
        throw new InvalidInputError(
          `${field}.value does not match the answer schema of ${call.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}.`,
          { details: { field: `${field}.value`, issues: checked.issues } },
        )
      }
    }
    await checkSignature(agent, call, outcome, field)
  }
  // Last: the state as a whole (its history and counters) is the one the agent suspended.
  await verifyState(state, agent.keys)
}

async function checkSignature(
  agent: CompiledAgent,
  call: AgentPendingCall,
  outcome: AgentCallOutcome,
  field: string,
): Promise<void> {
  const { keys } = agent
  if (keys === undefined) {
    if (outcome.signature !== undefined) {
      throw new UnauthorizedError(
        `${field} is signed, but this agent has no decisionKeys to verify it. Give the agent that resumes the run the same decisionKeys as the one that suspended it.`,
        { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
      )
    }
    return
  }
  if (outcome.signature === undefined) {
    throw new UnauthorizedError(
      `${field} is not signed, but this agent requires signed outcomes. Send the pending call's signature back with its decision, result or answer.`,
      { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
    )
  }
  // An approval that changes the input is signed over the changed input.
  const edit = outcome.type === 'approve' ? outcome.input : undefined
  const identity = {
    runId: call.runId,
    toolCallId: call.toolCallId,
    invocationId: call.invocationId,
    toolId: call.toolId,
    input: edit ?? call.input,
  }
  if (!(await verifyToolCallSignature(identity, outcome.signature, keys))) {
    throw new UnauthorizedError(
      `The signature of ${field} does not match call "${call.toolCallId}" of run "${call.runId}" (its id, invocation, tool and input). It was made for another call or run, or the call was changed; ask for a new decision.`,
      { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
    )
  }
}

export type { StopReason }

/**
 * Checks an approved edit against the tool's input schema (JSON Schema or Standard Schema). An edit is
 * checked synchronously, so a schema that validates asynchronously refuses it with an issue saying so.
 */
function checkEditedInput(
  tool: ModelTool<unknown, unknown, unknown>,
  input: unknown,
): { readonly ok: true } | { readonly ok: false; readonly issues: readonly SchemaIssue[] } {
  const checked = modelToolSchemas(tool).input.validate(input)
  if (!(checked instanceof Promise)) return checked
  consumeRejection(checked)
  return {
    ok: false,
    issues: [
      {
        path: '/',
        keyword: 'schema',
        message:
          'the input schema validates asynchronously, and an approved edit is checked synchronously: give the tool a synchronous schema to allow edits',
      },
    ],
  }
}
