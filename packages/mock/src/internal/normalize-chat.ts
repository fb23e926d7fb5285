import { describeValue, isRecord } from '@agent-core/core'
import {
  finish,
  formatOf,
  type NormalizedMessage,
  type NormalizedRequest,
  type NormalizedToolCall,
  optionalInt,
  partsText,
  requireModel,
  textOf,
  toolChoiceOf,
  toolsOf,
} from './normalize.js'
import { badRequest } from './openai-error.js'

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])

/** Validates and normalizes a `POST /v1/chat/completions` body; throws a 400 MockRequestError that says why. */
export function normalizeChatRequest(body: Record<string, unknown>): NormalizedRequest {
  const model = requireModel(body)
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw badRequest(
      `'messages' must be a non-empty array of messages, but got ${describeValue(body.messages)}.`,
      'messages',
    )
  }
  const messages = body.messages.map((m, i): NormalizedMessage => {
    const param = `messages[${i}]`
    if (!isRecord(m) || typeof m.role !== 'string' || !CHAT_ROLES.has(m.role)) {
      throw badRequest(
        `'${param}' must be an object with a role among ${[...CHAT_ROLES].join(', ')}, but got ${describeValue(isRecord(m) ? m.role : m)}.`,
        `${param}.role`,
      )
    }
    let text = partsText(m.content, `${param}.content`, m.role === 'assistant')
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const toolCalls: NormalizedToolCall[] = []
      for (const call of m.tool_calls) {
        if (isRecord(call) && isRecord(call.function)) {
          const name = textOf(call.function.name)
          const args = textOf(call.function.arguments)
          text += `${name}(${args})`
          toolCalls.push({ id: textOf(call.id), name, arguments: args })
        }
      }
      if (toolCalls.length) return { role: m.role, text, toolCalls }
    }
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string')
        throw badRequest(`'${param}.tool_call_id' is required on tool messages.`, `${param}.tool_call_id`)
      return { role: m.role, text, toolCallId: m.tool_call_id }
    }
    return { role: m.role, text }
  })
  const n = body.n
  if (n !== undefined && n !== null && n !== 1)
    throw badRequest(
      `'n' must be 1: MockGPT answers one choice per request, but got ${describeValue(n)}.`,
      'n',
    )
  const stream = body.stream === true
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw badRequest(`'stream' must be a boolean, but got ${describeValue(body.stream)}.`, 'stream')
  }
  if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
    throw badRequest(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    )
  }
  const tools = toolsOf(body.tools, true)
  let stop: string[] = []
  if (typeof body.stop === 'string') stop = [body.stop]
  else if (Array.isArray(body.stop) && body.stop.every((s) => typeof s === 'string'))
    stop = body.stop as string[]
  else if (body.stop !== undefined && body.stop !== null)
    throw badRequest(
      `'stop' must be a string or an array of strings, but got ${describeValue(body.stop)}.`,
      'stop',
    )
  return finish({
    endpoint: 'chat.completions',
    model,
    stream,
    includeUsage: stream && isRecord(body.stream_options) && body.stream_options.include_usage === true,
    messages,
    tools,
    toolChoice: toolChoiceOf(body.tool_choice, tools, 'tool_choice', true),
    parallelToolCalls: body.parallel_tool_calls !== false,
    format: formatOf(body.response_format, 'response_format', true),
    maxOutputTokens: optionalInt(body, 'max_completion_tokens', 1) ?? optionalInt(body, 'max_tokens', 1),
    stop: stop.filter((s) => s !== ''),
    seed: optionalInt(body, 'seed', Number.MIN_SAFE_INTEGER),
    body,
  })
}
