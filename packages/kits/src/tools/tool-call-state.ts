import type { ToolMessage as ChatToolMessage, FieldReader } from '@agent-core/core'
import { readJson, readNestedRecord, readRecord } from './internal/field-reader.js'
import type { JsonValue } from './internal/json.js'

/**
 * Who decided a call's fate: a `person` (through an approval UI), a `policy` (a hook or an automatic rule),
 * or `earlier-refusal` (the call was not run because another call of the same step was refused).
 * @example
 * ```ts
 * import type { DecisionMaker } from '@agent-core/kits/tools'
 * const by: DecisionMaker = 'person'
 * ```
 */
export type DecisionMaker = 'person' | 'policy' | 'earlier-refusal'

/**
 * The phase of the lifecycle in which a call settled or failed, in the order they run: `select` (the tool
 * id), `protocol` (arguments parsed and checked against the tool's input schema), `inspect` (every
 * lifecycle's global check), `authorize` (the selected tool, fresh calls), `decision` and `resume`
 * (resumed calls), `write-ahead` (the host saves the call before it runs, when it asked to), `execute`
 * (core's `invokeModelTool`, or the result the host supplied), `complete`, `render` (the message the
 * model reads) and `finalize` (every lifecycle).
 * @example
 * ```ts
 * import type { ToolLifecyclePhase } from '@agent-core/kits/tools'
 * const phase: ToolLifecyclePhase = 'authorize'
 * ```
 */
export type ToolLifecyclePhase =
  | 'select'
  | 'protocol'
  | 'inspect'
  | 'authorize'
  | 'decision'
  | 'resume'
  | 'write-ahead'
  | 'execute'
  | 'complete'
  | 'render'
  | 'finalize'

/**
 * What the model reads about a settled call: core's tool message (`role: 'tool'`, the tool-call id, the
 * text and whether it describes a failure). The loop appends it to the conversation as is.
 * @example
 * ```ts
 * import type { ToolCallMessage } from '@agent-core/kits/tools'
 * const message: ToolCallMessage = { role: 'tool', toolCallId: 'call_1', content: '{"ok":true}', isError: false }
 * ```
 */
export interface ToolCallMessage extends ChatToolMessage {
  readonly isError: boolean
}

/**
 * Fields every state of a call carries: which call, which invocation, which tool, with which input.
 * @example
 * ```ts
 * import type { ToolCallIdentity } from '@agent-core/kits/tools'
 * const key = (call: ToolCallIdentity) => call.invocationId
 * ```
 */
export interface ToolCallIdentity {
  /** The id the model (or the host) gave the call; decisions are keyed by it. */
  readonly toolCallId: string
  /** The invocation id core allocated when the call entered the lifecycle; the tool's idempotency key. */
  readonly invocationId: string
  /** The registered tool the call selects. */
  readonly toolId: string
  /** The call's input, as plain JSON. */
  readonly input: JsonValue
  /** The run the call belongs to, when the caller named one; signatures bind it. */
  readonly runId?: string | undefined
}

/**
 * What a pending call waits for:
 * - `approval`: a person's (or a rule's) decision; resume with an approve or reject {@link ToolDecision}.
 * - `external`: the host runs the tool itself (in a browser, on another service); resume with an
 *   approval and the host's `result` ({@link ToolRunOptions.result}).
 * - `answer`: a person answers a question; resume like `external`, the answer being the result.
 * - `write-ahead`: the host saved the call before it ran (a tool that is not replay-safe, in a run that
 *   saves progress); a restart resumes it with an approval and it runs with the same invocation id.
 * @example
 * ```ts
 * import type { ToolWaitKind } from '@agent-core/kits/tools'
 * const needsPerson = (kind: ToolWaitKind) => kind === 'approval' || kind === 'answer'
 * ```
 */
export type ToolWaitKind = 'approval' | 'external' | 'answer' | 'write-ahead'

/**
 * A call that waits (for a person, the host, or its own save-before-run stage; see {@link ToolWaitKind}):
 * plain JSON, so it can be stored, sent to a UI and resumed later in another process with a
 * {@link ToolDecision}. It is produced before the tool runs; resuming it runs the tool (or takes the
 * host's result) with the same `invocationId`.
 * @example
 * ```ts
 * import type { PendingToolCall } from '@agent-core/kits/tools'
 * const pending: PendingToolCall = {
 *   status: 'pending',
 *   toolCallId: 'call_1',
 *   invocationId: 'inv_0f6c…',
 *   toolId: 'refund',
 *   input: { orderId: 'A-17', amount: 250 },
 *   waitingFor: 'approval',
 *   reason: 'Refunds above 100 need a manager.',
 * }
 * ```
 */
