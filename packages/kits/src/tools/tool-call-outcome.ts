import { describeValue, type OperationContext, refuseField } from '@agent-core/core'
import type {
  CompletedToolCall,
  FailedToolCall,
  PendingToolCall,
  RejectedToolCall,
  ToolCallMessage,
  ToolLifecyclePhase,
  ToolRejection,
} from './tool-call-state.js'
import type { ToolDecision } from './tool-decision.js'
import { ApprovalRequiredError, ToolRejectedError } from './tool-errors.js'

/**
 * A call as the lifecycle's hooks see it (frozen).
 * @example
 * ```ts
 * import type { ToolCallView } from '@agent-core/kits/tools'
 * const describe = (call: ToolCallView) => `${call.toolId} (${call.toolCallId})`
 * ```
 */
export interface ToolCallView<Input = unknown> {
  readonly toolCallId: string
  /** Allocated by core (`createInvocationId`) when the call first entered the lifecycle; kept on resume. */
  readonly invocationId: string
  readonly toolId: string
  readonly input: Input
  readonly runId: string | undefined
  /** The decision a resumed call carries; `undefined` on a fresh call. */
  readonly decision: ToolDecision | undefined
}

/**
 * Fields every {@link ToolCallOutcome} carries.
 * @example
 * ```ts
 * import type { ToolCallOutcomeBase } from '@agent-core/kits/tools'
 * const key = (outcome: ToolCallOutcomeBase) => `${outcome.toolCallId}/${outcome.invocationId}`
 * ```
 */
export interface ToolCallOutcomeBase {
  readonly toolCallId: string
  readonly invocationId: string
  readonly toolId: string
  /** True when this outcome was read back from a stored record or the journal instead of being run now. */
  readonly replayed: boolean
  /**
   * Errors thrown by `finalize` hooks, in the order the hooks ran. They do not change the outcome (the
   * call did what `status` says); they are also reported in diagnostics (`finalize-fail`).
   */
  readonly finalizeErrors: readonly unknown[]
}

/**
 * The tool ran. `output` is the tool's own value (read back from the record when replayed).
 * @example
 * ```ts
 * import type { CompletedToolOutcome } from '@agent-core/kits/tools'
 * const text = (outcome: CompletedToolOutcome) => outcome.message.content
 * ```
 */
export interface CompletedToolOutcome<Output = unknown> extends ToolCallOutcomeBase {
  readonly status: 'completed'
  readonly output: Output
  /** What the model reads. */
  readonly message: ToolCallMessage
  /** The JSON to store. */
  readonly record: CompletedToolCall
}

/**
 * The call waits for a person. `record` is the {@link PendingToolCall} to store and resume later.
 * @example
 * ```ts
 * import type { PendingToolOutcome } from '@agent-core/kits/tools'
 * const save = (outcome: PendingToolOutcome) => JSON.stringify(outcome.record)
 * ```
 */
export interface PendingToolOutcome extends ToolCallOutcomeBase {
  readonly status: 'pending'
  readonly record: PendingToolCall
}

/**
 * The call was refused, by a hook or by a decision.
 * @example
 * ```ts
 * import type { RejectedToolOutcome } from '@agent-core/kits/tools'
 * const who = (outcome: RejectedToolOutcome) => outcome.rejection.by
 * ```
 */
export interface RejectedToolOutcome extends ToolCallOutcomeBase {
  readonly status: 'rejected'
  readonly rejection: ToolRejection
  readonly message: ToolCallMessage
  readonly record: RejectedToolCall
}

/**
 * The call failed in `phase`. `error` is the error itself (a {@link ToolCallFailedError} when replayed).
 * @example
 * ```ts
 * import type { FailedToolOutcome } from '@agent-core/kits/tools'
 * const where = (outcome: FailedToolOutcome) => outcome.phase
 * ```
 */
export interface FailedToolOutcome extends ToolCallOutcomeBase {
  readonly status: 'failed'
  readonly error: unknown
  readonly phase: ToolLifecyclePhase
  readonly message: ToolCallMessage
  readonly record: FailedToolCall
}

/**
 * How one pass through the lifecycle ended: `completed`, `pending`, `rejected` or `failed`. Every outcome
 * carries `record`, its plain-JSON state.
 * @example
 * ```ts
 * import type { ToolCallOutcome } from '@agent-core/kits/tools'
 * function report(outcome: ToolCallOutcome): string {
 *   switch (outcome.status) {
 *     case 'pending': return `waiting: ${outcome.record.reason}`
 *     case 'completed': return outcome.message.content
 *     case 'rejected': return `refused by ${outcome.rejection.by}`
 *     case 'failed': return `failed in ${outcome.phase}`
 *   }
 * }
 * ```
 */
export type ToolCallOutcome<Output = unknown> =
  | CompletedToolOutcome<Output>
  | PendingToolOutcome
  | RejectedToolOutcome
  | FailedToolOutcome

