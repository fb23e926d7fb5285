import type { ChatMessage, ModelUsage } from '@agent-core/core'
import { ZERO_USAGE } from '@agent-core/core'
import type { ToolStateRecord } from '@agent-core/kits/tools'
import type { PlacedCustomInput } from '../custom-inputs.js'
import type { GuardrailTrip } from '../guardrails.js'
import type { AgentCallOutcome, AgentPendingCall, AgentRunState, AnswerRetry } from '../run-state.js'
import { type CallState, initialState, pendingOf } from './call-state.js'
import { jsonProblem } from './engine-host.js'

/** How a run ended, for the state it records. */
export type RecordedEnd =
  | { readonly reason: 'final'; readonly answer: unknown }
  | { readonly reason: 'turn-limit' | 'token-limit' | 'stopped' }
  | { readonly reason: 'error'; readonly error: unknown }
  | { readonly reason: 'guardrail'; readonly trip: GuardrailTrip }

/** Where the journal reports what it records. */
export interface JournalHost {
  readonly runId: string
  readonly onHistoryAppend: ((message: ChatMessage) => unknown) | undefined
  readonly onProgress: ((state: AgentRunState) => unknown) | undefined
  /** The history's custom inputs, kept as data in every snapshot (none: no field). */
  readonly customInputs: readonly PlacedCustomInput[]
}

/**
 * What a run records: its history, counters, the state of every call not yet settled, and the saves of
 * its progress. The run's state (`AgentRunState`) is a snapshot of this, so a call's state is kept in one
 * place, {@link Journal.track}, and the pending calls of a save are read from it.
 */
export class Journal {
  readonly messages: ChatMessage[]
  /** The newest assistant text of the history. */
  text = ''
  turns: number
  usage: ModelUsage
  readonly toolTurns: Record<string, number>
  readonly answerRetries: AnswerRetry[]
  /** What the tools that keep state left for their next call, by tool id (saved when not empty). */
  readonly toolState: Record<string, ToolStateRecord>
  /** Each call that entered the lifecycle and is not settled yet: its state (see `call-state.ts`). */
  readonly #calls = new Map<string, CallState>()
  readonly #host: JournalHost
  #historyTail: Promise<unknown> = Promise.resolve()
  #saveTail: Promise<unknown> = Promise.resolve()
  #queuedSave: Promise<void> | undefined

  constructor(
    host: JournalHost,
    messages: readonly ChatMessage[],
    resumed: AgentRunState | undefined,
    outcomes: ReadonlyMap<string, AgentCallOutcome>,
  ) {
    this.#host = host
    this.messages = [...messages]
    this.turns = resumed?.turns ?? 0
    this.usage = resumed ? { ...resumed.usage } : ZERO_USAGE
    this.toolTurns = { ...(resumed?.toolTurns ?? {}) }
    this.answerRetries = [...(resumed?.answerRetries ?? [])]
    this.toolState = { ...(resumed?.toolState ?? {}) }
    for (const call of resumed?.pending ?? []) {
      this.#calls.set(call.toolCallId, initialState(call, outcomes.get(call.toolCallId)))
    }
    for (const message of this.messages) {
      if (message.role === 'assistant' && message.content !== '') this.text = message.content
    }
  }

  /** The state of a call not yet settled. */
  call(toolCallId: string): CallState | undefined {
    return this.#calls.get(toolCallId)
  }

  /** Records a call's new state: kept while it is not settled, dropped once it is. */
  track(toolCallId: string, state: CallState): void {
    if (state.kind === 'settled') this.#calls.delete(toolCallId)
    else this.#calls.set(toolCallId, state)
  }

  /** The calls not yet settled, in the order they entered. */
  calls(): CallState[] {
    return [...this.#calls.values()]
  }

  /** Whether a call waits for a person or the host (the run then suspends). */
  waits(): boolean {
    for (const state of this.#calls.values()) {
      const pending = pendingOf(state)
      if (pending !== undefined && pending.waitingFor !== 'running') return true
    }
    return false
  }

  /** Adds a message to the history and reports it in order; the promise (none without a listener) settles once the host took it. */
  append(message: ChatMessage): Promise<unknown> | undefined {
    this.messages.push(message)
    if (message.role === 'assistant' && message.content !== '') this.text = message.content
    const report = this.#host.onHistoryAppend
    if (report === undefined) return undefined
    const done = this.#historyTail.then(() => report(message))
    this.#historyTail = done.catch(() => undefined)
    return done
  }

  /** Saves progress (when the run has `onProgress`): a save that starts after this call, shared by callers that arrive before it starts. */
  save(): Promise<void> | undefined {
    const save = this.#host.onProgress
    if (save === undefined) return undefined
    if (this.#queuedSave) return this.#queuedSave
    const next = this.#saveTail.then(async () => {
      this.#queuedSave = undefined
      await save(this.snapshot('running'))
    })
    this.#queuedSave = next
    this.#saveTail = next.catch(() => undefined)
    return next
  }

  /** The run's state as plain JSON. */
  snapshot(status: AgentRunState['status'], end?: RecordedEnd): AgentRunState {
    const pending: AgentPendingCall[] = []
    if (status !== 'done') {
      for (const state of this.#calls.values()) {
        const call = pendingOf(state)
        if (call !== undefined) pending.push(call)
      }
    }
    const state: Record<string, unknown> = {
      version: 1,
      status,
      runId: this.#host.runId,
      messages: [...this.messages],
      turns: this.turns,
      usage: { ...this.usage },
      toolTurns: { ...this.toolTurns },
      answerRetries: [...this.answerRetries],
      pending,
    }
    if (this.#host.customInputs.length > 0) state.customInputs = this.#host.customInputs
    for (const _ in this.toolState) {
      state.toolState = { ...this.toolState }
      break
    }
    if (end) {
      state.reason = end.reason
      state.text = this.text
      if (
        end.reason === 'final' &&
        end.answer !== undefined &&
        jsonProblem(end.answer, 'answer') === undefined
      ) {
        state.answer = end.answer
      }
      if (end.reason === 'guardrail') state.guardrail = end.trip
    }
    return state as unknown as AgentRunState
  }
}
