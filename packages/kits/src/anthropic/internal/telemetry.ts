/**
 * The data of a `model-request` span, with the same GenAI-flavoured keys as the OpenAI adapter's (so one
 * OpenTelemetry sink maps both), plus the cache counts.
 */
import type { FinishReason, ModelUsage } from '@agent-core/core'
import type { ModelProviderError } from '@agent-core/kits/models'
import type { AnswerFacts } from './answer.js'
import type { MessagesBody } from './request.js'

/** Where the client sends requests, read once from its base URL. */
export interface ServerAddress {
  readonly serverAddress: string | undefined
  readonly serverPort: number | undefined
}

export function serverAddressOf(baseURL: unknown): ServerAddress {
  if (typeof baseURL !== 'string') return { serverAddress: undefined, serverPort: undefined }
  try {
    const url = new URL(baseURL)
    const port = url.port
      ? Number(url.port)
      : url.protocol === 'https:'
        ? 443
        : url.protocol === 'http:'
          ? 80
          : undefined
    return { serverAddress: url.hostname, serverPort: port }
  } catch {
    return { serverAddress: undefined, serverPort: undefined }
  }
}

/** How many `cache_control` markers a body carries (the breakpoints placed). */
function breakpoints(body: MessagesBody): number {
  let n = 0
  const scan = (blocks: unknown) => {
    if (!Array.isArray(blocks)) return
    for (const block of blocks)
      if ((block as { cache_control?: unknown } | null)?.cache_control !== undefined) n++
  }
  scan(body.tools)
  scan(body.system)
  if (Array.isArray(body.messages)) for (const m of body.messages) scan((m as { content?: unknown }).content)
  return n
}

export function startData(
  provider: string,
  identity: string,
  body: MessagesBody,
  stream: boolean,
  server: ServerAddress,
): Record<string, unknown> {
  const data: Record<string, unknown> = {
    operation: 'chat',
    provider,
    identity,
    requestModel: body.model,
    stream,
  }
  if (server.serverAddress !== undefined) data.serverAddress = server.serverAddress
  if (server.serverPort !== undefined) data.serverPort = server.serverPort
  if (body.temperature !== undefined) data.temperature = body.temperature
  data.maxOutputTokens = body.max_tokens
  if (Array.isArray(body.tools)) data.toolCount = body.tools.length
  if (body.output_config !== undefined) data.responseFormat = 'json_schema'
  const marks = breakpoints(body)
  if (marks > 0) data.cacheBreakpoints = marks
  return data
}

export function endData(
  facts: AnswerFacts,
  finishReason: FinishReason | undefined,
  usage: ModelUsage | undefined,
  requestId: string | undefined,
  events: number | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  if (facts.responseId !== undefined) data.responseId = facts.responseId
  if (facts.responseModel !== undefined) data.responseModel = facts.responseModel
  if (finishReason !== undefined) data.finishReason = finishReason
  if (facts.providerFinishReason !== undefined) data.providerFinishReason = facts.providerFinishReason
  if (usage !== undefined && facts.usageReported) {
    data.inputTokens = usage.inputTokens
    data.outputTokens = usage.outputTokens
    data.totalTokens = usage.totalTokens
    if (usage.cacheReadTokens !== undefined) data.cachedInputTokens = usage.cacheReadTokens
    if (usage.cacheWriteTokens !== undefined) data.cacheWriteTokens = usage.cacheWriteTokens
  }
  data.usageReported = facts.usageReported
  if (requestId !== undefined) data.requestId = requestId
  if (events !== undefined) data.chunks = events
  return data
}

/** Span data for a failure: what an `error.type` attribute needs, beside the core error code and message. */
export function failureData(
  error: unknown,
  facts: AnswerFacts,
  requestId: string | undefined,
  events: number | undefined,
): Record<string, unknown> {
  const data = endData(facts, undefined, undefined, requestId, events)
  const provider = error as Partial<ModelProviderError> | null
  if (provider !== null && typeof provider === 'object' && provider.code === 'provider-error') {
    data.errorKind = provider.kind
    if (provider.status !== undefined) data.status = provider.status
    data.retryable = provider.retryable
  }
  return data
}
