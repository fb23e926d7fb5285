import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'
import type { DecisionMaker, PendingToolCall, ToolLifecyclePhase } from './tool-call-state.js'

/**
 * Details of {@link ApprovalRequiredError}.
 * @example
 * ```ts
 * import type { ApprovalRequiredErrorDetails } from '@agent-core/kits/tools'
 * const details: ApprovalRequiredErrorDetails = { reason: 'Refunds above 100 need a manager.' }
 * ```
 */
export interface ApprovalRequiredErrorDetails extends ErrorDetails {
  /** Why the call needs a person; defaults to the error's message. */
  readonly reason?: string
  readonly toolId?: string
  readonly toolCallId?: string
  /** The pending call to store and resume (filled in by {@link unwrapToolOutcome}). */
  readonly pending?: PendingToolCall
}

/**
 * A call needs a person's approval. Throw it from a lifecycle's `authorize` hook (the message, or
 * `details.reason`, is the reason shown to the person); the registry turns it into a `pending` outcome
 * carrying a {@link PendingToolCall}. A tool whose `execute` finds out only while it runs that it needs a
 * person may throw it too: the call waits the same way, and once approved `execute` runs again from the
 * start with the same invocation id. {@link unwrapToolOutcome} throws it back with `details.pending` set.
 * @example
 * ```ts
 * import { ApprovalRequiredError } from '@agent-core/kits/tools'
 * const authorize = (call: { input: { amount: number } }) => {
 *   if (call.input.amount > 100) throw new ApprovalRequiredError('Refunds above 100 need a manager.')
 * }
 * ```
 */
export class ApprovalRequiredError extends AgentCoreError<ApprovalRequiredErrorDetails> {
  static override readonly code = 'approval-required'
  declare readonly code: 'approval-required'
  constructor(message: string, options?: AgentCoreErrorOptions<ApprovalRequiredErrorDetails>) {
    super('approval-required', message, options)
  }
}

/**
 * Details of {@link ToolRejectedError}.
 * @example
 * ```ts
 * import type { ToolRejectedErrorDetails } from '@agent-core/kits/tools'
 * const details: ToolRejectedErrorDetails = { by: 'policy', instruction: 'Use the staging bucket.' }
 * ```
 */
export interface ToolRejectedErrorDetails extends ErrorDetails {
  /** The refusal sentence; defaults to the error's message. */
  readonly reason?: string
  /** Who refused; `policy` when absent (a hook is a policy). */
  readonly by?: DecisionMaker
  /** What the model should do instead. */
  readonly instruction?: string
  readonly toolId?: string
  readonly toolCallId?: string
}

/**
 * A call is refused. Throw it from `inspect`, `authorize` or `resume` to refuse the call (the message, or
 * `details.reason`, is what the model reads); {@link unwrapToolOutcome} throws it for a `rejected` outcome.
 * Core's `UnauthorizedError` thrown from those hooks is a refusal too.
 * @example
 * ```ts
 * import { ToolRejectedError } from '@agent-core/kits/tools'
 * const inspect = (call: { toolId: string }) => {
 *   if (call.toolId.startsWith('write_')) throw new ToolRejectedError('The workspace is read-only today.')
 * }
 * ```
 */
export class ToolRejectedError extends AgentCoreError<ToolRejectedErrorDetails> {
  static override readonly code = 'tool-rejected'
  declare readonly code: 'tool-rejected'
  constructor(message: string, options?: AgentCoreErrorOptions<ToolRejectedErrorDetails>) {
    super('tool-rejected', message, options)
  }
}

/**
 * Details of {@link ToolCallFailedError}.
 * @example
 * ```ts
 * import type { ToolCallFailedErrorDetails } from '@agent-core/kits/tools'
 * const details: ToolCallFailedErrorDetails = { phase: 'execute', errorCode: 'timeout' }
 * ```
 */
export interface ToolCallFailedErrorDetails extends ErrorDetails {
  readonly toolId?: string
  readonly toolCallId?: string
  readonly invocationId?: string
  readonly phase?: ToolLifecyclePhase
  /** The code of the original error, when it had one. */
  readonly errorCode?: string | undefined
  /** The class name of the original error. */
  readonly errorName?: string
}

/**
 * A stored call failed earlier. Replaying a `failed` record (resuming it, or meeting it again in a
 * journal) yields this error in place of the original, which did not survive JSON; its message and
 * `details.errorCode` are the original's.
 * @example
 * ```ts
 * import { ToolCallFailedError } from '@agent-core/kits/tools'
 * declare const error: unknown // a caught error
 * if (ToolCallFailedError.isInstance(error)) console.log(error.details.phase, error.details.errorCode)
 * ```
 */
export class ToolCallFailedError extends AgentCoreError<ToolCallFailedErrorDetails> {
  static override readonly code = 'tool-call-failed'
  declare readonly code: 'tool-call-failed'
  constructor(message: string, options?: AgentCoreErrorOptions<ToolCallFailedErrorDetails>) {
    super('tool-call-failed', message, options)
  }
}
