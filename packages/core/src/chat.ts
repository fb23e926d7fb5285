import type { OperationContext } from './context.js'
import type { JsonSchema } from './json-schema.js'

/**
 * Provider-neutral chat shapes shared by the loop, ModelCalls, the OpenAI adapter and MockGPT.
 * Field names are camelCase; adapters translate to and from a provider's wire format.
 */

/**
 * A text part of a user message.
 * @example
 * ```ts
 * import type { TextPart } from '@agent-core/core'
 * const part: TextPart = { type: 'text', text: 'What is on this picture?' }
 * ```
 */
export interface TextPart {
  readonly type: 'text'
  readonly text: string
}
/**
 * An image part of a user message, by URL or data URL.
 * @example
 * ```ts
 * import type { ImagePart } from '@agent-core/core'
 * const part: ImagePart = { type: 'image', url: 'https://example.com/cat.png' }
 * ```
 */
export interface ImagePart {
  readonly type: 'image'
  readonly url: string
}
/**
 * The parts a user message may carry.
 * @example
 * ```ts
 * import type { ContentPart } from '@agent-core/core'
 * const parts: ContentPart[] = [
 *   { type: 'text', text: 'Describe this.' },
 *   { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
 * ]
 * ```
 */
export type ContentPart = TextPart | ImagePart

/**
 * A tool call the model asked for. `arguments` is the raw JSON text the model produced (parse and validate
 * it before use: a model can produce anything).
 * @example
 * ```ts
 * import type { ToolCall } from '@agent-core/core'
 * const call: ToolCall = { id: 'call_1', name: 'search', arguments: '{"query":"tides"}' }
 * const input: unknown = JSON.parse(call.arguments)
 * ```
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * The instructions of a conversation.
 * @example
 * ```ts
 * import type { SystemMessage } from '@agent-core/core'
 * const system: SystemMessage = { role: 'system', content: 'Answer in one sentence.' }
 * ```
 */
export interface SystemMessage {
  readonly role: 'system'
  readonly content: string
}
/**
 * What the user said: plain text, or parts (text and images).
 * @example
 * ```ts
 * import type { UserMessage } from '@agent-core/core'
 * const question: UserMessage = { role: 'user', content: 'When is high tide in Brest?' }
 * ```
 */
export interface UserMessage {
  readonly role: 'user'
  readonly content: string | readonly ContentPart[]
}
/**
 * One block of the model's reasoning as the provider returned it, kept so that a next turn can send it
 * back verbatim: Anthropic checks the `signature` of the thinking blocks it receives, and sends `redacted`
 * (encrypted) reasoning that only it can read. Adapters of providers without such blocks leave them out.
 * @example
 * ```ts
 * import type { ThinkingBlock } from '@agent-core/core'
 * const block: ThinkingBlock = { text: 'The user wants the tide in Brest.', signature: 'EqQBCgIYAhIM...' }
 * ```
 */
export interface ThinkingBlock {
  /** The reasoning text (empty for a redacted block). */
  readonly text: string
  /** The provider's signature over `text`, sent back unchanged. */
  readonly signature?: string | undefined
  /** Encrypted reasoning the provider sent instead of text (Anthropic's `redacted_thinking.data`). */
  readonly redacted?: string | undefined
}

/**
 * What the model answered: text, and the tool calls it asked for.
 * @example
 * ```ts
 * import type { AssistantMessage } from '@agent-core/core'
 * const answer: AssistantMessage = {
 *   role: 'assistant',
 *   content: '',
 *   toolCalls: [{ id: 'call_1', name: 'tides', arguments: '{"port":"Brest"}' }],
 * }
 * ```
 */
