import { describeValue, isRecord } from '@agent-core/core'
import {
  finish,
  formatOf,
  type NormalizedMessage,
  type NormalizedRequest,
  optionalInt,
  partsText,
  requireModel,
  textOf,
  toolChoiceOf,
  toolsOf,
} from './normalize.js'
import { badRequest } from './openai-error.js'

function responsesInput(input: unknown, history: readonly NormalizedMessage[]): NormalizedMessage[] {
  if (typeof input === 'string') return [...history, { role: 'user', text: input }]
  if (!Array.isArray(input))
    throw badRequest(
      `'input' must be a string or an array of input items, but got ${describeValue(input)}.`,
      'input',
    )
  const out: NormalizedMessage[] = [...history]
  input.forEach((item, i) => {
    const param = `input[${i}]`
    if (!isRecord(item))
      throw badRequest(`'${param}' must be an input item object, but got ${describeValue(item)}.`, param)
    if (item.type === undefined || item.type === 'message') {
      if (
        typeof item.role !== 'string' ||
        !['user', 'assistant', 'system', 'developer'].includes(item.role)
      ) {
        throw badRequest(
          `'${param}.role' must be user, assistant, system or developer, but got ${describeValue(item.role)}.`,
          `${param}.role`,
        )
      }
      out.push({ role: item.role, text: partsText(item.content, `${param}.content`, false) })
    } else if (item.type === 'function_call') {
      const call = { id: textOf(item.call_id), name: textOf(item.name), arguments: textOf(item.arguments) }
      const text = `${call.name}(${call.arguments})`
      // Consecutive calls are one assistant turn (parallel calls), as in a chat completion.
      const last = out.at(-1)
      if (
        last?.role === 'assistant' &&
        last.toolCalls &&
        i > 0 &&
        isRecord(input[i - 1]) &&
        (input[i - 1] as Record<string, unknown>).type === 'function_call'
      ) {
        out[out.length - 1] = { ...last, text: last.text + text, toolCalls: [...last.toolCalls, call] }
      } else {
        out.push({ role: 'assistant', text, toolCalls: [call] })
      }
    } else if (item.type === 'function_call_output') {
      if (typeof item.call_id !== 'string')
        throw badRequest(`'${param}.call_id' is required on function_call_output items.`, `${param}.call_id`)
      out.push({
        role: 'tool',
        text: typeof item.output === 'string' ? item.output : (JSON.stringify(item.output) ?? ''),
        toolCallId: item.call_id,
      })
    } else if (item.type === 'reasoning') {
      // Reasoning items carry nothing MockGPT answers from.
    } else {
      throw badRequest(
        `'${param}.type' ${describeValue(item.type)} is not supported by MockGPT; send messages, function_call and function_call_output items.`,
        `${param}.type`,
      )
    }
  })
  return out
}

/**
 * Validates and normalizes a `POST /v1/responses` body; `history` is the conversation of
 * `previous_response_id` when the caller resolved one.
 */
export function normalizeResponsesRequest(
  body: Record<string, unknown>,
  history: readonly NormalizedMessage[],
): NormalizedRequest {
  const model = requireModel(body)
  if (body.input === undefined)
    throw badRequest("'input' is required.", 'input', 'missing_required_parameter')
  const messages = responsesInput(body.input, history)
  if (typeof body.instructions === 'string' && body.instructions !== '')
    messages.unshift({ role: 'system', text: body.instructions })
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw badRequest(`'stream' must be a boolean, but got ${describeValue(body.stream)}.`, 'stream')
  }
  const tools = toolsOf(body.tools, false)
  const text = body.text
  if (text !== undefined && text !== null && !isRecord(text))
    throw badRequest(`'text' must be an object, but got ${describeValue(text)}.`, 'text')
  return finish({
    endpoint: 'responses',
    model,
    stream: body.stream === true,
    includeUsage: true,
    messages,
    tools,
    toolChoice: toolChoiceOf(body.tool_choice, tools, 'tool_choice', false),
    parallelToolCalls: body.parallel_tool_calls !== false,
    format: formatOf(isRecord(text) ? text.format : undefined, 'text.format', false),
    maxOutputTokens: optionalInt(body, 'max_output_tokens', 1),
    stop: [],
    seed: undefined,
    body,
  })
}
