/**
 * A small fetch-based chat binding for tests: OpenAI-compatible chat completions over real HTTP, throwing
 * ModelProviderError for every provider failure, as every HTTP binding must. Private to the tests.
 */
import { abortedError, type ModelRequest, type ModelResponse } from '@agent-core/core'
import { defineModelBinding, type ModelBinding, ModelProviderError } from '../../index.js'

export function fetchChatBinding<const Id extends string>(options: {
  readonly id: Id
  readonly baseURL: string
  readonly identity?: string
}): ModelBinding<ModelRequest, ModelResponse, unknown, Id> {
  const identity = options.identity ?? 'gpt-4o-mini'
  return defineModelBinding({
    id: options.id,
    identity,
    async invoke(request: ModelRequest, context) {
      let response: Response
      try {
        response = await fetch(`${options.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: identity,
            messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
            ...(request.responseFormat?.type === 'json_schema'
              ? {
                  response_format: {
                    type: 'json_schema',
                    json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema },
                  },
                }
              : request.responseFormat?.type === 'json_object'
                ? { response_format: { type: 'json_object' } }
                : {}),
          }),
          signal: context.signal,
        })
      } catch (error) {
        if (context.signal.aborted) throw abortedError(context.signal, 'sending the chat request')
        throw new ModelProviderError('The chat request failed before an answer arrived.', {
          kind: 'network',
          cause: error,
        })
      }
      if (!response.ok) throw await ModelProviderError.fromResponse(response, { provider: 'mockgpt' })
      let body: {
        choices: { message: { content: string | null } }[]
        usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
      }
      try {
        body = await response.json()
      } catch (error) {
        if (context.signal.aborted) throw abortedError(context.signal, 'reading the chat answer')
        throw new ModelProviderError('The chat answer could not be read (cut short or not JSON).', {
          kind: 'invalid-response',
          cause: error,
        })
      }
      return {
        message: { role: 'assistant', content: body.choices[0]?.message.content ?? '' },
        finishReason: 'stop',
        usage: {
          inputTokens: body.usage.prompt_tokens,
          outputTokens: body.usage.completion_tokens,
          totalTokens: body.usage.total_tokens,
        },
      }
    },
  })
}