export interface PendingToolCall extends ToolCallIdentity {
  readonly status: 'pending'
  /** What the call waits for. */
  readonly waitingFor: ToolWaitKind
  /** Why it waits, in words for the person who decides (the authorize hook's reason). */
  readonly reason: string
  /** The question a person is asked (`waitingFor: 'answer'`). */
  readonly question?: string | undefined
  /**
   * Present when the registry has `decisionKeys`: an HMAC over the run id, the call id, the invocation id,
   * the tool id and the input. A decision echoes it, so a decision cannot be forged or moved onto another
   * call (see {@link signToolCall}).
   */
  readonly signature?: string | undefined
}

/**
 * Why a call was not run, and who decided.
 * @example
 * ```ts
 * import type { ToolRejection } from '@agent-core/kits/tools'
 * const rejection: ToolRejection = { reason: 'Too large.', by: 'person', instruction: 'Offer a voucher.' }
 * ```
 */
export interface ToolRejection {
  /** The sentence that explains the refusal. */
  readonly reason: string
  readonly by: DecisionMaker
  /** What the person who refused asks the model to do instead. */
  readonly instruction?: string | undefined
}

/**
 * A call that ran to completion. `output` is absent when the tool returned `undefined`.
 * @example
 * ```ts
 * import type { CompletedToolCall } from '@agent-core/kits/tools'
 * const done: CompletedToolCall = {
 *   status: 'completed', toolCallId: 'call_1', invocationId: 'inv_1', toolId: 'add', input: { a: 1, b: 2 },
 *   output: 3, message: { role: 'tool', toolCallId: 'call_1', content: '3', isError: false },
 * }
 * ```
 */
export interface CompletedToolCall extends ToolCallIdentity {
  readonly status: 'completed'
  readonly output?: JsonValue | undefined
  readonly message: ToolCallMessage
  /** Who approved the call when it ran after a decision; absent when no approval was needed. */
  readonly approvedBy?: 'person' | 'policy' | undefined
}

/**
 * A call that was refused: by a hook (a policy) or by a decision.
 * @example
 * ```ts
 * import type { RejectedToolCall } from '@agent-core/kits/tools'
 * const refused: RejectedToolCall = {
 *   status: 'rejected', toolCallId: 'call_1', invocationId: 'inv_1', toolId: 'refund', input: { amount: 900 },
 *   rejection: { reason: 'Too large.', by: 'person', instruction: 'Offer a voucher instead.' },
 *   message: { role: 'tool', toolCallId: 'call_1', content: '…', isError: true },
 * }
 * ```
 */
export interface RejectedToolCall extends ToolCallIdentity {
  readonly status: 'rejected'
  readonly rejection: ToolRejection
  readonly message: ToolCallMessage
}

/**
 * A failure, as plain JSON: the error's code (for agent-core errors), class name and message.
 * @example
 * ```ts
 * import type { ToolCallErrorRecord } from '@agent-core/kits/tools'
 * const error: ToolCallErrorRecord = { code: 'timeout', name: 'TimeoutError', message: 'Too slow.' }
 * ```
 */
export interface ToolCallErrorRecord {
  readonly code?: string | undefined
  readonly name: string
  readonly message: string
}

/**
 * A call that failed: the tool threw, a hook threw or broke its contract, the input or the tool id was
 * wrong, or the call was cancelled or timed out. `phase` says where. A failure is settled: it is never run
 * again. `arguments` holds the raw argument text when it was not JSON (and `input` is then absent).
 * @example
 * ```ts
 * import type { FailedToolCall } from '@agent-core/kits/tools'
 * const failed: FailedToolCall = {
 *   status: 'failed', toolCallId: 'call_1', invocationId: 'inv_1', toolId: 'fetch', input: { url: 'x' },
 *   phase: 'execute', error: { code: 'timeout', name: 'TimeoutError', message: 'Too slow.' },
 *   message: { role: 'tool', toolCallId: 'call_1', content: '…', isError: true },
 * }
 * ```
 */
