import { setTimeout as sleep } from 'node:timers/promises'
import type { ChatModel, ModelRequest, ModelResponse } from '@agent-core/core'

/**
 * The crash tests' model: for each user message `run <n>` it first calls `lookup`, then answers
 * `answer <n>` once the tool result is in, so every run adds four messages (user, call, result, answer).
 */
export function crashModel(): ChatModel {
  return {
    identity: 'crash-model',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      await sleep(1)
      const last = request.messages[request.messages.length - 1]!
      const run = [...request.messages].reverse().find((m) => m.role === 'user')?.content as string
      const n = run.replace('run ', '')
      const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 }
      if (last.role === 'user')
        return {
          message: {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: `call_${n}`, name: 'lookup', arguments: '{}' }],
          },
          finishReason: 'tool-calls',
          usage,
        }
      return { message: { role: 'assistant', content: `answer ${n}` }, finishReason: 'stop', usage }
    },
  }
}
