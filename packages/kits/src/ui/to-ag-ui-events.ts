import { describeValue, type ModelUsage, refuseField } from '@agent-core/core'
import type { AgentEvent, AgentPendingCall } from '@agent-core/kits/loop'

/**
 * One AG-UI event (the agent-user interaction protocol, `@ag-ui/core` 1.x) as {@link toAgUiEvents} writes
 * it: plain JSON objects that `@ag-ui/core`'s schemas accept and AG-UI clients (CopilotKit, `@ag-ui/client`)
 * read. `type` is the protocol's event type.
 * @example
 * ```ts
 * import type { AgUiEvent } from '@agent-core/kits/ui'
 * const text = (event: AgUiEvent) => (event.type === 'TEXT_MESSAGE_CONTENT' ? event.delta : '')
 * ```
 */
export type AgUiEvent =
  | { readonly type: 'RUN_STARTED'; readonly threadId: string; readonly runId: string }
  | {
      readonly type: 'RUN_FINISHED'
      readonly threadId: string
      readonly runId: string
      readonly result?: unknown
      readonly outcome:
        | { readonly type: 'success' }
        | { readonly type: 'cancelled' }
        | { readonly type: 'interrupt'; readonly interrupts: readonly AgUiInterrupt[] }
      readonly usage?: readonly AgUiTokenUsage[]
      readonly metadata?: Readonly<Record<string, unknown>>
    }
  | { readonly type: 'RUN_ERROR'; readonly message: string; readonly code?: string }
  | { readonly type: 'STEP_STARTED'; readonly stepName: string }
  | { readonly type: 'STEP_FINISHED'; readonly stepName: string }
  | { readonly type: 'TEXT_MESSAGE_START'; readonly messageId: string; readonly role: 'assistant' }
  | { readonly type: 'TEXT_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'TEXT_MESSAGE_END'; readonly messageId: string }
  | { readonly type: 'REASONING_START'; readonly messageId: string }
  | { readonly type: 'REASONING_MESSAGE_START'; readonly messageId: string; readonly role: 'reasoning' }
  | { readonly type: 'REASONING_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'REASONING_MESSAGE_END'; readonly messageId: string }
  | { readonly type: 'REASONING_END'; readonly messageId: string }
  | {
      readonly type: 'TOOL_CALL_START'
      readonly toolCallId: string
      readonly toolCallName: string
      readonly parentMessageId?: string
    }
  | { readonly type: 'TOOL_CALL_ARGS'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'TOOL_CALL_END'; readonly toolCallId: string }
  | {
      readonly type: 'TOOL_CALL_RESULT'
      readonly messageId: string
      readonly toolCallId: string
      readonly content: string
      readonly role: 'tool'
    }
  | {
      readonly type: 'ACTIVITY_SNAPSHOT'
      readonly messageId: string
      readonly activityType: 'tool-progress'
      readonly content: Readonly<Record<string, unknown>>
    }

/**
 * Why an AG-UI run stopped for input: one per call the suspended run waits for (`id` is the tool-call
 * id, which a resume entry answers), `reason` `tool-approval`, `question` (with the answer's schema) or
 * `external-tool`.
 * @example
 * ```ts
 * import type { AgUiInterrupt } from '@agent-core/kits/ui'
 * const interrupt: AgUiInterrupt = { id: 'call_1', reason: 'tool-approval', message: 'Refunds need a person.', toolCallId: 'call_1' }
 * ```
 */
export interface AgUiInterrupt {
  readonly id: string
  readonly reason: 'tool-approval' | 'question' | 'external-tool'
  readonly message: string
  readonly toolCallId: string
  readonly responseSchema?: Readonly<Record<string, unknown>>
}

/**
 * Token usage in AG-UI's shape (one entry per model).
 * @example
 * ```ts
 * import type { AgUiTokenUsage } from '@agent-core/kits/ui'
 * const usage: AgUiTokenUsage = { inputTokens: 12, outputTokens: 30, totalTokens: 42 }
 * ```
 */
export interface AgUiTokenUsage {
  readonly model?: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
  readonly cachedInputTokens?: number
}

/**
 * Options of {@link toAgUiEvents}.
 * @example
 * ```ts
 * import type { ToAgUiEventsOptions } from '@agent-core/kits/ui'
 * const options: ToAgUiEventsOptions = { threadId: 'thread-1', runId: 'run-7' }
 * ```
 */
export interface ToAgUiEventsOptions {
  /** The AG-UI thread (conversation) the run belongs to. */
  readonly threadId: string
  /** The AG-UI run id (the client's `RunAgentInput.runId`). Default: the agent run's own id. */
  readonly runId?: string | undefined
  /** The message of a `RUN_ERROR` for a failed run. Default `"The run failed."`. */
  readonly onError?: ((error: unknown) => string) | undefined
}

function interrupt(call: AgentPendingCall): AgUiInterrupt {
  const base = { id: call.toolCallId, message: call.question ?? call.reason, toolCallId: call.toolCallId }
  if (call.waitingFor === 'question')
    return {
      ...base,
      reason: 'question',
      ...(call.answerSchema !== undefined && typeof call.answerSchema === 'object'
        ? { responseSchema: call.answerSchema as Record<string, unknown> }
        : {}),
    }
  return { ...base, reason: call.waitingFor === 'external' ? 'external-tool' : 'tool-approval' }
}

function usageOf(usage: ModelUsage): AgUiTokenUsage[] {
  return [
    {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
      ...(usage.cacheReadTokens === undefined ? {} : { cachedInputTokens: usage.cacheReadTokens }),
    },
  ]
}

/**
 * An agent run's events as AG-UI events: `RUN_STARTED`; a step per model call; the reply's text and
 * reasoning messages; each tool call (`TOOL_CALL_START`, its arguments, `TOOL_CALL_END`) and its result
 * (`TOOL_CALL_RESULT`: the text the model read, for an output, an error or a refusal); tool progress as
 * `ACTIVITY_SNAPSHOT` (activity type `tool-progress`, one activity per call, each report replacing the
 * last); and the end: `RUN_FINISHED` with outcome `success` (the answer as `result`), `cancelled` (a
 * stopped run) or `interrupt` (a suspended run: one interrupt per waiting call), with the usage; or
 * `RUN_ERROR`. Serve it with {@link createAgUiHandler}.
 * @throws `InvalidInputError` for events that are not an async iterable, or options without a thread id
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { toAgUiEvents } from '@agent-core/kits/ui'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * for await (const event of toAgUiEvents(agent.stream({ prompt: 'Hi' }), { threadId: 'thread-1' }))
 *   if (event.type === 'TEXT_MESSAGE_CONTENT') process.stdout.write(event.delta)
 * ```
 */
export async function* toAgUiEvents(
  events: AsyncIterable<AgentEvent>,
  options: ToAgUiEventsOptions,
): AsyncGenerator<AgUiEvent> {
  if (
    typeof events !== 'object' ||
    events === null ||
    typeof (events as Partial<AsyncIterable<AgentEvent>>)[Symbol.asyncIterator] !== 'function'
  ) {
    refuseField(
      'input',
      'events',
      `must be a run's events (agent.stream(request)), but got ${describeValue(events)}`,
      events,
      {
        prefix: 'toAgUiEvents: ',
      },
    )
  }
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.threadId !== 'string' ||
    options.threadId === ''
  )
    refuseField(
      'input',
      'options.threadId',
      `must be a non-empty string (toAgUiEvents needs options { threadId }), but got ${describeValue(options?.threadId)}`,
      options?.threadId,
    )
  const threadId = options.threadId
  const onError = options.onError ?? (() => 'The run failed.')
  let runId = options.runId ?? ''
  let step: string | undefined
  let text: string | undefined
  let reasoning: string | undefined
  let parts = 0
  const streamed = new Set<number>()
  const out: AgUiEvent[] = []
  const closeText = () => {
    if (text !== undefined) out.push({ type: 'TEXT_MESSAGE_END', messageId: text })
    text = undefined
  }
  const closeReasoning = () => {
    if (reasoning === undefined) return
    out.push(
      { type: 'REASONING_MESSAGE_END', messageId: reasoning },
      { type: 'REASONING_END', messageId: reasoning },
    )
    reasoning = undefined
  }
  const closeStep = () => {
    closeText()
    closeReasoning()
    if (step !== undefined) out.push({ type: 'STEP_FINISHED', stepName: step })
    step = undefined
  }
  const textDelta = (turn: number, delta: string) => {
    closeReasoning()
    if (text === undefined) {
      text = `${runId}-text-${turn}-${++parts}`
      out.push({ type: 'TEXT_MESSAGE_START', messageId: text, role: 'assistant' })
    }
    out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: text, delta })
  }
  for await (const event of events) {
    switch (event.type) {
      case 'run-start':
        if (options.runId === undefined) runId = event.runId
        out.push({ type: 'RUN_STARTED', threadId, runId })
        break
      case 'turn-start':
        closeStep()
        step = `turn-${event.turn}`
        out.push({ type: 'STEP_STARTED', stepName: step })
        break
      case 'text-delta':
        streamed.add(event.turn)
        textDelta(event.turn, event.text)
        break
      case 'thinking-delta':
        closeText()
        if (reasoning === undefined) {
          reasoning = `${runId}-reasoning-${event.turn}-${++parts}`
          out.push(
            { type: 'REASONING_START', messageId: reasoning },
            { type: 'REASONING_MESSAGE_START', messageId: reasoning, role: 'reasoning' },
          )
        }
        out.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: reasoning, delta: event.text })
        break
      case 'text-flush':
        if (!streamed.has(event.turn)) textDelta(event.turn, event.text)
        closeText()
        closeReasoning()
        break
      case 'tool-start':
        closeText()
        closeReasoning()
        out.push({ type: 'TOOL_CALL_START', toolCallId: event.toolCallId, toolCallName: event.toolId })
        if (event.arguments !== '')
          out.push({ type: 'TOOL_CALL_ARGS', toolCallId: event.toolCallId, delta: event.arguments })
        out.push({ type: 'TOOL_CALL_END', toolCallId: event.toolCallId })
        break
      case 'tool-progress':
        out.push({
          type: 'ACTIVITY_SNAPSHOT',
          messageId: `${runId}-progress-${event.toolCallId}`,
          activityType: 'tool-progress',
          content: {
            toolCallId: event.toolCallId,
            toolId: event.toolId,
            sequence: event.sequence,
            ...(event.message === undefined ? {} : { message: event.message }),
            ...(event.ratio === undefined ? {} : { ratio: event.ratio }),
            ...(event.data === undefined ? {} : { data: event.data }),
          },
        })
        break
      case 'tool-resolved':
      case 'tool-failed':
      case 'tool-aborted':
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${runId}-result-${event.toolCallId}`,
          toolCallId: event.toolCallId,
          content: event.content,
          role: 'tool',
        })
        break
      case 'tool-rejected':
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${runId}-result-${event.toolCallId}`,
          toolCallId: event.toolCallId,
          content: event.reason,
          role: 'tool',
        })
        break
      case 'run-suspended':
        closeStep()
        out.push({
          type: 'RUN_FINISHED',
          threadId,
          runId,
          outcome: {
            type: 'interrupt',
            interrupts: event.pending.filter((p) => p.waitingFor !== 'running').map(interrupt),
          },
          usage: usageOf(event.usage),
        })
        break
      case 'run-done':
        closeStep()
        if (event.reason === 'error') {
          const message = onError(event.error)
          out.push({
            type: 'RUN_ERROR',
            message: typeof message === 'string' ? message : 'The run failed.',
            code: 'run-failed',
          })
        } else {
          out.push({
            type: 'RUN_FINISHED',
            threadId,
            runId,
            ...(event.reason === 'final' ? { result: event.text } : {}),
            outcome: { type: event.reason === 'stopped' ? 'cancelled' : 'success' },
            usage: usageOf(event.usage),
            metadata: { reason: event.reason, turns: event.turns },
          })
        }
        break
      default:
        break
    }
    if (out.length > 0) {
      yield* out.splice(0)
    }
  }
}
