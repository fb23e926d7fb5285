import { describeValue, refuseField } from '@agent-core/core'
import type { AgentUIChunk } from './ui-message-chunk.js'

/**
 * The headers of a UI message stream response (server-sent events, protocol `v1`), as the AI SDK's
 * client expects them.
 * @example
 * ```ts
 * import { UI_MESSAGE_STREAM_HEADERS } from '@agent-core/kits/ui'
 * const isStream = (response: Response) =>
 *   response.headers.get('x-vercel-ai-ui-message-stream') === UI_MESSAGE_STREAM_HEADERS['x-vercel-ai-ui-message-stream']
 * ```
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
})

/**
 * A UI message stream as a streaming `Response` (web-standard: Node, Deno, Bun, edge runtimes): each chunk
 * one server-sent event `data: <json>`, then `data: [DONE]`. What `useChat`'s default transport reads.
 * @throws `InvalidInputError` when `stream` is not a `ReadableStream`
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { toUIMessageStream, toUIMessageStreamResponse } from '@agent-core/kits/ui'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * const response = toUIMessageStreamResponse(toUIMessageStream(agent.stream({ prompt: 'Hi' })))
 * ```
 */
export function toUIMessageStreamResponse(
  stream: ReadableStream<AgentUIChunk>,
  init: ResponseInit = {},
): Response {
  if (!(stream instanceof ReadableStream)) {
    refuseField(
      'input',
      'stream',
      `must be a ReadableStream of UI message chunks (from toUIMessageStream), but got ${describeValue(stream)}`,
      stream,
      { prefix: 'toUIMessageStreamResponse: ' },
    )
  }
  const headers = new Headers(init.headers)
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) {
    if (!headers.has(name)) headers.set(name, value)
  }
  const encoder = new TextEncoder()
  const body = stream.pipeThrough(
    new TransformStream<AgentUIChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`))
      },
      flush(controller) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'))
      },
    }),
  )
  return new Response(body, { ...init, headers })
}
