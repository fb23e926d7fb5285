/**
 * Fixtures of the family kit's tests: a chat model that answers from the request after an optional delay
 * (honouring the signal) and records what it was offered, and tools.
 */
import {
  abortedError,
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  type OperationContext,
  throwIfAborted,
} from '@agent-core/core'
import { defineModelTool, type ModelTool } from '@agent-core/core/tools'

/** Waits `ms`, or rejects with core's `AbortedError` when the signal aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal, 'before sleeping')
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedError(signal, 'while sleeping'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface EchoModel extends ChatModel<unknown> {
  readonly requests: ModelRequest[]
}

/**
 * A model that answers `<prefix><last user message>` after `delayMs(request)` ms, reporting
 * `tokensPerCall` tokens (half in, half out).
 */
export function echoModel(
  options: {
    readonly prefix?: string
    readonly delayMs?: (request: ModelRequest) => number
    readonly tokensPerCall?: number
  } = {},
): EchoModel {
  const requests: ModelRequest[] = []
  const tokens = options.tokensPerCall ?? 10
  return {
    identity: 'echo',
    requests,
    async generate(request: ModelRequest, context: OperationContext<unknown>): Promise<ModelResponse> {
      requests.push(request)
      await sleep(options.delayMs?.(request) ?? 0, context.signal)
      const last = [...request.messages].reverse().find((message) => message.role === 'user')
      const text = typeof last?.content === 'string' ? last.content : ''
      return {
        message: { role: 'assistant', content: `${options.prefix ?? ''}${text}` },
        finishReason: 'stop',
        usage: { inputTokens: tokens / 2, outputTokens: tokens / 2, totalTokens: tokens },
      }
    },
  }
}

/** A tool that returns its id. */
export function namedTool(id: string): ModelTool<unknown, string> {
  return defineModelTool<unknown, string>({
    id,
    description: `The ${id} tool`,
    inputSchema: {},
    execute: () => id,
  })
}