export interface AssistantMessage {
  readonly role: 'assistant'
  /** The visible text; empty when the turn only called tools. */
  readonly content: string
  readonly toolCalls?: readonly ToolCall[] | undefined
  /** Reasoning text, when the provider exposes it. */
  readonly thinking?: string | undefined
  /**
   * The reasoning as the provider's own blocks (text with its signature, or redacted data), in order, for
   * adapters that must send them back on the next turn (Anthropic). `thinking` stays the readable text.
   */
  readonly thinkingBlocks?: readonly ThinkingBlock[] | undefined
}
/**
 * The result of one tool call, sent back to the model.
 * @example
 * ```ts
 * import type { ToolMessage } from '@agent-core/core'
 * const result: ToolMessage = { role: 'tool', toolCallId: 'call_1', content: '{"highTide":"14:32"}' }
 * ```
 */
export interface ToolMessage {
  readonly role: 'tool'
  readonly toolCallId: string
  readonly content: string
  /** True when `content` describes a failure the model should read. */
  readonly isError?: boolean | undefined
}
/**
 * One message of a conversation.
 * @example
 * ```ts
 * import type { ChatMessage } from '@agent-core/core'
 * const history: ChatMessage[] = [
 *   { role: 'system', content: 'Be brief.' },
 *   { role: 'user', content: 'Hello' },
 *   { role: 'assistant', content: 'Hi!' },
 * ]
 * ```
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * A tool as offered to a model: its name, what it does, and the JSON Schema of its arguments.
 * @example
 * ```ts
 * import type { ToolSpec } from '@agent-core/core'
 * const tides: ToolSpec = {
 *   name: 'tides',
 *   description: 'High and low tide times of a port, today',
 *   parameters: { type: 'object', required: ['port'], properties: { port: { type: 'string' } } },
 * }
 * ```
 */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
}

/**
 * Whether and which tool the model must call.
 * @example
 * ```ts
 * import type { ToolChoice } from '@agent-core/core'
 * const mustSearch: ToolChoice = { name: 'search' }
 * ```
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string }

/**
 * The shape of the answer.
 * @example
 * ```ts
 * import type { ResponseFormat } from '@agent-core/core'
 * const format: ResponseFormat = {
 *   type: 'json_schema',
 *   name: 'verdict',
 *   schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } },
 * }
 * ```
 */
export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema'
      readonly name: string
      readonly schema: JsonSchema
      readonly strict?: boolean
    }

/**
 * One request to a chat model.
 * @example
 * ```ts
 * import type { ModelRequest } from '@agent-core/core'
 * const request: ModelRequest = {
 *   model: 'gpt-4o-mini',
 *   messages: [{ role: 'user', content: 'Hello' }],
 *   temperature: 0,
 *   maxOutputTokens: 200,
 * }
 * ```
 */
export interface ModelRequest {
  readonly model?: string | undefined
  readonly messages: readonly ChatMessage[]
  readonly tools?: readonly ToolSpec[] | undefined
  readonly toolChoice?: ToolChoice | undefined
  readonly responseFormat?: ResponseFormat | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly seed?: number | undefined
  readonly stop?: readonly string[] | undefined
  readonly parallelToolCalls?: boolean | undefined
}

/**
 * Token counts of one response (or a sum of several, see {@link addUsage}). `inputTokens` counts every
 * input token, cached or not; `cacheReadTokens` and `cacheWriteTokens` say how many of them the
 * provider's prompt cache served or stored, when it reports that.
 * @example
 * ```ts
 * import type { ModelUsage } from '@agent-core/core'
 * const usage: ModelUsage = { inputTokens: 1200, outputTokens: 30, totalTokens: 1230, cacheReadTokens: 1024 }
 * ```
 */
