import type { ModelUsage } from '@agent-core/core'
import type {
  CompletedToolCall,
  DecisionMaker,
  FailedToolCall,
  JsonValue,
  RejectedToolCall,
  ToolCallErrorRecord,
} from '@agent-core/kits/tools'
import type { AgentPendingCall, AgentRunState, StopReason } from './run-state.js'

/**
 * Why a call ended without a result or an error of its own: the run was `stopped`, the call took longer
 * than its `timeout`, an external tool could not be waited for (`no-handler`: the run has no deferral), or a
 * call needed a person and nobody could be asked (`no-resolver`). Absent for a tool that aborted by itself.
 * @example
 * ```ts
 * import type { ToolAbortCause } from '@agent-core/kits/loop'
 * const cause: ToolAbortCause = 'timeout'
 * ```
 */
export type ToolAbortCause = 'stopped' | 'timeout' | 'no-handler' | 'no-resolver'

/**
 * Every event of a run, discriminated by `type` (noun-verb). In order: `run-start`; per turn `turn-start`,
 * the reply's `text-delta` and `thinking-delta` events, `text-flush`; per tool call `tool-start`, then
 * `tool-awaiting-approval` / `tool-awaiting-answer`, `tool-approved` or `tool-rejected`, the reports of a
 * running tool (`tool-progress`, in the order it made them, never after the call settled), and its end:
 * `tool-resolved`, `tool-failed` or `tool-aborted`; caps: `turn-limit-exceeded`, `token-limit-exceeded`;
 * `answer-retried` when the AnswerFlow sends an answer back; `guardrail-start` and `guardrail-end` around
 * each input and output guardrail (input ones in `parallel` mode overlap the first turn's events); at the end `run-aborted` (then `run-done`),
 * `run-suspended` (in place of `run-done`) or `run-done`.
 * @example
 * ```ts
 * import type { AgentEvent } from '@agent-core/kits/loop'
 * function show(event: AgentEvent) {
 *   if (event.type === 'text-delta') process.stdout.write(event.text)
 *   if (event.type === 'tool-rejected') console.log(`refused by ${event.by}: ${event.reason}`)
 * }
 * ```
 */
export type AgentEvent =
  | {
      readonly type: 'run-start'
      readonly runId: string
      /** True when the run continues a saved or suspended state. */
      readonly resumed: boolean
      /** Model calls already made before this run started (from a resumed state). */
      readonly turns: number
    }
  | { readonly type: 'turn-start'; readonly turn: number }
  | { readonly type: 'text-delta'; readonly turn: number; readonly text: string }
  | { readonly type: 'thinking-delta'; readonly turn: number; readonly text: string }
  | { readonly type: 'text-flush'; readonly turn: number; readonly text: string }
  | {
      readonly type: 'tool-start'
      readonly turn: number
      readonly toolCallId: string
      readonly toolId: string
      /** The parsed arguments; `undefined` when they were not JSON (the call then fails in `protocol`). */
      readonly input: JsonValue | undefined
      readonly arguments: string
    }
  | {
      readonly type: 'tool-awaiting-approval'
      readonly toolCallId: string
      readonly toolId: string
      readonly input: JsonValue
      readonly reason: string
    }
  | {
      readonly type: 'tool-awaiting-answer'
      readonly toolCallId: string
      readonly toolId: string
      readonly question: string
    }
  | {
      readonly type: 'tool-approved'
      readonly toolCallId: string
      readonly toolId: string
      readonly by: 'person' | 'policy'
    }
  | {
      readonly type: 'tool-rejected'
      readonly toolCallId: string
      readonly toolId: string
      /** The sentence the model reads. */
      readonly reason: string
      readonly by: DecisionMaker
      /** What the person who refused asked for instead. */
      readonly instruction?: string | undefined
    }
  | {
      readonly type: 'tool-progress'
      readonly toolCallId: string
      readonly toolId: string
      /** The report's number in its call, from 1 (reports dropped after the call settled are not counted). */
      readonly sequence: number
      /** What the tool says it is doing. */
      readonly message?: string | undefined
      /** How far along it is, from 0 to 1. */
      readonly ratio?: number | undefined
      /** The tool's own data (plain JSON). */
      readonly data?: JsonValue | undefined
    }
  | {
      readonly type: 'tool-resolved'
      readonly toolCallId: string
      readonly toolId: string
      readonly output: JsonValue | undefined
      /** The text the model reads. */
      readonly content: string
      readonly record: CompletedToolCall
    }
  | {
      readonly type: 'tool-failed'
      readonly toolCallId: string
      readonly toolId: string
      readonly error: ToolCallErrorRecord
      readonly content: string
      readonly record: FailedToolCall
    }
  | {
      readonly type: 'tool-aborted'
      readonly toolCallId: string
      readonly toolId: string
      readonly cause: ToolAbortCause | undefined
      readonly content: string
      /** A failed record (stopped, timed out), or a rejected one when nobody could decide (`no-resolver`, `no-handler`). */
      readonly record: FailedToolCall | RejectedToolCall
    }
  | {
      readonly type: 'turn-limit-exceeded'
      readonly scope: 'global' | 'tool'
      readonly limit: number
      /** Scope `tool`: the tool whose cap was reached. */
      readonly toolId?: string | undefined
    }
  | {
      readonly type: 'token-limit-exceeded'
      readonly limit: number
      /** Tokens used so far (reported usage). */
      readonly used: number
      /** Estimated input tokens of the call that was not made; absent when the usage alone is over. */
      readonly estimate?: number | undefined
    }
  | { readonly type: 'answer-retried'; readonly turn: number; readonly feedback: string }
  | {
      readonly type: 'guardrail-start'
      readonly guardrail: string
      readonly kind: 'input' | 'output'
    }
  | {
      readonly type: 'guardrail-end'
      readonly guardrail: string
      readonly kind: 'input' | 'output'
      /** True when it stopped the run (reason `guardrail`). */
      readonly tripped: boolean
      /** What the guardrail found (its verdict's `info`). */
      readonly info: JsonValue | undefined
      /** The check failed (the run then ends with reason `error`). */
      readonly error?: unknown
    }
  | { readonly type: 'run-aborted'; readonly reason: unknown }
  | {
      readonly type: 'run-suspended'
      /** The calls the run waits for, and why each waits. */
      readonly pending: readonly AgentPendingCall[]
      readonly state: AgentRunState
      readonly usage: ModelUsage
    }
  | {
      readonly type: 'run-done'
      readonly reason: Exclude<StopReason, 'suspended'>
      readonly usage: ModelUsage
      readonly turns: number
      /** The best answer text so far. */
      readonly text: string
      /** Reason `error`: what failed. */
      readonly error?: unknown
    }

/**
 * The `type` of an {@link AgentEvent}.
 * @example
 * ```ts
 * import type { AgentEventType } from '@agent-core/kits/loop'
 * const ends: AgentEventType[] = ['run-done', 'run-suspended']
 * ```
 */
export type AgentEventType = AgentEvent['type']
