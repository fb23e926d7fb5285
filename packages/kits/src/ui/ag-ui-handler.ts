import {
  AgentCoreError,
  type ChatMessage,
  describeValue,
  InvalidInputError,
  type MaybePromise,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import type { Agent, AgentCallOutcome, AgentRunState } from '@agent-core/kits/loop'
import type { ChatHandlerOptions } from './chat-handler.js'
import { createMemoryChatRunStore } from './chat-run-store.js'
import { storedRunEvents } from './internal/stored-run.js'
import { toAgUiEvents } from './to-ag-ui-events.js'

/**
 * What {@link createAgUiHandler} reads of an AG-UI `RunAgentInput`: the thread, the client's run id, the
 * conversation and, to continue an interrupted run, the resume entries.
 * @example
 * ```ts
 * import type { AgUiRunInput } from '@agent-core/kits/ui'
 * const input: AgUiRunInput = { threadId: 't1', runId: 'r1', messages: [{ id: 'm1', role: 'user', content: 'Hi' }] }
 * ```
 */
export interface AgUiRunInput {
  readonly threadId: string
  readonly runId: string
  readonly messages: readonly AgUiMessage[]
  /** Answers to the interrupts of the thread's suspended run (`interruptId` is the tool-call id). */
  readonly resume?:
    | readonly {
        readonly interruptId: string
        readonly status: 'resolved' | 'cancelled'
        readonly payload?: unknown
      }[]
    | undefined
  readonly [key: string]: unknown
}

/**
 * A message of an AG-UI conversation, as far as agent-core reads it.
 * @example
 * ```ts
 * import type { AgUiMessage } from '@agent-core/kits/ui'
 * const message: AgUiMessage = { id: 'm2', role: 'tool', toolCallId: 'call_1', content: '19 °C' }
 * ```
 */
export interface AgUiMessage {
  readonly id: string
  readonly role: string
  readonly content?: unknown
  readonly toolCalls?: readonly {
    readonly id: string
    readonly function: { readonly name: string; readonly arguments: string }
  }[]
  readonly toolCallId?: string
}

function refusal(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .filter(
        (part) => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text',
      )
      .map((part) => String((part as { text?: unknown }).text ?? ''))
      .join('')
  return ''
}

/**
 * AG-UI messages as the history an agent run reads: user messages (their text), assistant messages (text
 * and tool calls) and tool messages; other roles (system, developer, reasoning, activity) are dropped.
 * @example
 * ```ts
 * import { fromAgUiMessages } from '@agent-core/kits/ui'
 * const history = fromAgUiMessages([{ id: 'm1', role: 'user', content: 'Hello' }])
 * // [{ role: 'user', content: 'Hello' }]
 * ```
 */
export function fromAgUiMessages(messages: readonly AgUiMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: textOf(message.content) })
    else if (message.role === 'assistant') {
      const toolCalls = (message.toolCalls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }))
      out.push({
        role: 'assistant',
        content: textOf(message.content),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      })
    } else if (message.role === 'tool' && typeof message.toolCallId === 'string')
      out.push({ role: 'tool', toolCallId: message.toolCallId, content: textOf(message.content) })
  }
  return out
}

