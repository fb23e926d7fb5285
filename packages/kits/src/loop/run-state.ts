import {
  type ChatMessage,
  describeValue,
  FieldReader,
  type JsonSchema,
  type ModelUsage,
  refuseField,
} from '@agent-core/core'
import type { ApproveDecision, JsonValue, ToolDecision, ToolStateRecord } from '@agent-core/kits/tools'
import type { PlacedCustomInput } from './custom-inputs.js'
import type { GuardrailTrip } from './guardrails.js'
import { isRecord } from './internal/check.js'
import { readPlacedInputs } from './internal/custom-inputs.js'
import { jsonProblem } from './internal/json.js'
import { readMessages } from './internal/messages.js'

/**
 * What a pending call waits for: a person's `approval`, the host's result (`external`), a person's answer
 * (`question`), or, in progress saved while the run was going, nothing but the run itself (`running`: the
 * call was saved with its invocation id before it ran, and is re-entered with it).
 * @example
 * ```ts
 * import type { WaitingFor } from '@agent-core/kits/loop'
 * const why: WaitingFor = 'approval'
 * ```
 */
export type WaitingFor = 'approval' | 'external' | 'question' | 'running'

/**
 * A call of the run's last assistant message that has started its way through the tool lifecycle but has
 * no result in the history yet: plain JSON, with the identity fields of the `tools` kit's pending call
 * (the invocation id core allocated, the run id and, with decision keys, the signature a decision echoes).
 * @example
 * ```ts
 * import type { AgentPendingCall } from '@agent-core/kits/loop'
 * const pending: AgentPendingCall = {
 *   toolCallId: 'call_1',
 *   invocationId: 'inv_…',
 *   toolId: 'refund',
 *   input: { amount: 250 },
 *   runId: 'run_1',
 *   waitingFor: 'approval',
 *   reason: 'Refunds above 100 need a manager.',
 * }
 * ```
 */
export interface AgentPendingCall {
  /** The call's id as the model gave it: outcomes are keyed by it. */
  readonly toolCallId: string
  /** The invocation id core allocated for the call; it runs with it (an idempotency key for its side effect). */
  readonly invocationId: string
  /** The tool the call is for. */
  readonly toolId: string
  /** The call's input, as the model gave it (parsed from its arguments). */
  readonly input: JsonValue
  /** The run the call belongs to. */
  readonly runId: string
  /** What the call waits for: a decision, the host's result, an answer, or (saved before it ran) a restart. */
  readonly waitingFor: WaitingFor
  /** Why it waits, in words for the person who decides (or the host that runs it). */
  readonly reason: string
  /** With decision keys: the signature a decision (or result, or answer) about this call must carry. */
  readonly signature?: string | undefined
  /** Question tools: the question's text. */
  readonly question?: string | undefined
  /** Question tools: the JSON Schema an answer must match. */
  readonly answerSchema?: JsonSchema | undefined
  /** The approval already given, for a call that now waits for its result or runs. */
  readonly approval?: ApproveDecision | undefined
}

/**
 * An earlier answer the run's AnswerFlow sent back for another try, and what it told the model.
 * @example
 * ```ts
 * import type { AnswerRetry } from '@agent-core/kits/loop'
 * const retry: AnswerRetry = { text: 'Paris?', feedback: 'Answer in one full sentence.' }
 * ```
 */
export interface AnswerRetry {
  /** The answer the flow sent back. */
  readonly text: string
  /** What the model was told about it. */
  readonly feedback: string
}

/**
 * Why a run ended: the model's answer was accepted (`final`), a cap stopped it (`turn-limit`,
 * `token-limit`), its signal stopped it (`stopped`), it failed (`error`), or it waits for people or the
 * host (`suspended`).
 * @example
 * ```ts
 * import type { StopReason } from '@agent-core/kits/loop'
 * const reason: StopReason = 'turn-limit'
 * ```
 */
export type StopReason =
  | 'final'
  | 'turn-limit'
  | 'token-limit'
  | 'stopped'
  | 'error'
  | 'suspended'
  | 'guardrail'

/**
 * A run as plain JSON: what a suspended run returns, what progress saves write, and what a later run (in
 * this process or another) resumes from. `messages` is the history without the agent's system text; when
 * calls are pending it ends on the assistant message that made them (and the tool messages of the calls
 * already settled).
 * @example
 * ```ts
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * import { readFile } from 'node:fs/promises'
 * const saved: AgentRunState = JSON.parse(await readFile('run.json', 'utf8'))
 * ```
 */
