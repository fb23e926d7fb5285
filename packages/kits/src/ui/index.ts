/**
 * Agent runs on a web page: {@link toUIMessageStream} writes a run's events as the AI SDK UI message
 * stream (`ai` 7.x: text, reasoning, steps, tool inputs, outputs, errors and denials, approval requests,
 * tool progress as data parts, a finish chunk with the run's usage), {@link toUIMessageStreamResponse}
 * sends it as server-sent events, and {@link createChatHandler} is a web-standard fetch handler that runs
 * an agent for a `useChat` request, suspending on approvals and resuming when the page answers. Nothing
 * here loads the AI SDK: the chunks are plain objects its client reads.
 *
 * @example
 * ```ts
 * import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * import { createChatHandler } from '@agent-core/kits/ui'
 *
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * const handle = createChatHandler({ agent })
 * const response = await handle(
 *   new Request('http://localhost/api/chat', {
 *     method: 'POST',
 *     body: JSON.stringify({ id: 'chat-1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] }),
 *   }),
 * )
 * // response.headers.get('content-type') === 'text/event-stream'
 * ```
 *
 * @module
 */
export {
  type ChatHandlerOptions,
  type ChatRequestBody,
  createChatHandler,
} from './chat-handler.js'
export { type ChatRunStore, createMemoryChatRunStore } from './chat-run-store.js'
export { type ChatUIMessage, type ChatUIPart, fromUIMessages } from './from-ui-messages.js'
export { type ToUIMessageStreamOptions, toUIMessageStream } from './to-ui-message-stream.js'
export { toUIMessageStreamResponse, UI_MESSAGE_STREAM_HEADERS } from './to-ui-message-stream-response.js'
export type { AgentUIChunk, AgentUIMetadata, ToolProgressData } from './ui-message-chunk.js'