export interface ModelUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  readonly cacheReadTokens?: number | undefined
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`). */
  readonly cacheWriteTokens?: number | undefined
}

/**
 * Why the model stopped.
 * @example
 * ```ts
 * import type { FinishReason } from '@agent-core/core'
 * const cutShort: readonly FinishReason[] = ['length', 'content-filter']
 * ```
 */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other'

/**
 * A complete, non-streamed answer.
 * @example
 * ```ts
 * import type { ModelResponse } from '@agent-core/core'
 * const response: ModelResponse = {
 *   message: { role: 'assistant', content: 'Hi!' },
 *   finishReason: 'stop',
 *   usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
 * }
 * ```
 */
export interface ModelResponse {
  readonly message: AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: ModelUsage
  readonly model?: string | undefined
}

/**
 * One streamed event. Tool calls arrive as start, argument deltas, then end, keyed by `index`; the last
 * event is `finish`. {@link collectModelStream} folds a stream into a {@link ModelResponse}.
 * @example
 * ```ts
 * import type { ModelStreamEvent } from '@agent-core/core'
 * const events: ModelStreamEvent[] = [
 *   { type: 'text-delta', text: 'Hel' },
 *   { type: 'text-delta', text: 'lo' },
 *   { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
 * ]
 * ```
 */
export type ModelStreamEvent =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'thinking-delta'; readonly text: string }
  | { readonly type: 'thinking-end'; readonly block: ThinkingBlock }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'tool-call-end'; readonly index: number; readonly call: ToolCall }
  | {
      readonly type: 'finish'
      readonly finishReason: FinishReason
      readonly usage: ModelUsage
      readonly model?: string | undefined
    }

/**
 * A chat model as the loop and ModelCalls use it: `generate` for a whole answer, optionally `stream`.
 * @example
 * ```ts
 * import type { ChatModel } from '@agent-core/core'
 * const echo: ChatModel = {
 *   identity: 'echo-1',
 *   async generate(request) {
 *     const last = request.messages.at(-1)
 *     const text = typeof last?.content === 'string' ? last.content : ''
 *     return {
 *       message: { role: 'assistant', content: text },
 *       finishReason: 'stop',
 *       usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
 *     }
 *   },
 * }
 * ```
 */
export interface ChatModel<App = unknown> {
  /** The real model identity, e.g. `gpt-4o-mini`. */
  readonly identity: string
  generate(request: ModelRequest, context: OperationContext<App>): Promise<ModelResponse>
  stream?(request: ModelRequest, context: OperationContext<App>): AsyncIterable<ModelStreamEvent>
}

/**
 * Adds two usages field by field (for the total of several calls).
 * @example
 * ```ts
 * import { addUsage, ZERO_USAGE } from '@agent-core/core'
 * const total = [{ inputTokens: 3, outputTokens: 2, totalTokens: 5 }].reduce(addUsage, ZERO_USAGE)
 * ```
 */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  const sum: {
    inputTokens: number
    outputTokens: number
    totalTokens: number
    cacheReadTokens?: number
    cacheWriteTokens?: number
  } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) {
    sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0)
  }
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) {
    sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0)
  }
  return sum
}

/**
 * Zero usage (frozen): the start of a sum, and the usage of a stream that reported none.
 * @example
 * ```ts
 * import { ZERO_USAGE } from '@agent-core/core'
 * ZERO_USAGE.totalTokens // 0
 * ```
 */
export const ZERO_USAGE: ModelUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/**
 * Folds a model stream, one event at a time, into the reply it describes: text and thinking concatenated,
 * thinking blocks kept in order, tool calls by index with their argument deltas joined (a call's
 * `tool-call-end` gives its final form), and the finish event's reason, usage and model. It is the one fold
 * of a stream that core, the loop, the OpenTelemetry sink and the model adapters share: an adapter feeds
 * it the events it emits (and reads its calls back for `tool-call-end`), a consumer the events it reads.
 * It trusts the events' shapes; a consumer that reads an untrusted model checks them first.
 * @example
 * ```ts
 * import { ModelStreamAccumulator } from '@agent-core/core'
 * const reply = new ModelStreamAccumulator()
 * reply.add({ type: 'text-delta', text: 'Hel' })
 * reply.add({ type: 'text-delta', text: 'lo' })
 * reply.add({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } })
 * const response = reply.response() // { message: { role: 'assistant', content: 'Hello' }, finishReason: 'stop', … }
 * ```
 */
export class ModelStreamAccumulator {
  /** The text so far. */
  text = ''
  /** The thinking text so far. */
  thinking = ''
  /** The thinking blocks ended so far, in order. */
  readonly thinkingBlocks: ThinkingBlock[] = []
  /** The finish event, once it arrived. */
  finish: Extract<ModelStreamEvent, { type: 'finish' }> | undefined
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>()

  /** Folds one event. */
  add(event: ModelStreamEvent): void {
    switch (event.type) {
      case 'text-delta':
        this.text += event.text
        return
      case 'thinking-delta':
        this.thinking += event.text
        return
      case 'thinking-end':
        this.thinkingBlocks.push(event.block)
        return
      case 'tool-call-start':
        this.#calls.set(event.index, { id: event.id, name: event.name, arguments: '' })
        return
      case 'tool-call-delta': {
        const call = this.#calls.get(event.index)
        if (call) call.arguments += event.argumentsDelta
        return
      }
      case 'tool-call-end':
        this.#calls.set(event.index, {
          id: event.call.id,
          name: event.call.name,
          arguments: event.call.arguments,
        })
        return
      case 'finish':
        this.finish = event
        return
    }
  }

  /** Whether a tool call was started at `index`. */
  hasCall(index: number): boolean {
    return this.#calls.has(index)
  }

  /** The call at `index` as assembled so far. */
  call(index: number): ToolCall | undefined {
    const call = this.#calls.get(index)
    return call === undefined ? undefined : { id: call.id, name: call.name, arguments: call.arguments }
  }

  /** How many tool calls were started. */
  get callCount(): number {
    return this.#calls.size
  }

  /** The tool calls so far, ordered by index, each with its index. */
  indexedCalls(): { readonly index: number; readonly call: ToolCall }[] {
    return [...this.#calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, call]) => ({ index, call: { id: call.id, name: call.name, arguments: call.arguments } }))
  }

  /** The tool calls so far, ordered by index. */
  get toolCalls(): ToolCall[] {
    return this.indexedCalls().map((entry) => entry.call)
  }

  /** The assistant message folded so far (fields left out when empty). */
  message(): AssistantMessage {
    const toolCalls = this.toolCalls
    return {
      role: 'assistant',
      content: this.text,
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(this.thinking ? { thinking: this.thinking } : {}),
      ...(this.thinkingBlocks.length ? { thinkingBlocks: [...this.thinkingBlocks] } : {}),
    }
  }

  /**
   * The response folded so far. Without a finish event the reason is `tool-calls` or `stop` and the usage
   * zero; a consumer that must not take a cut-off stream as complete checks {@link finish} first.
   */
  response(): ModelResponse {
    const message = this.message()
    const finish = this.finish
    return {
      message,
      finishReason: finish?.finishReason ?? (message.toolCalls ? 'tool-calls' : 'stop'),
      usage: finish?.usage ?? ZERO_USAGE,
      model: finish?.model,
    }
  }
}

/**
 * Folds a stream of events into the response it describes (a {@link ModelStreamAccumulator} over the
 * whole stream).
 * @example
 * ```ts
 * import { collectModelStream } from '@agent-core/core'
 * import type { OperationContext } from '@agent-core/core'
 * import type { ChatModel } from '@agent-core/core'
 * import type { ModelRequest } from '@agent-core/core'
 * declare const context: OperationContext
 * declare const model: ChatModel
 * declare const request: ModelRequest
 * if (model.stream) console.log((await collectModelStream(model.stream(request, context))).message.content)
 * ```
 */
export async function collectModelStream(events: AsyncIterable<ModelStreamEvent>): Promise<ModelResponse> {
  const reply = new ModelStreamAccumulator()
  for await (const event of events) reply.add(event)
  return reply.response()
}
