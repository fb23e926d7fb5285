import {
  AgentCoreError,
  describeValue,
  InvalidInputError,
  type MaybePromise,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import type { Agent, AgentCallOutcome, AgentRunState } from '@agent-core/kits/loop'
import { type ChatRunStore, createMemoryChatRunStore } from './chat-run-store.js'
import {
  type ChatUIMessage,
  type ChatUIPart,
  fromUIMessages,
  isToolPart,
  readUIMessages,
} from './from-ui-messages.js'
import { storedRunEvents } from './internal/stored-run.js'
import { type ToUIMessageStreamOptions, toUIMessageStream } from './to-ui-message-stream.js'
import { toUIMessageStreamResponse } from './to-ui-message-stream-response.js'

/**
 * The body `useChat` (the AI SDK's default chat transport) posts: the chat's id, its messages, and what
 * the page asked for. Fields the page adds with `body` are kept.
 * @example
 * ```ts
 * import type { ChatRequestBody } from '@agent-core/kits/ui'
 * const body: ChatRequestBody = { id: 'chat-1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] }
 * ```
 */
export interface ChatRequestBody {
  readonly id: string
  readonly messages: readonly ChatUIMessage[]
  readonly trigger?: string | undefined
  readonly messageId?: string | undefined
  readonly [key: string]: unknown
}

/**
 * What {@link createChatHandler} runs and how.
 * @example
 * ```ts
 * import type { ChatHandlerOptions } from '@agent-core/kits/ui'
 * import type { Agent } from '@agent-core/kits/loop'
 * declare const agent: Agent
 * const options: ChatHandlerOptions = { agent, context: (request) => ({ app: { user: request.headers.get('x-user') } }) }
 * ```
 */
export interface ChatHandlerOptions<App = unknown> {
  /** The agent every request runs (`defineAgent`); its runs suspend on approvals (`defer: true`). */
  // biome-ignore lint/suspicious/noExplicitAny: an agent of any answer type streams the same events
  readonly agent: Agent<any, App>
  /** Where suspended runs wait for the page's answer. Default: {@link createMemoryChatRunStore}. */
  readonly store?: ChatRunStore | undefined
  /**
   * The run's context for one request (the App's state, diagnostics, ...). Its signal, if any, is combined
   * with the request's: a page that stops or goes away stops the run.
   */
  readonly context?:
    | ((request: Request, body: ChatRequestBody) => MaybePromise<OperationContextInit<App>>)
    | undefined
  /** How the run is written to the stream (reasoning, progress, error text). */
  readonly stream?: Omit<ToUIMessageStreamOptions, 'messageId' | 'sendStart' | 'sendFinish'> | undefined
}

function refusal(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

function statusOf(error: unknown): number {
  if (!AgentCoreError.isInstance(error)) return 500
  switch (error.code) {
    case 'suspension-consumed':
    case 'conflict':
    case 'invalid-state':
      return 409
    case 'invalid-input':
    case 'invalid-id':
    case 'unknown-id':
    case 'invalid-output':
      return 400
    case 'unauthorized':
      return 403
    default:
      return 500
  }
}

function bodyError(message: string): InvalidInputError {
  return new InvalidInputError(message, { details: { field: 'body' } })
}

function readBody(value: unknown): ChatRequestBody {
  const record = value as Record<string, unknown>
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bodyError(`The body must be a chat request { id, messages }, but got ${describeValue(value)}.`)
  }
  if (typeof record.id !== 'string' || record.id === '')
    throw bodyError(
      `body.id must be the chat's id (a non-empty string), but got ${describeValue(record.id)}.`,
    )
  try {
    readUIMessages(record.messages, 'body.messages')
  } catch (error) {
    throw InvalidInputError.isInstance(error) ? error : bodyError(String(error))
  }
  if ((record.messages as unknown[]).length === 0)
    throw bodyError('body.messages is empty: send the conversation, ending on the user message.')
  return value as ChatRequestBody
}

/** The page's answers to the pending calls of a suspended run, from the tool parts of its last message. */
function outcomesOf(state: AgentRunState, last: ChatUIMessage): Record<string, AgentCallOutcome> {
  const parts = new Map<string, ChatUIPart>()
  for (const part of last.parts) if (isToolPart(part)) parts.set(part.toolCallId as string, part)
  const outcomes: Record<string, AgentCallOutcome> = {}
  for (const pending of state.pending) {
    const part = parts.get(pending.toolCallId)
    if (part === undefined) continue
    const toolCallId = pending.toolCallId
    const signature = pending.signature === undefined ? {} : { signature: pending.signature }
    if (pending.waitingFor === 'approval' && part.state === 'approval-responded' && part.approval) {
      outcomes[toolCallId] = part.approval.approved
        ? { type: 'approve', toolCallId, by: 'person', ...signature }
        : {
            type: 'reject',
            toolCallId,
            by: 'person',
            reason:
              part.approval.reason === undefined || part.approval.reason === ''
                ? 'The user refused this call.'
                : part.approval.reason,
            ...signature,
          }
    } else if (pending.waitingFor === 'question' || pending.waitingFor === 'external') {
      if (part.state === 'output-available') {
        outcomes[toolCallId] =
          pending.waitingFor === 'question'
            ? { type: 'answer', toolCallId, value: part.output as never, ...signature }
            : { type: 'result', toolCallId, output: part.output as never, ...signature }
      } else if (part.state === 'output-error') {
        const message =
          part.errorText === undefined || part.errorText === '' ? 'The call failed.' : part.errorText
        outcomes[toolCallId] =
          pending.waitingFor === 'question'
            ? { type: 'reject', toolCallId, by: 'person', reason: message, ...signature }
            : { type: 'failure', toolCallId, message, ...signature }
      }
    }
  }
  return outcomes
}

/** Names createChatHandler's options `options.<field>` in messages, bare in `details.field`. */
const OPTIONS = Object.freeze({ prefix: 'options.' })

/**
 * A web-standard fetch handler (from a `Request` to a streaming `Response`: Node with `@hono/node-server` or
 * `http` glue, Deno, Bun, edge runtimes) that runs an agent for a `useChat` request and streams the run as
 * the AI SDK UI message stream. A request ending on a user message starts a run on the conversation
 * ({@link fromUIMessages}); when the run waits for approvals it suspends, its state kept in the `store`
 * under the chat's id. A request ending on the assistant message with the page's answers
 * (`addToolApprovalResponse`, or `addToolOutput` for question and external tools) resumes that run with
 * them, continuing the same message. Refused requests get a JSON `{ error: { code, message } }`: 400 for
 * a malformed body, 405 for a method other than POST, 409 for a resume with nothing to resume or already
 * resumed (a double-clicked Approve).
 * @throws `InvalidDefinitionError` for options without an agent
 * @example
 * ```ts
 * import { createChatHandler } from '@agent-core/kits/ui'
 * import type { Agent } from '@agent-core/kits/loop'
 * declare const agent: Agent
 * const handle = createChatHandler({ agent })
 * // Deno.serve(handle), Bun.serve({ fetch: handle }), export const POST = handle (Next.js), ...
 * ```
 */
export function createChatHandler<App = unknown>(
  options: ChatHandlerOptions<App>,
): (request: Request) => Promise<Response> {
  if (typeof options !== 'object' || options === null)
    refuseField(
      'definition',
      'options',
      `must be an object { agent, store?, context? }, but got ${describeValue(options)}`,
      options,
      { prefix: 'createChatHandler: ' },
    )
  const { agent, context } = options
  if (typeof agent !== 'object' || agent === null || typeof agent.stream !== 'function')
    refuseField(
      'definition',
      'agent',
      `must be an agent from defineAgent, but got ${describeValue(agent)}`,
      agent,
      OPTIONS,
    )
  if (context !== undefined && typeof context !== 'function')
    refuseField(
      'definition',
      'context',
      `must be a function (request, body) => context, but got ${describeValue(context)}`,
      context,
      OPTIONS,
    )
  const store = options.store ?? createMemoryChatRunStore()
  for (const method of ['load', 'save', 'delete'] as const) {
    if (typeof store[method] !== 'function')
      refuseField(
        'definition',
        `store.${method}`,
        `must be a function (a chat run store has load, save and delete), but got ${describeValue(store[method])}`,
        store[method],
        OPTIONS,
      )
  }
  const streamOptions = options.stream ?? {}

  return async (request: Request): Promise<Response> => {
    if (request.method !== 'POST')
      return refusal(405, 'method-not-allowed', `Send the chat request with POST, not ${request.method}.`)
    let body: ChatRequestBody
    try {
      body = readBody(await request.json())
    } catch (error) {
      const message = InvalidInputError.isInstance(error)
        ? error.message
        : 'The body is not JSON: send the chat request as JSON.'
      return refusal(400, 'invalid-input', message)
    }
    try {
      const init = context ? await context(request, body) : {}
      const signal = init.signal ? AbortSignal.any([init.signal, request.signal]) : request.signal
      const ctx = { ...init, signal }
      const last = body.messages[body.messages.length - 1] as ChatUIMessage
      const saved = await store.load(body.id)
      let messageId: string | undefined
      let run: ReturnType<Agent<unknown, App>['stream']>
      if (last.role === 'assistant' && saved?.status === 'suspended') {
        const outcomes = outcomesOf(saved, last)
        if (Object.keys(outcomes).length === 0)
          return refusal(
            409,
            'nothing-to-resume',
            'The last message answers none of the calls the run waits for: approve or refuse one (addToolApprovalResponse), or send a user message.',
          )
        messageId = last.id
        run = agent.stream({ resume: saved, outcomes, defer: true }, ctx)
      } else if (last.role === 'assistant') {
        return refusal(
          409,
          'nothing-to-resume',
          'The conversation ends on an assistant message but no run of this chat waits for an answer: send a user message.',
        )
      } else {
        if (saved !== undefined) await store.delete(body.id)
        run = agent.stream({ messages: fromUIMessages(body.messages), defer: true }, ctx)
      }
      // A refused resume (already resumed, forged) throws here, before a response is made.
      const events = await storedRunEvents(run, store, body.id)
      return toUIMessageStreamResponse(
        toUIMessageStream(events, {
          ...streamOptions,
          ...(messageId === undefined ? {} : { messageId }),
        }),
      )
    } catch (error) {
      const status = statusOf(error)
      const code = AgentCoreError.isInstance(error) ? error.code : 'internal'
      const message =
        status === 500 ? 'The run could not start.' : error instanceof Error ? error.message : String(error)
      return refusal(status, code, message)
    }
  }
}