export interface FailedToolCall extends Omit<ToolCallIdentity, 'input'> {
  readonly status: 'failed'
  readonly input?: JsonValue | undefined
  readonly arguments?: string | undefined
  readonly phase: ToolLifecyclePhase
  readonly error: ToolCallErrorRecord
  readonly message: ToolCallMessage
}

/**
 * A settled call: completed, rejected or failed. Settled calls are never run again: resuming one returns it
 * as it is.
 * @example
 * ```ts
 * import type { ToolCallRecord } from '@agent-core/kits/tools'
 * const isDone = (record: ToolCallRecord) => record.status === 'completed'
 * ```
 */
export type ToolCallRecord = CompletedToolCall | RejectedToolCall | FailedToolCall

/**
 * Every state a call can be stored in, as plain JSON, discriminated by `status`. Keep the latest state of
 * each call (keyed by its `invocationId`): a pending call becomes a record once resumed.
 * @example
 * ```ts
 * import type { ToolCallState } from '@agent-core/kits/tools'
 * const waiting = (states: readonly ToolCallState[]) => states.filter((s) => s.status === 'pending')
 * ```
 */
export type ToolCallState = PendingToolCall | ToolCallRecord

const WAIT_KINDS: readonly ToolWaitKind[] = ['approval', 'external', 'answer', 'write-ahead']
const DECISION_MAKERS: readonly string[] = ['person', 'policy', 'earlier-refusal']
const PHASES: readonly string[] = [
  'select',
  'protocol',
  'inspect',
  'authorize',
  'decision',
  'resume',
  'write-ahead',
  'execute',
  'complete',
  'render',
  'finalize',
]

function readIdentity(reader: FieldReader, inputOptional: boolean): string {
  const toolCallId = reader.requiredString('toolCallId')
  reader.requiredString('invocationId')
  reader.requiredString('toolId')
  readJson(reader, 'input', inputOptional)
  reader.string('runId')
  return toolCallId
}

function readMessage(reader: FieldReader, toolCallId: string): void {
  const message = readNestedRecord(reader, 'message', 'A tool call message')
  message.requiredOneOf('role', ['tool'])
  if (message.requiredString('toolCallId') !== toolCallId) {
    message.fail('toolCallId', `must be the call's own id "${toolCallId}"`, undefined)
  }
  message.requiredString('content', { empty: true })
  message.requiredBoolean('isError')
  message.done()
}

/**
 * Checks that `value` is a {@link ToolCallState} as this kit writes it (a pending call or a settled
 * record), strictly: unknown fields, wrong types and non-JSON inputs are refused, so a state that was
 * corrupted or hand-edited in storage is caught before anything runs.
 * @param field - how the value is named in errors (default `"state"`)
 * @throws `InvalidInputError` naming the offending field
 * @example
 * ```ts
 * import { assertToolCallState } from '@agent-core/kits/tools'
 * declare const saved: string // JSON read back from the App's store
 * const state: unknown = JSON.parse(saved)
 * assertToolCallState(state)
 * state.status // 'pending' | 'completed' | 'rejected' | 'failed'
 * ```
 */
export function assertToolCallState(value: unknown, field = 'state'): asserts value is ToolCallState {
  const reader = readRecord(value, field, 'A tool call state')
  const status = reader.requiredOneOf('status', ['pending', 'completed', 'rejected', 'failed'])
  const toolCallId = readIdentity(reader, status === 'failed')
  switch (status) {
    case 'pending':
      reader.requiredOneOf('waitingFor', WAIT_KINDS)
      reader.requiredString('reason')
      reader.string('question')
      reader.string('signature')
      break
    case 'completed':
      readJson(reader, 'output', true)
      readMessage(reader, toolCallId)
      reader.oneOf('approvedBy', ['person', 'policy'])
      break
    case 'rejected': {
      const rejection = readNestedRecord(reader, 'rejection', 'A rejection')
      rejection.requiredString('reason')
      rejection.requiredOneOf('by', DECISION_MAKERS)
      rejection.string('instruction')
      rejection.done()
      readMessage(reader, toolCallId)
      break
    }
    case 'failed': {
      reader.string('arguments', { empty: true })
      reader.requiredOneOf('phase', PHASES)
      const error = readNestedRecord(reader, 'error', 'An error record')
      error.string('code')
      error.requiredString('name', { empty: true })
      error.requiredString('message', { empty: true })
      error.done()
      readMessage(reader, toolCallId)
      break
    }
  }
  reader.done()
}

export { DECISION_MAKERS }