function readInput(value: unknown): AgUiRunInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuseField(
      'input',
      'body',
      `must be an AG-UI RunAgentInput { threadId, runId, messages }, but got ${describeValue(value)}`,
      value,
    )
  const input = value as Record<string, unknown>
  for (const key of ['threadId', 'runId'] as const)
    if (typeof input[key] !== 'string' || input[key] === '')
      refuseField(
        'input',
        `body.${key}`,
        `must be a non-empty string, but got ${describeValue(input[key])}`,
        input[key],
      )
  if (!Array.isArray(input.messages))
    refuseField(
      'input',
      'body.messages',
      `must be an array of messages, but got ${describeValue(input.messages)}`,
      input.messages,
    )
  ;(input.messages as unknown[]).forEach((message, index) => {
    const m = message as Record<string, unknown>
    if (typeof message !== 'object' || message === null || typeof m.role !== 'string')
      refuseField(
        'input',
        `body.messages[${index}]`,
        `must be a message { id, role, content }, but got ${describeValue(message)}`,
        message,
      )
    if (m.toolCalls !== undefined) {
      if (!Array.isArray(m.toolCalls))
        refuseField(
          'input',
          `body.messages[${index}].toolCalls`,
          `must be an array, but got ${describeValue(m.toolCalls)}`,
          m.toolCalls,
        )
      for (const call of m.toolCalls as Record<string, unknown>[]) {
        const fn = call?.function as Record<string, unknown> | undefined
        if (typeof call?.id !== 'string' || typeof fn?.name !== 'string' || typeof fn?.arguments !== 'string')
          refuseField(
            'input',
            `body.messages[${index}].toolCalls`,
            `must hold calls { id, function: { name, arguments } }, but got ${describeValue(call)}`,
            call,
          )
      }
    }
  })
  if (input.resume !== undefined) {
    if (!Array.isArray(input.resume))
      refuseField(
        'input',
        'body.resume',
        `must be an array of resume entries, but got ${describeValue(input.resume)}`,
        input.resume,
      )
    for (const entry of input.resume as Record<string, unknown>[]) {
      if (typeof entry?.interruptId !== 'string')
        refuseField(
          'input',
          'body.resume[].interruptId',
          `must be a string, but got ${describeValue(entry?.interruptId)}`,
          entry?.interruptId,
        )
      if (entry.status !== 'resolved' && entry.status !== 'cancelled')
        refuseField(
          'input',
          'body.resume[].status',
          `must be "resolved" or "cancelled", but got ${describeValue(entry.status)}`,
          entry.status,
        )
    }
  }
  return value as AgUiRunInput
}

/** The outcomes the resume entries give the pending calls of a suspended run. */
function outcomesOf(
  state: AgentRunState,
  entries: NonNullable<AgUiRunInput['resume']>,
): Record<string, AgentCallOutcome> {
  const outcomes: Record<string, AgentCallOutcome> = {}
  for (const pending of state.pending) {
    const entry = entries.find((e) => e.interruptId === pending.toolCallId)
    if (entry === undefined) continue
    const toolCallId = pending.toolCallId
    const signature = pending.signature === undefined ? {} : { signature: pending.signature }
    const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown }
    const reason = typeof payload.reason === 'string' && payload.reason !== '' ? payload.reason : undefined
    if (entry.status === 'cancelled') {
      outcomes[toolCallId] =
        pending.waitingFor === 'external'
          ? { type: 'failure', toolCallId, message: reason ?? 'The call was cancelled.', ...signature }
          : {
              type: 'reject',
              toolCallId,
              by: 'person',
              reason: reason ?? 'The user cancelled this call.',
              ...signature,
            }
    } else if (pending.waitingFor === 'approval') {
      outcomes[toolCallId] =
        payload.approved === false
          ? {
              type: 'reject',
              toolCallId,
              by: 'person',
              reason: reason ?? 'The user refused this call.',
              ...signature,
            }
          : { type: 'approve', toolCallId, by: 'person', ...signature }
    } else if (pending.waitingFor === 'question') {
      outcomes[toolCallId] = { type: 'answer', toolCallId, value: entry.payload as never, ...signature }
    } else if (pending.waitingFor === 'external') {
      outcomes[toolCallId] = { type: 'result', toolCallId, output: entry.payload as never, ...signature }
    }
  }
  return outcomes
}

