/**
 * The agent loop: a run calls the model, streams its reply, runs the tool calls it asks for (in parallel,
 * each through the `tools` kit lifecycle, with a timeout and the run's signal), gives the results back and
 * calls again, until the model answers, a cap is reached, the run is stopped or it suspends. Calls that
 * need a person (approvals, questions) or the host (external tools) wait on a resolver or suspend the run
 * as plain JSON that a later run, in another process, resumes with decisions keyed by tool-call id. Typed
 * events come as an async iterable or a callback; an AnswerFlow decides about the final answer; progress
 * saves make a run durable ({@link agentRunStep} runs one as a durable step). A chat model for your tests,
 * `createScriptedModel`, is in `@agent-core/kits/loop/testing`.
 *
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 *
 * const weather = defineModelTool<{ city: string }, string>({
 *   id: 'weather',
 *   description: 'Current weather in a city',
 *   inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
 *   execute: ({ city }) => `sunny in ${city}`,
 * })
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'weather', input: { city: 'Lyon' } }] },
 *   { text: 'It is sunny in Lyon.' },
 * ])
 * const agent = defineAgent({ model, tools: [weather] })
 * const result = await agent.run({ prompt: 'Weather in Lyon?' })
 * // result.reason === 'final'; result.answer === 'It is sunny in Lyon.'
 * ```
 *
 * @module
 */
export {
  type Agent,
  type AgentDefinition,
  type AgentResult,
  type AgentResultBase,
  type AgentRunRequest,
  type AgentStream,
  type AgentToolEntry,
  type ApprovalResolution,
  type BeforeTurnHook,
  type BeforeTurnInput,
  type BeforeTurnResult,
  DEFAULT_MAX_TURNS,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_TOOL_CONCURRENCY,
  DEFAULT_TOOL_TIMEOUT_MS,
  defineAgent,
  type QuestionResolution,
  type RefusalInput,
} from './agent.js'
export {
  type AgentAsToolOptions,
  type AgentBudget,
  type AgentBudgetAmounts,
  AgentToolBudgetError,
  type AgentToolBudgetErrorDetails,
  agentAsTool,
  type ChildStateStore,
  createAgentBudget,
} from './agent-as-tool.js'
export {
  type AgentRunTaskHead,
  type AgentRunTaskRequest,
  type AgentRunTaskResult,
  type AgentRunTaskResume,
  inspectAgentRunTask,
  resumeAgentRunTask,
  runAgentRunTask,
} from './agent-run-task.js'
export {
  type AgentTool,
  type AgentToolKind,
  type AgentToolOptions,
  type ApprovalAnswer,
  type ApprovalPolicy,
  defineAgentTool,
  defineExternalTool,
  defineQuestionTool,
  type ExternalToolDefinition,
  ExternalToolError,
  type QuestionToolDefinition,
  type ToolReplayPolicy,
} from './agent-tool.js'
export { agentTrace } from './agent-trace.js'
export {
  type AnswerControl,
  type AnswerFlow,
  type AnswerInput,
  defineAnswerFlow,
  type StructuredAnswerOptions,
  structuredAnswer,
  textAnswer,
} from './answer-flow.js'
export { AgentRunError, type AgentRunErrorDetails, ask } from './ask.js'
export {
  type CustomInput,
  customInput,
  isCustomInput,
  type PlacedCustomInput,
  runHistory,
  type TransformInputHook,
  type TransformInputInfo,
} from './custom-inputs.js'
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
} from './deprecated-scripted-model.js'
export {
  type AgentRunStepOptions,
  agentRunStep,
  createAgentRunState,
  isAgentRunState,
} from './durable-agent.js'
export type { AgentEvent, AgentEventType, ToolAbortCause } from './events.js'
export {
  type GuardrailAgent,
  type GuardrailCheck,
  type GuardrailTrip,
  GuardrailTrippedError,
  type GuardrailVerdict,
  type InputGuardrail,
  type InputGuardrailInput,
  type OutputGuardrail,
  type OutputGuardrailInput,
  type ToolGuardrail,
  type ToolGuardrailAnswer,
  type ToolGuardrailCall,
  ToolGuardrailError,
  type ToolOutputGuardrailAnswer,
} from './guardrails.js'
export {
  defineHandoffAgent,
  type Handoff,
  type HandoffAgent,
  type HandoffAgentDefinition,
  type HandoffEvent,
  type HandoffInputFilter,
  type HandoffResult,
  type HandoffRunRequest,
  type HandoffRunState,
  handoff,
  removeToolCalls,
  UnknownAgentError,
  type UnknownAgentErrorDetails,
} from './handoff.js'
export {
  type DescribeRunOptions,
  describeRun,
  type Narration,
  narrate,
  narrationOf,
} from './narration.js'
export {
  type AgentCallOutcome,
  type AgentPendingCall,
  type AgentRunState,
  type AnswerRetry,
  assertAgentRunState,
  type StopReason,
  type WaitingFor,
} from './run-state.js'
export {
  type AgentSessionMessage,
  type AgentSessionRef,
  type AgentSessionSnapshot,
  type AgentSessionState,
  type AgentSessionStore,
  type HoldSessionOptions,
  holdSession,
  SessionBusyError,
  SessionConflictError,
} from './session.js'
export {
  assertSuspensionClaim,
  assertSuspensionKey,
  createMemorySuspensionLedger,
  MemorySuspensionLedger,
  type SuspensionClaim,
  type SuspensionConsumedDetails,
  SuspensionConsumedError,
  type SuspensionLedger,
  suspensionKey,
} from './suspension-ledger.js'
export { estimateTokens, type TrimOptions, trimMessages } from './trim-messages.js'