export interface AgentRunState {
  /** The format of this JSON; a resume refuses any other. */
  readonly version: 1
  /** `running` in progress saves, `suspended` when the run waits, `done` once it ended. */
  readonly status: 'running' | 'suspended' | 'done'
  /** The run's id; a resumed run keeps it. */
  readonly runId: string
  /** The history so far (without the agent's system text). */
  readonly messages: readonly ChatMessage[]
  /**
   * The custom inputs of the history, as data, each with its place among `messages` (present when the run
   * has some). A resumed run converts them again with its `transformInput`; `runHistory(state)` puts them
   * back among the messages.
   */
  readonly customInputs?: readonly PlacedCustomInput[] | undefined
  /** Model calls made so far. */
  readonly turns: number
  /** Tokens the model reported so far. */
  readonly usage: ModelUsage
  /** In how many turns each tool was called, for per-tool caps. */
  readonly toolTurns: Readonly<Record<string, number>>
  /** The answers the AnswerFlow sent back so far. */
  readonly answerRetries: readonly AnswerRetry[]
  /** The calls of the last assistant message that have a lifecycle state but no result yet. */
  readonly pending: readonly AgentPendingCall[]
  /**
   * What the tools that keep state (`keepState`) left for their next call, by tool id: present once one
   * of them returned. A resumed run gives it back to them (`toolState(context)` of the `tools` kit).
   */
  readonly toolState?: Readonly<Record<string, ToolStateRecord>> | undefined
  /**
   * `suspended` only: this suspension's own id, new each time the run suspends. A resume claims it in the
   * agent's suspension ledger, so one suspended state is resumed once.
   */
  readonly suspensionId?: string | undefined
  /**
   * `suspended` only, when the agent has `decisionKeys`: an HMAC over the rest of the state (history,
   * counters, pending calls), checked before a resume runs anything.
   */
  readonly signature?: string | undefined
  /** `done` only: why the run ended. */
  readonly reason?: Exclude<StopReason, 'suspended'> | undefined
  /** `done` only, reason `guardrail`: which guardrail stopped the run and why. */
  readonly guardrail?: GuardrailTrip | undefined
  /** `done` only: the best answer text so far. */
  readonly text?: string | undefined
  /** `done` only, reason `final`: the accepted answer, when it is JSON. */
  readonly answer?: JsonValue | undefined
}

/**
 * A decision, result or answer for one pending call, keyed in `outcomes` by its tool-call id:
 * - a call waiting for `approval`: a `tools` kit {@link ToolDecision} (`approve` or `reject`);
 * - `external`: `{ type: 'result', output }`, `{ type: 'failure', message }` or a `reject`;
 * - `question`: `{ type: 'answer', value }` (checked against the answer schema) or a `reject`.
 *
 * With decision keys, each carries the pending call's `signature`.
 * @example
 * ```ts
 * import type { AgentCallOutcome } from '@agent-core/kits/loop'
 * const outcomes: Record<string, AgentCallOutcome> = {
 *   call_1: { type: 'approve', toolCallId: 'call_1', by: 'person' },
 *   call_2: { type: 'result', toolCallId: 'call_2', output: { title: 'Home' } },
 *   call_3: { type: 'answer', toolCallId: 'call_3', value: { account: 'savings' } },
 * }
 * ```
 */
export type AgentCallOutcome =
  | ToolDecision
  | {
      readonly type: 'result'
      readonly toolCallId: string
      readonly output?: JsonValue
      readonly signature?: string | undefined
    }
  | {
      readonly type: 'failure'
      readonly toolCallId: string
      readonly message: string
      readonly signature?: string | undefined
    }
  | {
      readonly type: 'answer'
      readonly toolCallId: string
      readonly value: JsonValue
      readonly signature?: string | undefined
    }

function readUsage(value: unknown, field: string): ModelUsage {
  const fields: FieldReader = new FieldReader(
    value,
    field,
    'a usage { inputTokens, outputTokens, totalTokens }',
  )
  fields.requiredInteger('inputTokens', 0)
  fields.requiredInteger('outputTokens', 0)
  fields.requiredInteger('totalTokens', 0)
  fields.integer('cacheReadTokens', 0)
  fields.integer('cacheWriteTokens', 0)
  fields.done()
  return value as ModelUsage
}

