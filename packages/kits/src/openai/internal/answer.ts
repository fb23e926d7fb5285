/**
 * Reading what the server answered: finish reasons, usage, reasoning text, and a whole (non-streamed)
 * completion. Anything that is not the promised shape is a `ModelProviderError` of kind
 * `invalid-response`, never a silently empty answer.
 */
import type { AssistantMessage, FinishReason, ModelResponse, ModelUsage, ToolCall } from '@agent-core/core'
import { malformedAnswer } from './errors.js'

/** Facts about one answer that diagnostics report (GenAI-style) beside the ModelResponse. */
export interface AnswerFacts {
  responseId: string | undefined
  responseModel: string | undefined
  /** The server's own finish reason, before mapping. */
  providerFinishReason: string | undefined
  usageReported: boolean
  cachedInputTokens: number | undefined
  reasoningTokens: number | undefined
  systemFingerprint: string | undefined
}

export function emptyFacts(): AnswerFacts {
  return {
    responseId: undefined,
    responseModel: undefined,
    providerFinishReason: undefined,
    usageReported: false,
    cachedInputTokens: undefined,
    reasoningTokens: undefined,
    systemFingerprint: undefined,
  }
}

/** The core finish reason for an OpenAI one; calls present with a plain `stop` are a tool-calls finish. */
export function finishReasonOf(reason: string, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop'
    case 'length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    case 'content_filter':
      return 'content-filter'
    default:
      return hasToolCalls ? 'tool-calls' : 'other'
  }
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/**
 * Reads an OpenAI `usage` object into `facts` and returns the core usage, or `undefined` for a usage the
 * server did not send. A usage that is there but unreadable is an error.
 */
export function readUsage(usage: unknown, provider: string, facts: AnswerFacts): ModelUsage | undefined {
  if (usage === undefined || usage === null) return undefined
  const record = usage as Record<string, unknown>
  const inputTokens = typeof usage === 'object' ? count(record.prompt_tokens) : undefined
  const outputTokens = typeof usage === 'object' ? count(record.completion_tokens) : undefined
  if (inputTokens === undefined || outputTokens === undefined) {
    throw malformedAnswer(provider, 'a usage object with prompt_tokens and completion_tokens', usage)
  }
  facts.usageReported = true
  facts.cachedInputTokens = count(
    (record.prompt_tokens_details as { cached_tokens?: unknown } | null)?.cached_tokens,
  )
  facts.reasoningTokens = count(
    (record.completion_tokens_details as { reasoning_tokens?: unknown } | null)?.reasoning_tokens,
  )
  return { inputTokens, outputTokens, totalTokens: count(record.total_tokens) ?? inputTokens + outputTokens }
}

/**
 * The reasoning text of a message or delta: `reasoning_content` (DeepSeek, vLLM, MockGPT) or `reasoning`
 * (OpenRouter, Ollama, newer vLLM). Servers that send both send the same text; one is taken.
 */
export function reasoningOf(source: Record<string, unknown>): string | undefined {
  const content = source.reasoning_content
  if (typeof content === 'string' && content !== '') return content
  const reasoning = source.reasoning
  if (typeof reasoning === 'string' && reasoning !== '') return reasoning
  return undefined
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Reads a non-streamed chat completion. */
export function readCompletion(completion: unknown, provider: string, facts: AnswerFacts): ModelResponse {
  if (typeof completion !== 'object' || completion === null) {
    throw malformedAnswer(provider, 'a chat completion object', completion)
  }
  const body = completion as Record<string, unknown>
  facts.responseId = optionalString(body.id)
  facts.responseModel = optionalString(body.model)
  facts.systemFingerprint = optionalString(body.system_fingerprint)
  const choices = body.choices
  const choice = Array.isArray(choices) ? (choices[0] as Record<string, unknown> | undefined) : undefined
  const message = choice?.message as Record<string, unknown> | undefined
  if (typeof choice !== 'object' || choice === null || typeof message !== 'object' || message === null) {
    throw malformedAnswer(provider, 'a completion with one choice holding a message', choices)
  }
  const content = message.content
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw malformedAnswer(provider, 'message content as a string or null', content)
  }
  const refusal = message.refusal
  const text = typeof content === 'string' ? content : typeof refusal === 'string' ? refusal : ''
  const toolCalls = readToolCalls(message.tool_calls, provider)
  const reason = choice.finish_reason
  if (typeof reason !== 'string' || reason === '') {
    throw malformedAnswer(provider, 'a finish_reason on the choice (the answer may be incomplete)', reason)
  }
  facts.providerFinishReason = reason
  const usage = readUsage(body.usage, provider, facts)
  const thinking = reasoningOf(message)
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: text,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(thinking === undefined ? {} : { thinking }),
  }
  return {
    message: assistant,
    finishReason: finishReasonOf(reason, toolCalls.length > 0),
    usage: usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    ...(facts.responseModel === undefined ? {} : { model: facts.responseModel }),
  }
}

function readToolCalls(value: unknown, provider: string): ToolCall[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw malformedAnswer(provider, 'tool_calls as an array', value)
  return value.map((call: unknown) => {
    const record = call as Record<string, unknown> | null
    const fn = record?.function as Record<string, unknown> | undefined
    if (
      typeof record !== 'object' ||
      record === null ||
      typeof fn !== 'object' ||
      fn === null ||
      typeof fn.name !== 'string' ||
      fn.name === '' ||
      (fn.arguments !== undefined && typeof fn.arguments !== 'string') ||
      (record.id !== undefined && typeof record.id !== 'string')
    ) {
      throw malformedAnswer(provider, 'a function tool call { id, function: { name, arguments } }', call)
    }
    return {
      id: typeof record.id === 'string' && record.id !== '' ? record.id : syntheticCallId(),
      name: fn.name,
      arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
    }
  })
}

/**
 * An id for a call the server sent without one (a few OpenAI-compatible servers do). Random, so calls of
 * different turns never share an id: tool results and approvals are keyed by it.
 */
export function syntheticCallId(): string {
  const bytes = new Uint8Array(12)
  globalThis.crypto.getRandomValues(bytes)
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return `call_${hex}`
}
