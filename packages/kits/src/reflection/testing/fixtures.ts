/** Fixtures of the reflection kit's tests: bindings that answer from a script and keep what they were asked. */
import type { ModelRequest, ModelResponse, OperationContext } from '@agent-core/core'
import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'

/** What a scripted binding answers: text, a response with usage, or a function of the request. */
export type Reply =
  | string
  | ModelResponse
  | ((
      request: ModelRequest,
      context: OperationContext<unknown>,
    ) => string | ModelResponse | Promise<string | ModelResponse>)

/** A reply with a reported usage. */
export function withUsage(content: string, totalTokens: number): ModelResponse {
  const inputTokens = Math.floor(totalTokens / 2)
  return {
    message: { role: 'assistant', content },
    finishReason: 'stop',
    usage: { inputTokens, outputTokens: totalTokens - inputTokens, totalTokens },
  }
}

/** A verdict reply. */
export function verdict(decision: 'accept' | 'revise', ...issues: string[]): string {
  return JSON.stringify({ decision, issues })
}

export interface Scripted {
  readonly models: ModelCalls
  /** Requests per binding id, in order. */
  readonly asked: Record<string, ModelRequest[]>
  target(id: string): { models: ModelCalls; modelId: string; timeoutMs: number }
}

/**
 * A catalog of bindings, each answering its replies in turn (the last one again once they run out, when
 * `repeatLast`), recording every request.
 */
export function scripted(
  scripts: Record<string, readonly Reply[]>,
  options: { repeatLast?: boolean } = {},
): Scripted {
  const asked: Record<string, ModelRequest[]> = {}
  const bindings = Object.entries(scripts).map(([id, replies]) => {
    const queue = [...replies]
    asked[id] = []
    return defineModelBinding({
      id,
      identity: `scripted-${id}`,
      async invoke(request: ModelRequest, context) {
        asked[id]?.push(request)
        const reply = queue.length > 1 || !options.repeatLast ? queue.shift() : queue[0]
        if (reply === undefined) throw new Error(`binding "${id}" has no reply left`)
        return typeof reply === 'function' ? reply(request, context) : reply
      },
    })
  })
  const models = new ModelCalls(bindings)
  return { models, asked, target: (id) => ({ models, modelId: id, timeoutMs: 10_000 }) }
}

/** The text of a request's last message. */
export function lastText(request: ModelRequest | undefined): string {
  const content = request?.messages.at(-1)?.content
  return typeof content === 'string' ? content : ''
}