/**
 * A settled call as a template provider sees it, before its message exists.
 * @example
 * ```ts
 * import type { ToolTemplateInput } from '@agent-core/kits/tools'
 * const isRefusal = (input: ToolTemplateInput) => input.status === 'rejected'
 * ```
 */
export type ToolTemplateInput =
  | { readonly status: 'completed'; readonly call: ToolCallView; readonly output: unknown }
  | { readonly status: 'rejected'; readonly call: ToolCallView; readonly rejection: ToolRejection }
  | {
      readonly status: 'failed'
      readonly call: ToolCallView
      readonly error: unknown
      readonly phase: ToolLifecyclePhase
    }

/**
 * What a template provider answers: the text the model reads and, optionally, whether it describes a
 * failure (default: `false` for completed calls, `true` for refusals and failures).
 * @example
 * ```ts
 * import type { ToolMessageTemplate } from '@agent-core/kits/tools'
 * const template: ToolMessageTemplate = { content: 'Refund sent.', isError: false }
 * ```
 */
export interface ToolMessageTemplate {
  readonly content: string
  readonly isError?: boolean | undefined
}

/**
 * A template provider's answer: a structured template, or a falsy value (`undefined`, `null`, `false`,
 * `0`, `''`) meaning "not mine": the next provider is asked.
 * @example
 * ```ts
 * import type { ToolTemplateAnswer } from '@agent-core/kits/tools'
 * const pass: ToolTemplateAnswer = undefined
 * const answer: ToolTemplateAnswer = { content: 'Done.' }
 * ```
 */
export type ToolTemplateAnswer = ToolMessageTemplate | false | null | undefined | 0 | ''

/**
 * Renders what the model reads about a settled call. A function, or an object whose `template` method is
 * called on the object itself (class instances keep their private state). Must answer synchronously.
 * @example
 * ```ts
 * import type { ToolTemplateProvider } from '@agent-core/kits/tools'
 * const refusals: ToolTemplateProvider = (input) =>
 *   input.status === 'rejected' && { content: `Not done: ${input.rejection.reason}` }
 * ```
 */
export type ToolTemplateProvider<App = unknown> =
  | ((input: ToolTemplateInput, context: OperationContext<App>) => ToolTemplateAnswer)
  | { template(input: ToolTemplateInput, context: OperationContext<App>): ToolTemplateAnswer }

const OUTCOME_STATUSES: readonly string[] = ['completed', 'pending', 'rejected', 'failed']

/**
 * The value of a completed outcome, or the outcome as a typed error: `pending` throws an
 * {@link ApprovalRequiredError} whose `details.pending` is the call to store, `rejected` a
 * {@link ToolRejectedError}, and `failed` the error itself. For code that wants a value or an exception
 * (a sandbox host function, a server handler) rather than a union.
 * @example
 * ```ts
 * import { ApprovalRequiredError, unwrapToolOutcome } from '@agent-core/kits/tools'
 * import type { OperationContext } from '@agent-core/core'
 * import type { PendingToolCall, ToolCallRequest, ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const context: OperationContext
 * declare const request: ToolCallRequest
 * declare function save(pending: PendingToolCall): Promise<void> // the App's store
 * declare const tools: ToolLifecycleRegistry
 * try {
 *   const output = unwrapToolOutcome(await tools.run(request, context))
 * } catch (error) {
 *   if (ApprovalRequiredError.isInstance(error) && error.details.pending) await save(error.details.pending)
 *   else throw error
 * }
 * ```
 */
export function unwrapToolOutcome<Output>(outcome: ToolCallOutcome<Output>): Output {
  const status =
    typeof outcome === 'object' && outcome !== null ? (outcome as { status?: unknown }).status : undefined
  if (!OUTCOME_STATUSES.includes(status as string)) {
    refuseField(
      'input',
      'outcome',
      `must be the outcome of ToolLifecycleRegistry.run or resume, but got ${describeValue(outcome)}`,
      outcome,
      { prefix: 'unwrapToolOutcome: ' },
    )
  }
  switch (outcome.status) {
    case 'completed':
      return outcome.output
    case 'pending':
      throw new ApprovalRequiredError(
        `Tool call "${outcome.toolCallId}" (${outcome.toolId}) waits for approval: ${outcome.record.reason} Store error.details.pending and resume it with a decision.`,
        {
          details: {
            reason: outcome.record.reason,
            toolId: outcome.toolId,
            toolCallId: outcome.toolCallId,
            pending: outcome.record,
          },
        },
      )
    case 'rejected':
      throw new ToolRejectedError(outcome.message.content, {
        details: {
          reason: outcome.rejection.reason,
          by: outcome.rejection.by,
          ...(outcome.rejection.instruction === undefined
            ? {}
            : { instruction: outcome.rejection.instruction }),
          toolId: outcome.toolId,
          toolCallId: outcome.toolCallId,
        },
      })
    case 'failed':
      throw outcome.error
  }
}
