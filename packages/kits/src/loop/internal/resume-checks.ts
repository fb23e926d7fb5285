import {
  type ChatMessage,
  ConflictError,
  canonicalJson,
  consumeRejection,
  describeValue,
  InvalidInputError,
  isRecord,
  refuseField,
  type SchemaIssue,
  type ToolCall,
  UnauthorizedError,
} from '@agent-core/core'
import { type ModelTool, modelToolSchemas } from '@agent-core/core/tools'
import { type JsonValue, verifyToolCallSignature } from '@agent-core/kits/tools'
import type { AgentCallOutcome, AgentPendingCall, AgentRunState } from '../run-state.js'
import { fits, REFUSAL_TEXT } from './call-state.js'
import { answerValidatorOf, jsonProblem, parseArguments } from './engine-host.js'
import type { CompiledAgent } from './run.js'
import { verifyState } from './state-signature.js'

// The checks of what comes into a run from outside it before anything runs: a resume request against its
// state, a resolver's answer, an approved edit, an answer against its schema.

/** The calls of the history's last assistant message that have no answer yet. */
export function openCalls(messages: readonly ChatMessage[]): readonly ToolCall[] {
  let index = messages.length - 1
  const answered = new Set<string>()
  while (index >= 0 && messages[index]!.role === 'tool') {
    answered.add((messages[index] as Extract<ChatMessage, { role: 'tool' }>).toolCallId)
    index--
  }
  const message = messages[index]
  if (message?.role !== 'assistant' || !message.toolCalls?.length) return []
  return message.toolCalls.filter((call) => !answered.has(call.id))
}

/** Reads what a resolver answered into an outcome for the call. */
export function readResolution(value: unknown, call: AgentPendingCall, hook: string): AgentCallOutcome {
  const bad = (what: string): never => {
    refuseField(
      'output',
      hook,
      `must answer ${call.waitingFor === 'question' ? '{ type: "answer", value } or { type: "reject", reason?, instruction? }' : '{ type: "approve", by? } or { type: "reject", reason?, instruction?, by? }'}, but ${what}`,
      value,
      { details: { hook } },
    )
  }
  if (!isRecord(value)) return bad(`answered ${describeValue(value)}`)
  const { type, by, reason, instruction } = value
  const allowed =
    type === 'approve'
      ? ['type', 'by', 'input']
      : type === 'reject'
        ? ['type', 'by', 'reason', 'instruction']
        : ['type', 'value']
  const extra = Object.keys(value).filter((key) => !allowed.includes(key))
  if (extra.length > 0) bad(`its answer has unknown fields (${extra.join(', ')})`)
  if (by !== undefined && by !== 'person' && by !== 'policy') bad(`by is ${describeValue(by)}`)
  if (reason !== undefined && (typeof reason !== 'string' || reason === ''))
    bad(`reason is ${describeValue(reason)}`)
  if (instruction !== undefined && typeof instruction !== 'string')
    bad(`instruction is ${describeValue(instruction)}`)
  const who = (by as 'person' | 'policy' | undefined) ?? 'person'
  if (type === 'reject') {
    return {
      type: 'reject',
      toolCallId: call.toolCallId,
      by: who,
      reason: (reason as string | undefined) ?? REFUSAL_TEXT[who],
      ...(instruction === undefined ? {} : { instruction: instruction as string }),
    }
  }
  if (call.waitingFor === 'question') {
    if (type !== 'answer' || !Object.hasOwn(value, 'value'))
      return bad(`answered type ${describeValue(type)}`)
    const problem = jsonProblem(value.value, 'value')
    if (problem !== undefined) bad(`its value is not JSON (${problem})`)
    return { type: 'answer', toolCallId: call.toolCallId, value: value.value as JsonValue }
  }
  if (type !== 'approve') return bad(`answered type ${describeValue(type)}`)
  if (value.input !== undefined) {
    const problem = jsonProblem(value.input, 'input')
    if (problem !== undefined) bad(`its input is not JSON (${problem})`)
    return { type: 'approve', toolCallId: call.toolCallId, by: who, input: value.input as JsonValue }
  }
  return { type: 'approve', toolCallId: call.toolCallId, by: who }
}

