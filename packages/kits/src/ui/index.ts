/**
 * Agent runs on a web page: {@link toUIMessageStream} writes a run's events as the AI SDK UI message
 * stream (`ai` 7.x: text, reasoning, steps, tool inputs, outputs, errors and denials, approval requests,
 * tool progress as data parts, a finish chunk with the run's usage), {@link toUIMessageStreamResponse}
 * sends it as server-sent events, and {@link createChatHandler} is a web-standard fetch handler that runs
 * an agent for a `useChat` request, suspending on approvals and resuming when the page answers. The same
 * for AG-UI clients: {@link toAgUiEvents} and {@link createAgUiHandler} (interrupts and resume entries).
 * Nothing here loads the AI SDK or `@ag-ui/core`: the chunks and events are plain objects their clients
 * read.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
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
  type AgUiMessage,
  type AgUiRunInput,
  createAgUiHandler,
  fromAgUiMessages,
} from './ag-ui-handler.js'
export {
  type ChatHandlerOptions,
  type ChatRequestBody,
  createChatHandler,
} from './chat-handler.js'
export { type ChatRunStore, createMemoryChatRunStore } from './chat-run-store.js'
export { type ChatUIMessage, type ChatUIPart, fromUIMessages } from './from-ui-messages.js'
export {
  type AgUiEvent,
  type AgUiInterrupt,
  type AgUiTokenUsage,
  type ToAgUiEventsOptions,
  toAgUiEvents,
} from './to-ag-ui-events.js'
export { type ToUIMessageStreamOptions, toUIMessageStream } from './to-ui-message-stream.js'
export { toUIMessageStreamResponse, UI_MESSAGE_STREAM_HEADERS } from './to-ui-message-stream-response.js'
export type { AgentUIChunk, AgentUIMetadata, ToolProgressData } from './ui-message-chunk.js'
