/**
 * The data of a `model-request` span: GenAI-flavoured fields (operation, provider, request and response
 * model, token usage, finish reason, server address) under camelCase keys, which an OpenTelemetry sink
 * maps one to one onto the `gen_ai.*` / `server.*` attributes (docs/design/openai.md lists the mapping).
 */
import type { FinishReason } from '@agent-core/core'
import type { ModelProviderError } from '@agent-core/kits/models'
import type { AnswerFacts } from './answer.js'
import type { ChatCompletionBody } from './request.js'

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

export function startData(
  provider: string,
  identity: string,
  body: ChatCompletionBody,
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
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (maxTokens !== undefined) data.maxOutputTokens = maxTokens
  if (body.seed !== undefined) data.seed = body.seed
  if (Array.isArray(body.tools)) data.toolCount = body.tools.length
  const format = (body.response_format as { type?: unknown } | undefined)?.type
  if (typeof format === 'string') data.responseFormat = format
  return data
}

export function endData(
  facts: AnswerFacts,
  finishReason: FinishReason | undefined,
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | undefined,
  requestId: string | undefined,
  chunks: number | undefined,
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
  }
  data.usageReported = facts.usageReported
  if (facts.cachedInputTokens !== undefined) data.cachedInputTokens = facts.cachedInputTokens
  if (facts.reasoningTokens !== undefined) data.reasoningTokens = facts.reasoningTokens
  if (facts.systemFingerprint !== undefined) data.systemFingerprint = facts.systemFingerprint
  if (requestId !== undefined) data.requestId = requestId
  if (chunks !== undefined) data.chunks = chunks
  return data
}

/** Span data for a failure: what an `error.type` attribute needs, beside the core error code and message. */
export function failureData(
  error: unknown,
  facts: AnswerFacts,
  requestId: string | undefined,
  chunks: number | undefined,
): Record<string, unknown> {
  const data = endData(facts, undefined, undefined, requestId, chunks)
  const provider = error as Partial<ModelProviderError> | null
  if (provider !== null && typeof provider === 'object' && provider.code === 'provider-error') {
    data.errorKind = provider.kind
    if (provider.status !== undefined) data.status = provider.status
    data.retryable = provider.retryable
  }
  return data
}
