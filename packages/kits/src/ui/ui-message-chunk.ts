import type { ModelUsage } from '@agent-core/core'
import type { StopReason } from '@agent-core/kits/loop'
import type { JsonValue } from '@agent-core/kits/tools'

/**
 * What the `finish` chunk (and the `start` chunk, with `runId` only) carries as the message's metadata:
 * the run's id, why it ended, its token usage and its model calls. The AI SDK client keeps it as the
 * assistant message's `metadata`.
 * @example
 * ```ts
 * import type { AgentUIMetadata } from '@agent-core/kits/ui'
 * const tokens = (metadata: AgentUIMetadata) => metadata.usage?.totalTokens ?? 0
 * ```
 */
export interface AgentUIMetadata {
  /** The run the message comes from. */
  readonly runId?: string | undefined
  /** Why the run ended (`suspended` when it waits for an approval, an answer or the host). */
  readonly reason?: StopReason | undefined
  /** Tokens the model reported for the whole run (resumed runs included). */
  readonly usage?: ModelUsage | undefined
  /** Model calls made in all. */
  readonly turns?: number | undefined
}

/**
 * The data of a `data-tool-progress` part: a tool's latest progress report, one part per tool call
 * (its `id` is the tool-call id, so each report replaces the previous one in the message).
 * @example
 * ```ts
 * import type { ToolProgressData } from '@agent-core/kits/ui'
 * const label = (data: ToolProgressData) =>
 *   `${data.toolId}: ${data.message ?? ''} ${data.ratio === undefined ? '' : `${Math.round(data.ratio * 100)}%`}`
 * ```
 */
export interface ToolProgressData {
  readonly toolCallId: string
  readonly toolId: string
  /** The report's number in its call, from 1. */
  readonly sequence: number
  /** What the tool says it is doing. */
  readonly message?: string | undefined
  /** How far along it is, from 0 to 1. */
  readonly ratio?: number | undefined
  /** The tool's own data. */
  readonly data?: JsonValue | undefined
}

/**
 * One chunk of the AI SDK's UI message stream (protocol `v1` of `ai` 7.x) as {@link toUIMessageStream}
 * writes it: the chunk types an agent run produces, each assignable to the `UIMessageChunk` of `ai`, so
 * `readUIMessageStream`, `useChat` and the framework-free `Chat` read them.
 * @example
 * ```ts
 * import type { AgentUIChunk } from '@agent-core/kits/ui'
 * const text = (chunk: AgentUIChunk) => (chunk.type === 'text-delta' ? chunk.delta : '')
 * ```
 */
export type AgentUIChunk =
  | { readonly type: 'start'; readonly messageId?: string; readonly messageMetadata?: AgentUIMetadata }
  | {
      readonly type: 'finish'
      readonly finishReason?: 'stop' | 'length' | 'tool-calls' | 'error' | 'other'
      readonly messageMetadata?: AgentUIMetadata
    }
  | { readonly type: 'abort'; readonly reason?: string }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'reasoning-start'; readonly id: string }
  | { readonly type: 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'reasoning-end'; readonly id: string }
  | {
      readonly type: 'tool-input-available'
      readonly toolCallId: string
      readonly toolName: string
      readonly input: unknown
    }
  | {
      readonly type: 'tool-input-error'
      readonly toolCallId: string
      readonly toolName: string
      readonly input: unknown
      readonly errorText: string
    }
  | {
      readonly type: 'tool-approval-request'
      readonly approvalId: string
      readonly toolCallId: string
      readonly reason?: string
    }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | {
      readonly type: 'data-tool-progress'
      readonly id: string
      readonly data: ToolProgressData
      readonly transient?: boolean
    }
