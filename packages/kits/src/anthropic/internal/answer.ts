/**
 * Reading what the Messages API answered: stop reasons, usage (cache reads and writes included), and a
 * whole (non-streamed) message. Anything that is not the promised shape is a `ModelProviderError` of kind
 * `invalid-response`, never a silently empty answer.
 */
import type {
  AssistantMessage,
  FinishReason,
  ModelResponse,
  ModelUsage,
  ThinkingBlock,
  ToolCall,
} from '@agent-core/core'
import { malformedAnswer } from './errors.js'
import { JSON_TOOL_NAME } from './request.js'

/** Facts about one answer that diagnostics report beside the ModelResponse. */
export interface AnswerFacts {
  responseId: string | undefined
  responseModel: string | undefined
  /** The API's own stop reason, before mapping. */
  providerFinishReason: string | undefined
  usageReported: boolean
}

export function emptyFacts(): AnswerFacts {
  return {
    responseId: undefined,
    responseModel: undefined,
    providerFinishReason: undefined,
    usageReported: false,
  }
}

/** The core finish reason for an Anthropic stop reason. */
export function finishReasonOf(reason: string, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return hasToolCalls ? 'tool-calls' : 'stop'
    case 'tool_use':
      return 'tool-calls'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'content-filter'
    default:
      // pause_turn and reasons newer than this adapter.
      return hasToolCalls ? 'tool-calls' : 'other'
  }
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/** The token counts of an Anthropic `usage` object, as they arrive (each may be left out). */
export interface WireUsage {
  input: number | undefined
  output: number | undefined
  cacheRead: number | undefined
  cacheWrite: number | undefined
}

export function emptyWireUsage(): WireUsage {
  return { input: undefined, output: undefined, cacheRead: undefined, cacheWrite: undefined }
}

/** Reads the fields `usage` carries into `into` (a later event's counts replace earlier ones). */
export function mergeUsage(usage: unknown, into: WireUsage, provider: string): void {
  if (usage === undefined || usage === null) return
  if (typeof usage !== 'object') throw malformedAnswer(provider, 'a usage object', usage)
  const record = usage as Record<string, unknown>
  const fields = [
    ['input', record.input_tokens],
    ['output', record.output_tokens],
    ['cacheRead', record.cache_read_input_tokens],
    ['cacheWrite', record.cache_creation_input_tokens],
  ] as const
  for (const [key, value] of fields) {
    if (value === undefined || value === null) continue
    const n = count(value)
    if (n === undefined)
      throw malformedAnswer(provider, 'token counts as integers of at least 0 in usage', usage)
    into[key] = n
  }
}

/**
 * The core usage: `inputTokens` counts every input token (the API's `input_tokens` leaves out the cached
 * ones), and the cache counts are kept when the API reported them.
 */
export function coreUsage(wire: WireUsage, facts: AnswerFacts): ModelUsage {
  facts.usageReported = wire.input !== undefined || wire.output !== undefined
  const inputTokens = (wire.input ?? 0) + (wire.cacheRead ?? 0) + (wire.cacheWrite ?? 0)
  const outputTokens = wire.output ?? 0
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(wire.cacheRead === undefined ? {} : { cacheReadTokens: wire.cacheRead }),
    ...(wire.cacheWrite === undefined ? {} : { cacheWriteTokens: wire.cacheWrite }),
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A `tool_use` input as the raw JSON text core's tool calls carry. */
export function argumentsOf(input: unknown): string {
  return input === undefined || input === null ? '{}' : JSON.stringify(input)
}

/** Reads a non-streamed Messages API `message`. */
export function readMessage(
  message: unknown,
  provider: string,
  facts: AnswerFacts,
  json = false,
): ModelResponse {
  if (typeof message !== 'object' || message === null) {
    throw malformedAnswer(provider, 'a message object', message)
  }
  const body = message as Record<string, unknown>
  facts.responseId = optionalString(body.id)
  facts.responseModel = optionalString(body.model)
  const content = body.content
  if (!Array.isArray(content))
    throw malformedAnswer(provider, 'message content as an array of blocks', content)
  let text = ''
  let thinking = ''
  const blocks: ThinkingBlock[] = []
  const toolCalls: ToolCall[] = []
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null)
      throw malformedAnswer(provider, 'a content block object', block)
    const b = block as Record<string, unknown>
    switch (b.type) {
      case 'text':
        if (typeof b.text !== 'string') throw malformedAnswer(provider, 'a text block with text', block)
        text += b.text
        break
      case 'thinking':
        if (typeof b.thinking !== 'string')
          throw malformedAnswer(provider, 'a thinking block with thinking', block)
        thinking += b.thinking
        blocks.push(
          typeof b.signature === 'string' && b.signature !== ''
            ? { text: b.thinking, signature: b.signature }
            : { text: b.thinking },
        )
        break
      case 'redacted_thinking':
        if (typeof b.data !== 'string')
          throw malformedAnswer(provider, 'a redacted_thinking block with data', block)
        blocks.push({ text: '', redacted: b.data })
        break
      case 'tool_use':
        // A `json_object` answer: the forced JSON tool's input is the text.
        if (json && b.name === JSON_TOOL_NAME) {
          text += argumentsOf(b.input)
          break
        }
        if (typeof b.id !== 'string' || b.id === '' || typeof b.name !== 'string' || b.name === '') {
          throw malformedAnswer(provider, 'a tool_use block { id, name, input }', block)
        }
        toolCalls.push({ id: b.id, name: b.name, arguments: argumentsOf(b.input) })
        break
      default:
      // Server tool blocks and block types newer than this adapter carry nothing core keeps.
    }
  }
  const reason = body.stop_reason
  if (typeof reason !== 'string' || reason === '') {
    throw malformedAnswer(provider, 'a stop_reason on the message (the answer may be incomplete)', reason)
  }
  facts.providerFinishReason = reason
  const wire = emptyWireUsage()
  mergeUsage(body.usage, wire, provider)
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: text,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(thinking === '' ? {} : { thinking }),
    ...(blocks.length ? { thinkingBlocks: blocks } : {}),
  }
  return {
    message: assistant,
    finishReason:
      json && reason === 'tool_use' && toolCalls.length === 0
        ? 'stop'
        : finishReasonOf(reason, toolCalls.length > 0),
    usage: coreUsage(wire, facts),
    ...(facts.responseModel === undefined ? {} : { model: facts.responseModel }),
  }
}
