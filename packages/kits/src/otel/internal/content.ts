/**
 * Message content in the shape of the GenAI conventions' `gen_ai.input.messages` /
 * `gen_ai.output.messages` JSON schemas (semantic-conventions 1.45.0): `{ role, parts: [...] }`, with
 * text, reasoning, tool_call, tool_call_response and uri parts, and `finish_reason` on output messages.
 */
import type { ChatMessage, ModelResponse } from '@agent-core/core'

type Part = Readonly<Record<string, unknown>>
export interface ContentMessage {
  readonly role: string
  readonly parts: readonly Part[]
  readonly finish_reason?: string
}

/** Tool-call arguments as an object when they parse as JSON, else the raw text the model produced. */
function argumentsOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function assistantParts(content: string, thinking: string | undefined, calls: readonly unknown[]): Part[] {
  const parts: Part[] = []
  if (thinking) parts.push({ type: 'reasoning', content: thinking })
  if (content !== '') parts.push({ type: 'text', content })
  for (const call of calls) {
    const { id, name, arguments: args } = call as { id?: unknown; name?: unknown; arguments?: unknown }
    parts.push({
      type: 'tool_call',
      id,
      name,
      arguments: typeof args === 'string' ? argumentsOf(args) : args,
    })
  }
  return parts
}

/** One chat message in the GenAI shape; unknown shapes are kept as a text part of their JSON. */
export function contentMessage(message: ChatMessage): ContentMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', parts: [{ type: 'text', content: message.content }] }
    case 'user':
      return {
        role: 'user',
        parts:
          typeof message.content === 'string'
            ? [{ type: 'text', content: message.content }]
            : message.content.map((part) =>
                part.type === 'text'
                  ? { type: 'text', content: part.text }
                  : { type: 'uri', modality: 'image', uri: part.url },
              ),
      }
    case 'assistant':
      return {
        role: 'assistant',
        parts: assistantParts(message.content, message.thinking, message.toolCalls ?? []),
      }
    case 'tool':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.toolCallId, result: message.content }],
      }
    default:
      return { role: String((message as { role?: unknown }).role), parts: [] }
  }
}

/** The reply as a GenAI output message. */
export function outputMessage(response: ModelResponse): ContentMessage {
  const { message } = response
  return {
    role: 'assistant',
    parts: assistantParts(message.content, message.thinking, message.toolCalls ?? []),
    finish_reason: response.finishReason.replaceAll('-', '_'),
  }
}
