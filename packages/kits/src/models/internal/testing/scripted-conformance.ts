/**
 * The loop's scripted model as a conformance backend: each conformance reply becomes a scripted turn
 * (errors as the `ModelProviderError` a provider adapter would throw, a hang as a turn that waits for the
 * caller's signal). A private helper of this repository's tests.
 */
import { abortedError, type ChatMessage } from '@agent-core/core'
import { createScriptedModel, type ScriptedTurn } from '@agent-core/kits/loop/testing'
import { ModelProviderError } from '@agent-core/kits/models'
import {
  type ChatModelConformanceHarness,
  type ConformanceReply,
  toolResultsText,
} from '@agent-core/kits/models/testing'

/** The tool results of a conversation, each with the name of the call it answers. */
function resultsOf(messages: readonly ChatMessage[]): { name: string; output: string }[] {
  const names = new Map<string, string>()
  const out: { name: string; output: string }[] = []
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) names.set(call.id, call.name)
    if (message.role === 'tool')
      out.push({ name: names.get(message.toolCallId) ?? '', output: message.content })
  }
  return out
}

function turnOf(reply: ConformanceReply): ScriptedTurn {
  switch (reply.type) {
    case 'text':
      return { text: reply.text, thinking: reply.reasoning, finishReason: reply.finishReason }
    case 'tool-calls':
      return { toolCalls: reply.calls.map((call) => ({ name: call.name, input: call.arguments })) }
    case 'json':
      return { text: JSON.stringify(reply.value) }
    case 'tool-results':
      return (request) => ({ text: toolResultsText(resultsOf(request.messages)) })
    case 'error': {
      const headers: Record<string, string> = {}
      if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs)
      if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds)
      return {
        error: ModelProviderError.fromHttp({
          status: reply.status,
          headers,
          message: reply.message ?? `scripted ${reply.status}`,
          provider: 'scripted',
        }),
      }
    }
    case 'hang':
      return (_request, context) =>
        new Promise<ScriptedTurn>((_resolve, reject) => {
          const { signal } = context
          if (signal.aborted) reject(abortedError(signal, 'while the scripted backend hung'))
          signal.addEventListener(
            'abort',
            () => reject(abortedError(signal, 'while the scripted backend hung')),
            {
              once: true,
            },
          )
        })
    case 'disconnect':
      throw new Error('the scripted model cannot drop a stream midway; declare disconnects: false')
  }
}

/** A harness over a scripted model that plays `replies`; `close` fails when turns were left unused. */
export function scriptedHarness(
  replies: readonly ConformanceReply[],
  options: { readonly stream?: boolean } = {},
): ChatModelConformanceHarness {
  const model = createScriptedModel(replies.map(turnOf), {
    identity: 'scripted',
    stream: options.stream ?? true,
  })
  return { model, close: async () => model.assertDone() }
}
