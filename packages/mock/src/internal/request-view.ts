import type { MockRequestView } from '../script.js'
import type { NormalizedRequest } from './normalize.js'

/** What a script predicate sees of a chat-completions or Responses request. */
export function requestView(request: NormalizedRequest, index: number): MockRequestView {
  let lastUserMessage = ''
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]
    if (message?.role === 'user') {
      lastUserMessage = message.text
      break
    }
  }
  return {
    endpoint: request.endpoint,
    model: request.model,
    stream: request.stream,
    messages: request.messages,
    lastUserMessage,
    toolNames: request.tools.map((t) => t.name),
    body: request.body,
    index,
  }
}

/** What a script predicate sees of an embeddings request: each text input as a user message. */
export function embeddingsView(body: Readonly<Record<string, unknown>>, index: number): MockRequestView {
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
    body,
    index,
  }
}