function readJson(fields: FieldReader, key: string, optional: boolean): void {
  const value = fields.get(key)
  if (value === undefined && optional) return
  const problem =
    value === undefined ? `${fields.path(key)} is missing` : jsonProblem(value, fields.path(key))
  if (problem !== undefined) fields.fail(key, `must be plain JSON (${problem})`, value)
}

function readApproval(value: unknown, field: string): void {
  const fields: FieldReader = new FieldReader(value, field, 'an approval { type: "approve", toolCallId, by }')
  fields.requiredOneOf('type', ['approve'])
  fields.requiredString('toolCallId')
  fields.requiredOneOf('by', ['person', 'policy'])
  readJson(fields, 'input', true)
  fields.string('signature')
  fields.done()
}

function readPending(value: unknown, field: string, runId: string): AgentPendingCall {
  const fields: FieldReader = new FieldReader(value, field, 'a pending call')
  const toolCallId = fields.requiredString('toolCallId')!
  fields.requiredString('invocationId')
  fields.requiredString('toolId')
  readJson(fields, 'input', false)
  const callRunId = fields.requiredString('runId')
  if (callRunId !== runId) fields.fail('runId', `must be the run's own id "${runId}"`, callRunId)
  const waitingFor = fields.requiredOneOf('waitingFor', ['approval', 'external', 'question', 'running'])
  fields.requiredString('reason')
  fields.string('signature')
  const question = fields.string('question')
  const schema = fields.get('answerSchema')
  if (waitingFor === 'question' && (question === undefined || schema === undefined)) {
    fields.fail('question', 'and answerSchema are required for a call waiting for an answer', question)
  }
  if (schema !== undefined && typeof schema !== 'boolean' && !isRecord(schema)) {
    fields.fail('answerSchema', `must be a JSON Schema, but got ${describeValue(schema)}`, schema)
  }
  const approval = fields.get('approval')
  if (approval !== undefined) {
    readApproval(approval, fields.path('approval'))
    if ((approval as ApproveDecision).toolCallId !== toolCallId) {
      fields.fail('approval', `must be for the call's own id "${toolCallId}"`, approval)
    }
  }
  fields.done()
  return value as AgentPendingCall
}

function readToolState(value: unknown, field: string): void {
  const records: FieldReader = new FieldReader(
    value,
    field,
    'a record of tool states { calls, lastResult?, kept? } by tool id',
  )
  for (const key of Object.keys(value as object)) {
    const record: FieldReader = new FieldReader(
      records.get(key),
      records.path(key),
      'a tool state { calls, lastResult?, kept? }',
    )
    record.requiredInteger('calls', 1)
    readJson(record, 'lastResult', true)
    readJson(record, 'kept', true)
    record.done()
  }
  records.done()
}

/**
 * Checks that `value` is an {@link AgentRunState} as the loop writes it, strictly (unknown fields, wrong
 * types and non-JSON values are refused), so a state that was corrupted or hand-edited in storage is caught
 * before anything runs. Whether its history fits its pending calls is checked when a run resumes it.
 * @param field - how the value is named in errors (default `"state"`)
 * @throws `InvalidInputError` naming the offending field
 * @example
 * ```ts
 * import { assertAgentRunState } from '@agent-core/kits/loop'
 * declare const saved: string // JSON read back from the App's store
 * const state: unknown = JSON.parse(saved)
 * assertAgentRunState(state)
 * state.pending.map((call) => call.waitingFor)
 * ```
 */
