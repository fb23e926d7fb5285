import type { MockMessageView, MockRequestView, MockToolCallView, MockToolResultView } from '../script.js'
import type { NormalizedRequest } from './normalize.js'

/**
 * What a script predicate or computed reply sees of a chat, Responses or Messages request. Its messages and
 * tool calls are copies: the normalized request may be shared by identical requests (see BodyCache), and
 * what a predicate does to its view stays in that view.
 */
export function requestView(
  request: NormalizedRequest,
  index: number,
  testId: string | undefined,
): MockRequestView {
  let lastUserMessage = ''
  let turn = 0
  const toolCalls: MockToolCallView[] = []
  // Made on the first tool call: most requests carry none.
  let byId: Map<string, MockToolCallView> | undefined
  const toolResults: MockToolResultView[] = []
  const messages: MockMessageView[] = []
  for (const message of request.messages) {
    if (message.role === 'user') lastUserMessage = message.text
    else if (message.role === 'assistant') turn++
    let calls: MockToolCallView[] | undefined
    if (message.toolCalls) {
      calls = []
      for (const given of message.toolCalls) {
        const call = { ...given }
        calls.push(call)
        toolCalls.push(call)
        byId ??= new Map()
        byId.set(call.id, call)
      }
    }
    if (message.toolCallId !== undefined) {
      const call = byId?.get(message.toolCallId)
      toolResults.push({
        callId: message.toolCallId,
        name: call?.name ?? '',
        arguments: call?.arguments ?? '',
        output: message.text,
      })
      messages.push({ ...message, toolName: call?.name })
    } else {
      messages.push(calls ? { ...message, toolCalls: calls } : { ...message })
    }
  }
  return {
    endpoint: request.endpoint,
    model: request.model,
    stream: request.stream,
    messages,
    lastUserMessage,
    toolNames: request.tools.map((t) => t.name),
    toolCalls,
    toolResults,
    turn,
    body: request.body,
    index,
    testId,
  }
}

/** What a script predicate sees of an embeddings request: each text input as a user message. */
export function embeddingsView(
  body: Readonly<Record<string, unknown>>,
  index: number,
  testId: string | undefined,
): MockRequestView {
  const input = body.input
  const inputs =
    typeof input === 'string'
      ? [input]
      : Array.isArray(input)
        ? input.filter((s): s is string => typeof s === 'string')
        : []
  return {
    endpoint: 'embeddings',
    model: typeof body.model === 'string' ? body.model : '',
    stream: false,
    messages: inputs.map((text) => ({ role: 'user', text })),
    lastUserMessage: inputs.at(-1) ?? '',
    toolNames: [],
    toolCalls: [],
    toolResults: [],
    turn: 0,
    body,
    index,
    testId,
  }
}