/**
 * Checks a resume request against its state before anything runs: the history ends on the pending calls,
 * every outcome is for a call that waits and fits what it waits for, answers match their schemas, and
 * (with decision keys) every outcome carries a signature made for its call.
 * @throws `InvalidInputError`, `ConflictError`, `UnauthorizedError`
 */
export async function checkResume(
  agent: CompiledAgent,
  state: AgentRunState,
  outcomes: ReadonlyMap<string, AgentCallOutcome>,
): Promise<void> {
  if (state.status === 'done') {
    throw new InvalidInputError(
      `Run "${state.runId}" already ended (reason "${state.reason}"); a finished run cannot be resumed. Start a new run with its messages to continue the conversation.`,
      { details: { field: 'resume.status', received: describeValue(state.status) } },
    )
  }
  const open = openCalls(state.messages)
  const openIds = new Map(open.map((call) => [call.id, call]))
  for (const call of state.pending) {
    const made = openIds.get(call.toolCallId)
    if (made === undefined) {
      throw new ConflictError(
        `The history of run "${state.runId}" does not end on pending call "${call.toolCallId}": its last assistant message ${open.length === 0 ? 'has no unanswered tool calls' : 'does not make that call, or a tool message already answers it'}. Resume with the history the run returned or saved, unchanged.`,
        { details: { field: 'resume.messages', toolCallId: call.toolCallId } },
      )
    }
    const parsed = parseArguments(made.arguments)
    if (
      made.name !== call.toolId ||
      parsed === undefined ||
      canonicalJson(parsed.value) !== canonicalJson(call.input)
    ) {
      throw new ConflictError(
        `Pending call "${call.toolCallId}" is for ${call.toolId} with another input than the assistant message's call (${made.name}). The state was changed; resume with the state the run returned.`,
        { details: { field: `resume.pending`, toolCallId: call.toolCallId } },
      )
    }
  }
  if (state.status === 'suspended' && open.length !== state.pending.length) {
    throw new ConflictError(
      `The history of suspended run "${state.runId}" ends on ${open.length} unanswered call(s) but the run waits for ${state.pending.length}. Resume with the history the run returned, unchanged.`,
      { details: { field: 'resume.messages' } },
    )
  }
  const pending = new Map(state.pending.map((call) => [call.toolCallId, call]))
  for (const [id, outcome] of outcomes) {
    const call = pending.get(id)
    const field = `outcomes.${id}`
    if (call === undefined || call.waitingFor === 'running') {
      refuseField(
        'input',
        field,
        `names tool call "${id}", which is not pending in run "${state.runId}" (pending: ${
          [...pending.values()]
            .filter((c) => c.waitingFor !== 'running')
            .map((c) => `"${c.toolCallId}"`)
            .join(', ') || 'none'
        }). Send outcomes only for the calls the run waits for`,
        id,
      )
    }
    if (!fits(call.waitingFor, outcome)) {
      const expected = {
        approval: '"approve" or "reject"',
        external: '"result", "failure" or "reject"',
        question: '"answer" or "reject"',
      }[call.waitingFor as 'approval']
      refuseField(
        'input',
        `${field}.type`,
        `is "${outcome.type}", but call "${id}" waits for ${call.waitingFor === 'approval' ? 'approval' : call.waitingFor === 'external' ? "the host's result" : 'an answer'}; send ${expected}`,
        outcome.type,
      )
    }
    if (outcome.type === 'approve' && outcome.input !== undefined) {
      const tool = agent.tools.get(call.toolId)
      const checked = tool ? checkEditedInput(tool.tool, outcome.input) : undefined
      if (checked !== undefined && !checked.ok) {
        refuseField(
          'input',
          `${field}.input`,
          `(the approved edit) does not match the input schema of ${call.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          outcome.input,
          { details: { issues: checked.issues } },
        )
      }
    }
    if (outcome.type === 'answer') {
      const tool = agent.tools.get(call.toolId)
      const validator = tool ? answerValidatorOf(tool) : undefined
      const checked = validator?.validate(outcome.value)
      if (checked !== undefined && !checked.ok) {
        refuseField(
          'input',
          `${field}.value`,
          `does not match the answer schema of ${call.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          outcome.value,
          { details: { issues: checked.issues } },
        )
      }
    }
    await checkSignature(agent, call, outcome, field)
  }
  // Last: the state as a whole (its history and counters) is the one the agent suspended.
  await verifyState(state, agent.keys)
}

async function checkSignature(
  agent: CompiledAgent,
  call: AgentPendingCall,
  outcome: AgentCallOutcome,
  field: string,
): Promise<void> {
  const { keys } = agent
  if (keys === undefined) {
    if (outcome.signature !== undefined) {
      throw new UnauthorizedError(
        `${field} is signed, but this agent has no decisionKeys to verify it. Give the agent that resumes the run the same decisionKeys as the one that suspended it.`,
        { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
      )
    }
    return
  }
  if (outcome.signature === undefined) {
    throw new UnauthorizedError(
      `${field} is not signed, but this agent requires signed outcomes. Send the pending call's signature back with its decision, result or answer.`,
      { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
    )
  }
  // An approval that changes the input is signed over the changed input.
  const edit = outcome.type === 'approve' ? outcome.input : undefined
  const identity = {
    runId: call.runId,
    toolCallId: call.toolCallId,
    invocationId: call.invocationId,
    toolId: call.toolId,
    input: edit ?? call.input,
  }
  if (!(await verifyToolCallSignature(identity, outcome.signature, keys))) {
    throw new UnauthorizedError(
      `The signature of ${field} does not match call "${call.toolCallId}" of run "${call.runId}" (its id, invocation, tool and input). It was made for another call or run, or the call was changed; ask for a new decision.`,
      { details: { field: `${field}.signature`, toolCallId: call.toolCallId } },
    )
  }
}

/** Refuses an approved edit (decided in this process) that does not match the tool's input schema. */
export function checkEdit(
  agent: CompiledAgent,
  pending: AgentPendingCall,
  input: JsonValue,
  hook: string,
): void {
  const tool = agent.tools.get(pending.toolId)
  const checked = tool ? checkEditedInput(tool.tool, input) : undefined
  if (checked !== undefined && !checked.ok) {
    refuseField(
      'output',
      'input',
      `that does not match the input schema of ${pending.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
      input,
      {
        prefix: `${hook} approved tool call "${pending.toolCallId}" with an `,
        details: { hook, issues: checked.issues },
      },
    )
  }
}

/** Refuses an answer (given in this process) that does not match the question tool's answer schema. */
export function checkAnswer(
  agent: CompiledAgent,
  pending: AgentPendingCall,
  value: JsonValue,
  hook: string,
): void {
  const tool = agent.tools.get(pending.toolId)
  const checked = tool ? answerValidatorOf(tool)?.validate(value) : undefined
  if (checked !== undefined && !checked.ok) {
    refuseField(
      'output',
      'value',
      `that does not match the answer schema of ${pending.toolId}: ${checked.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
      value,
      {
        prefix: `${hook} answered tool call "${pending.toolCallId}" with a `,
        details: { hook, issues: checked.issues },
      },
    )
  }
}

/**
 * Checks an approved edit against the tool's input schema (JSON Schema or Standard Schema). An edit is
 * checked synchronously, so a schema that validates asynchronously refuses it with an issue saying so.
 */
function checkEditedInput(
  tool: ModelTool<unknown, unknown, unknown>,
  input: unknown,
): { readonly ok: true } | { readonly ok: false; readonly issues: readonly SchemaIssue[] } {
  const checked = modelToolSchemas(tool).input.validate(input)
  if (!(checked instanceof Promise)) return checked
  consumeRejection(checked)
  return {
    ok: false,
    issues: [
      {
        path: '/',
        keyword: 'schema',
        message:
          'the input schema validates asynchronously, and an approved edit is checked synchronously: give the tool a synchronous schema to allow edits',
      },
    ],
  }
}
