/**
 * The tool lifecycle: the one path every tool call of an agent goes through. A
 * {@link ToolLifecycleRegistry} holds one lifecycle block per core tool and runs each call in the real
 * order (global check, authorization, resume or execution, completion, finalization), executing through
 * core's `invokeModelTool` with the invocation id core allocated. It owns approvals: a call that needs a
 * person becomes a plain-JSON {@link PendingToolCall} that is resumed later, in this process or another,
 * with a {@link ToolDecision} (optionally signed, so a decision passing through an untrusted client cannot
 * be forged or moved onto another call). The agent loop, MCP tools and the sandbox code tool all use it.
 *
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { ApprovalRequiredError, defineToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'
 *
 * const refund = defineModelTool<{ amount: number }, string>({
 *   id: 'refund',
 *   description: 'Refunds an order',
 *   inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
 *   execute: ({ amount }) => `refunded ${amount}`,
 * })
 * const tools = ToolLifecycleRegistry.create([
 *   defineToolLifecycle(refund, {
 *     authorize(call) {
 *       if (call.input.amount > 100) throw new ApprovalRequiredError('Refunds above 100 need a manager.')
 *     },
 *   }),
 * ])
 * const outcome = await tools.run({ toolCallId: 'call_1', toolId: 'refund', input: { amount: 250 } }, createOperationContext())
 * // outcome.status === 'pending'; JSON.stringify(outcome.record) is what you store
 * ```
 *
 * @module
 */
export type { JsonValue } from './internal/json.js'
export { ToolCallJournal } from './tool-call-journal.js'
export {
  type CompletedToolOutcome,
  type FailedToolOutcome,
  type PendingToolOutcome,
  type RejectedToolOutcome,
  type ToolCallOutcome,
  type ToolCallOutcomeBase,
  type ToolCallView,
  type ToolMessageTemplate,
  type ToolTemplateAnswer,
  type ToolTemplateInput,
  type ToolTemplateProvider,
  unwrapToolOutcome,
} from './tool-call-outcome.js'
export {
  type DecisionKey,
  type SignableToolCall,
  signToolCall,
  verifyToolCallSignature,
  type WebCryptoKey,
} from './tool-call-signature.js'
export {
  assertToolCallState,
  type CompletedToolCall,
  type DecisionMaker,
  type FailedToolCall,
  type PendingToolCall,
  type RejectedToolCall,
  type ToolCallErrorRecord,
  type ToolCallIdentity,
  type ToolCallMessage,
  type ToolCallRecord,
  type ToolCallState,
  type ToolLifecyclePhase,
  type ToolRejection,
  type ToolWaitKind,
} from './tool-call-state.js'
export {
  type ApproveDecision,
  assertDecision,
  type RejectDecision,
  type ToolDecision,
} from './tool-decision.js'
export {
  ApprovalRequiredError,
  type ApprovalRequiredErrorDetails,
  ToolCallFailedError,
  type ToolCallFailedErrorDetails,
  ToolRejectedError,
  type ToolRejectedErrorDetails,
} from './tool-errors.js'
export {
  defineToolLifecycle,
  type ResumedToolCallView,
  type ToolApprovalWait,
  type ToolCompletion,
  type ToolHostWait,
  type ToolLifecycle,
  type ToolLifecycleHooks,
} from './tool-lifecycle.js'
export {
  type ToolCallRequest,
  type ToolHostResult,
  ToolLifecycleRegistry,
  type ToolLifecycleRegistryPolicy,
  type ToolResume,
  type ToolRunOptions,
} from './tool-lifecycle-registry.js'
export { assertToolPolicy, isToolPermitted, type ToolPolicy } from './tool-policy.js'
export { type ToolRefusalInput, toolRefusal } from './tool-refusal.js'
export {
  runWithToolState,
  type ToolState,
  type ToolStateRecord,
  toolState,
} from './tool-state.js'