export function assertAgentRunState(value: unknown, field = 'state'): asserts value is AgentRunState {
  const fields: FieldReader = new FieldReader(
    value,
    field,
    'an agent run state (the JSON a run returned or saved)',
  )
  const version = fields.get('version')
  if (version !== 1) {
    fields.fail(
      'version',
      `must be 1 (this version of the loop writes version 1), but got ${describeValue(version)}`,
      version,
    )
  }
  const status = fields.requiredOneOf('status', ['running', 'suspended', 'done'])
  const runId = fields.requiredString('runId')!
  const messages = readMessages(fields.get('messages'), fields.path('messages'))
  const customInputs = fields.get('customInputs')
  if (customInputs !== undefined) readPlacedInputs(customInputs, fields.path('customInputs'), messages)
  fields.requiredInteger('turns', 0)
  readUsage(fields.get('usage'), fields.path('usage'))
  const toolTurns: FieldReader = new FieldReader(
    fields.get('toolTurns'),
    fields.path('toolTurns'),
    'a record of turn counts by tool id',
  )
  for (const key of Object.keys(fields.get('toolTurns') as object)) toolTurns.requiredInteger(key, 0)
  toolTurns.done()
  const retries = fields.get('answerRetries')
  if (!Array.isArray(retries))
    fields.fail('answerRetries', `must be an array, but got ${describeValue(retries)}`, retries)
  retries.forEach((retry: unknown, index) => {
    const at: FieldReader = new FieldReader(
      retry,
      `${fields.path('answerRetries')}[${index}]`,
      'an answer retry { text, feedback }',
    )
    at.requiredString('text', { empty: true })
    at.requiredString('feedback')
    at.done()
  })
  const pending = fields.get('pending')
  if (!Array.isArray(pending))
    fields.fail('pending', `must be an array, but got ${describeValue(pending)}`, pending)
  const seen = new Set<string>()
  pending.forEach((call: unknown, index) => {
    const read = readPending(call, `${fields.path('pending')}[${index}]`, runId)
    if (seen.has(read.toolCallId)) {
      fields.fail('pending', `lists tool call "${read.toolCallId}" twice`, pending)
    }
    seen.add(read.toolCallId)
    if (status === 'suspended' && read.waitingFor === 'running') {
      fields.fail(`pending[${index}].waitingFor`, 'cannot be "running" in a suspended run', read.waitingFor)
    }
  })
  if (status === 'suspended' && pending.length === 0) {
    fields.fail('pending', 'must list the calls a suspended run waits for', pending)
  }
  const toolState = fields.get('toolState')
  if (toolState !== undefined) readToolState(toolState, fields.path('toolState'))
  const suspensionId = fields.string('suspensionId')
  if (suspensionId !== undefined && status !== 'suspended') {
    fields.fail('suspensionId', `is only present in a suspended run (status is "${status}")`, suspensionId)
  }
  const signature = fields.string('signature')
  if (signature !== undefined && status !== 'suspended') {
    fields.fail('signature', `is only present in a suspended run (status is "${status}")`, signature)
  }
  if (status === 'done') {
    fields.requiredOneOf('reason', ['final', 'turn-limit', 'token-limit', 'stopped', 'error', 'guardrail'])
    fields.requiredString('text', { empty: true })
    readJson(fields, 'answer', true)
    readJson(fields, 'guardrail', true)
  } else {
    for (const key of ['reason', 'text', 'answer', 'guardrail']) {
      if (fields.get(key) !== undefined)
        fields.fail(key, `is only present once a run is done (status is "${status}")`, fields.get(key))
    }
  }
  fields.done()
}

/** Reads one outcome strictly: its shape, by type. */
export function readOutcome(value: unknown, field: string): AgentCallOutcome {
  const fields: FieldReader = new FieldReader(
    value,
    field,
    'a call outcome (approve, reject, result, failure or answer)',
  )
  const type = fields.requiredOneOf('type', ['approve', 'reject', 'result', 'failure', 'answer'])
  fields.requiredString('toolCallId')
  switch (type) {
    case 'approve':
      fields.requiredOneOf('by', ['person', 'policy'])
      readJson(fields, 'input', true)
      break
    case 'reject':
      fields.requiredOneOf('by', ['person', 'policy', 'earlier-refusal'])
      fields.requiredString('reason')
      fields.string('instruction')
      break
    case 'result':
      readJson(fields, 'output', true)
      break
    case 'failure':
      fields.requiredString('message')
      break
    case 'answer':
      readJson(fields, 'value', false)
      break
  }
  fields.string('signature')
  fields.done()
  return value as AgentCallOutcome
}

/** Reads the outcomes record of a resume request: a plain object keyed by tool-call id. */
export function readOutcomes(value: unknown, field: string): Map<string, AgentCallOutcome> {
  const out = new Map<string, AgentCallOutcome>()
  if (value === undefined) return out
  if (
    !isRecord(value) ||
    (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
  ) {
    refuseField(
      'input',
      field,
      `must be a plain object of outcomes keyed by tool-call id, but got ${describeValue(value)}`,
      value,
    )
  }
  const fields: FieldReader = new FieldReader(value, field, 'outcomes keyed by tool-call id')
  for (const key of Object.keys(value)) {
    const outcome = readOutcome(fields.get(key), `${field}.${key}`)
    if (outcome.toolCallId !== key) {
      refuseField(
        'input',
        `${field}.${key}.toolCallId`,
        `is "${outcome.toolCallId}", but the outcome is keyed "${key}"; key each outcome by its own tool-call id`,
        outcome.toolCallId,
      )
    }
    out.set(key, outcome)
  }
  fields.done()
  return out
}