/**
 * A web-standard fetch handler for AG-UI clients (CopilotKit, `@ag-ui/client`'s `HttpAgent`): it runs an
 * agent for a POSTed `RunAgentInput` and streams {@link toAgUiEvents} as server-sent events. A run that
 * waits for approvals, answers or the host ends with an `interrupt` outcome, its state kept in the `store`
 * under the thread id; a later input with `resume` entries (`interruptId`: the tool-call id; `status`
 * `resolved` with `payload` `{ approved: false, reason }` to refuse, the answer or the result, or
 * `cancelled`) continues it. Refusals: JSON `{ error: { code, message } }` with 400, 405 or 409.
 * @throws `InvalidDefinitionError` for options without an agent
 * @example
 * ```ts
 * import { createAgUiHandler } from '@agent-core/kits/ui'
 * import type { Agent } from '@agent-core/kits/loop'
 * declare const agent: Agent
 * const handle = createAgUiHandler({ agent })
 * // Deno.serve(handle), Bun.serve({ fetch: handle }), export const POST = handle (Next.js), ...
 * ```
 */
export function createAgUiHandler<App = unknown>(
  options: Omit<ChatHandlerOptions<App>, 'context' | 'stream'> & {
    /** The run's context for one request; its signal is combined with the request's. */
    readonly context?:
      | ((request: Request, input: AgUiRunInput) => MaybePromise<OperationContextInit<App>>)
      | undefined
  },
): (request: Request) => Promise<Response> {
  if (typeof options !== 'object' || options === null || typeof options.agent?.stream !== 'function')
    refuseField(
      'definition',
      'agent',
      `must be an agent from defineAgent (createAgUiHandler needs options { agent }), but got ${describeValue(options?.agent)}`,
      options?.agent,
      { prefix: 'options.' },
    )
  const { agent, context } = options
  const store = options.store ?? createMemoryChatRunStore()
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'POST')
      return refusal(405, 'method-not-allowed', `Send the RunAgentInput with POST, not ${request.method}.`)
    let input: AgUiRunInput
    try {
      input = readInput(await request.json())
    } catch (error) {
      return refusal(
        400,
        'invalid-input',
        InvalidInputError.isInstance(error) ? error.message : 'The body is not JSON.',
      )
    }
    try {
      const init = context ? await context(request, input) : {}
      const signal = init.signal ? AbortSignal.any([init.signal, request.signal]) : request.signal
      const ctx = { ...init, signal }
      const saved = await store.load(input.threadId)
      let run: ReturnType<Agent<unknown, App>['stream']>
      if (input.resume !== undefined && input.resume.length > 0) {
        const outcomes = saved?.status === 'suspended' ? outcomesOf(saved, input.resume) : {}
        if (saved === undefined || Object.keys(outcomes).length === 0)
          return refusal(
            409,
            'nothing-to-resume',
            'No interrupt of this thread matches the resume entries: start a new run.',
          )
        run = agent.stream({ resume: saved, outcomes, defer: true }, ctx)
      } else {
        if (saved !== undefined) await store.delete(input.threadId)
        run = agent.stream({ messages: fromAgUiMessages(input.messages), defer: true }, ctx)
      }
      const threadId = input.threadId
      const events = await storedRunEvents(run, store, threadId)
      const encoder = new TextEncoder()
      const agUi = toAgUiEvents(events, { threadId, runId: input.runId })[Symbol.asyncIterator]()
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const next = await agUi.next()
            if (next.done) controller.close()
            else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`))
          } catch {
            controller.enqueue(
              encoder.encode(
                `data: ${JSON.stringify({ type: 'RUN_ERROR', message: 'The run failed.', code: 'run-failed' })}\n\n`,
              ),
            )
            controller.close()
          }
        },
        async cancel() {
          await agUi.return?.(undefined)
        },
      })
      return new Response(body, {
        headers: {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        },
      })
    } catch (error) {
      const code = AgentCoreError.isInstance(error) ? error.code : 'internal'
      const status =
        code === 'suspension-consumed' || code === 'conflict' ? 409 : code === 'invalid-input' ? 400 : 500
      return refusal(status, code, status === 500 ? 'The run could not start.' : (error as Error).message)
    }
  }
}
