/**
 * AI SDK answers as core shapes: a `LanguageModelV4GenerateResult` as a `ModelResponse`, and stream parts
 * as `ModelStreamEvent`s (tool inputs keyed by the provider's id become core's indexed tool calls).
 */
import type { FinishReason, ModelResponse, ModelStreamEvent, ModelUsage, ToolCall } from '@agent-core/core'
import type {
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4Warning,
} from '@ai-sdk/provider'
import { toFailure } from './errors.js'

/** Core's finish reason for the AI SDK's unified one (`interrupted` has no core form: `other`). */
export function finishReasonOf(reason: LanguageModelV4FinishReason | undefined): FinishReason {
  switch (reason?.unified) {
    case 'stop':
    case 'length':
    case 'tool-calls':
    case 'content-filter':
    case 'error':
      return reason.unified
    default:
      return 'other'
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0
}

/**
 * Core's usage for the AI SDK's (input and output totals; unreported counts are 0). Cache reads and writes
 * are kept where the provider reports them, as core's `cacheReadTokens` / `cacheWriteTokens`.
 */
export function usageOf(usage: LanguageModelV4Usage | undefined): ModelUsage {
  const inputTokens = count(usage?.inputTokens?.total)
  const outputTokens = count(usage?.outputTokens?.total)
  const result: { -readonly [K in keyof ModelUsage]: ModelUsage[K] } = {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
  }
  const cacheRead = usage?.inputTokens?.cacheRead
  const cacheWrite = usage?.inputTokens?.cacheWrite
  if (cacheRead !== undefined) result.cacheReadTokens = count(cacheRead)
  if (cacheWrite !== undefined) result.cacheWriteTokens = count(cacheWrite)
  return result
}

/** What a call learned beside the answer, for its diagnostics span. */
export interface AnswerFacts {
  warnings: readonly SharedV4Warning[]
  responseId: string | undefined
  responseModel: string | undefined
  providerFinishReason: string | undefined
  cachedInputTokens: number | undefined
  reasoningTokens: number | undefined
}

export function emptyFacts(): AnswerFacts {
  return {
    warnings: [],
    responseId: undefined,
    responseModel: undefined,
    providerFinishReason: undefined,
    cachedInputTokens: undefined,
    reasoningTokens: undefined,
  }
}

function noteUsage(facts: AnswerFacts, usage: LanguageModelV4Usage | undefined): void {
  if (typeof usage?.inputTokens?.cacheRead === 'number') facts.cachedInputTokens = usage.inputTokens.cacheRead
  if (typeof usage?.outputTokens?.reasoning === 'number') facts.reasoningTokens = usage.outputTokens.reasoning
}

/** The whole answer of `doGenerate` as a core response. */
export function readGenerateResult(
  result: LanguageModelV4GenerateResult,
  identity: string,
  facts: AnswerFacts,
): ModelResponse {
  let text = ''
  let thinking = ''
  const toolCalls: ToolCall[] = []
  for (const part of result.content ?? []) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'reasoning') thinking += part.text
    else if (part.type === 'tool-call' && part.providerExecuted !== true)
      toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input })
  }
  facts.warnings = result.warnings ?? []
  facts.responseId = result.response?.id
  facts.responseModel = result.response?.modelId
  facts.providerFinishReason = result.finishReason?.raw
  noteUsage(facts, result.usage)
  return {
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(thinking !== '' ? { thinking } : {}),
    },
    finishReason: finishReasonOf(result.finishReason),
    usage: usageOf(result.usage),
    model: result.response?.modelId ?? identity,
  }
}

interface OpenTool {
  readonly index: number
  readonly id: string
  readonly name: string
  ended: boolean
}

/**
 * Turns stream parts into core events, one part at a time. Tool inputs streamed as start / deltas / end
 * become `tool-call-start` / `tool-call-delta`, and the `tool-call` part that closes them `tool-call-end`
 * (a `tool-call` part without a start is all three at once). An `error` part ends the stream with the
 * mapped failure.
 */
export class PartDecoder {
  readonly facts: AnswerFacts = emptyFacts()
  parts = 0
  finish: Extract<ModelStreamEvent, { type: 'finish' }> | undefined
  usage: ModelUsage | undefined
  readonly #tools = new Map<string, OpenTool>()
  #nextIndex = 0
  readonly #identity: string
  readonly #provider: string
  readonly #signal: AbortSignal

  constructor(identity: string, provider: string, signal: AbortSignal) {
    this.#identity = identity
    this.#provider = provider
    this.#signal = signal
  }

  #open(id: string, name: string, out: ModelStreamEvent[]): OpenTool {
    const tool: OpenTool = { index: this.#nextIndex++, id, name, ended: false }
    this.#tools.set(id, tool)
    out.push({ type: 'tool-call-start', index: tool.index, id, name })
    return tool
  }

  /** Appends the events `part` makes to `out`; throws the mapped failure for an `error` part. */
  read(part: LanguageModelV4StreamPart, out: ModelStreamEvent[]): void {
    this.parts++
    switch (part.type) {
      case 'text-delta':
        if (part.delta !== '') out.push({ type: 'text-delta', text: part.delta })
        return
      case 'reasoning-delta':
        if (part.delta !== '') out.push({ type: 'thinking-delta', text: part.delta })
        return
      case 'tool-input-start':
        if (part.providerExecuted !== true && !this.#tools.has(part.id))
          this.#open(part.id, part.toolName, out)
        return
      case 'tool-input-delta': {
        const tool = this.#tools.get(part.id)
        if (tool !== undefined && !tool.ended && part.delta !== '')
          out.push({ type: 'tool-call-delta', index: tool.index, argumentsDelta: part.delta })
        return
      }
      case 'tool-call': {
        if (part.providerExecuted === true) return
        let tool = this.#tools.get(part.toolCallId)
        if (tool === undefined || tool.ended) {
          tool = this.#open(part.toolCallId, part.toolName, out)
          if (part.input !== '')
            out.push({ type: 'tool-call-delta', index: tool.index, argumentsDelta: part.input })
        }
        tool.ended = true
        out.push({
          type: 'tool-call-end',
          index: tool.index,
          call: { id: tool.id, name: tool.name, arguments: part.input },
        })
        return
      }
      case 'stream-start':
        this.facts.warnings = part.warnings ?? []
        return
      case 'response-metadata':
        if (part.id !== undefined) this.facts.responseId = part.id
        if (part.modelId !== undefined) this.facts.responseModel = part.modelId
        return
      case 'finish': {
        this.facts.providerFinishReason = part.finishReason?.raw
        noteUsage(this.facts, part.usage)
        this.usage = usageOf(part.usage)
        this.finish = {
          type: 'finish',
          finishReason: finishReasonOf(part.finishReason),
          usage: this.usage,
          model: this.facts.responseModel ?? this.#identity,
        }
        return
      }
      case 'error':
        throw toFailure(part.error, this.#signal, this.#provider, 'reading the stream')
      default:
        // text-start / -end, reasoning-start / -end, tool-input-end, sources, files, raw chunks: nothing
        // core's events carry.
        return
    }
  }

  /** Tool inputs the provider opened but never closed with a `tool-call` part. */
  unfinishedTools(): number {
    let open = 0
    for (const tool of this.#tools.values()) if (!tool.ended) open++
    return open
  }
}
