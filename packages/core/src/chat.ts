import type { OperationContext } from './context.js'
import type { JsonSchema } from './json-schema.js'

/**
 * Provider-neutral chat shapes shared by the loop, ModelCalls, the OpenAI adapter and MockGPT.
 * Field names are camelCase; adapters translate to and from a provider's wire format.
 */

/** A text part of a user message. */
export interface TextPart {
  readonly type: 'text'
  readonly text: string
}
/** An image part of a user message, by URL or data URL. */
export interface ImagePart {
  readonly type: 'image'
  readonly url: string
}
/** The parts a user message may carry. */
export type ContentPart = TextPart | ImagePart

/** A tool call the model asked for. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface SystemMessage {
  readonly role: 'system'
  readonly content: string
}
export interface UserMessage {
  readonly role: 'user'
  readonly content: string | readonly ContentPart[]
}
export interface AssistantMessage {
  readonly role: 'assistant'
  /** The visible text; empty when the turn only called tools. */
  readonly content: string
  readonly toolCalls?: readonly ToolCall[] | undefined
  /** Reasoning text, when the provider exposes it. */
  readonly thinking?: string | undefined
}
export interface ToolMessage {
  readonly role: 'tool'
  readonly toolCallId: string
  readonly content: string
  /** True when `content` describes a failure the model should read. */
  readonly isError?: boolean | undefined
}
/** One message of a conversation. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** A tool as offered to a model. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string }

/** The shape of the answer. */
export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema'
      readonly name: string
      readonly schema: JsonSchema
      readonly strict?: boolean
    }

/** One request to a chat model. */
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

/** Token counts of one response (or a sum of several). */
export interface ModelUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other'

/** A complete, non-streamed answer. */
export interface ModelResponse {
  readonly message: AssistantMessage
  readonly finishReason: FinishReason
  readonly usage: ModelUsage
  readonly model?: string | undefined
}

/** One streamed event. Tool calls arrive as start, argument deltas, then end, keyed by `index`. */
export type ModelStreamEvent =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'thinking-delta'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argumentsDelta: string }
  | { readonly type: 'tool-call-end'; readonly index: number; readonly call: ToolCall }
  | {
      readonly type: 'finish'
      readonly finishReason: FinishReason
      readonly usage: ModelUsage
      readonly model?: string | undefined
    }

/** A chat model as the loop and ModelCalls use it. */
export interface ChatModel<App = unknown> {
  /** The real model identity, e.g. `gpt-4o-mini`. */
  readonly identity: string
  generate(request: ModelRequest, context: OperationContext<App>): Promise<ModelResponse>
  stream?(request: ModelRequest, context: OperationContext<App>): AsyncIterable<ModelStreamEvent>
}

/** Adds usages. */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
}

/** Zero usage. */
export const ZERO_USAGE: ModelUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/**
 * Folds a stream of events into the response it describes: text and thinking concatenated, tool calls
 * ordered by index with their arguments joined.
 * @example
 * ```ts
 * import { collectModelStream } from '@agent-core/core'
 * const response = await collectModelStream(model.stream(request, context))
 * ```
 */
export async function collectModelStream(events: AsyncIterable<ModelStreamEvent>): Promise<ModelResponse> {
  let text = ''
  let thinking = ''
  const calls = new Map<number, { id: string; name: string; arguments: string }>()
  let finish: Extract<ModelStreamEvent, { type: 'finish' }> | undefined
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
        text += event.text
        break
      case 'thinking-delta':
        thinking += event.text
        break
      case 'tool-call-start':
        calls.set(event.index, { id: event.id, name: event.name, arguments: '' })
        break
      case 'tool-call-delta': {
        const call = calls.get(event.index)
        if (call) call.arguments += event.argumentsDelta
        break
      }
      case 'tool-call-end':
        calls.set(event.index, { ...event.call })
        break
      case 'finish':
        finish = event
        break
    }
  }
  const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c)
  return {
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(thinking ? { thinking } : {}),
    },
    finishReason: finish?.finishReason ?? (toolCalls.length ? 'tool-calls' : 'stop'),
    usage: finish?.usage ?? ZERO_USAGE,
    model: finish?.model,
  }
}
