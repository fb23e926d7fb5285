import {
  AgentCoreError,
  type DiagnosticSpan,
  describeValue,
  InvalidOutputError,
  UnauthorizedError,
} from '@agent-core/core'
import type { ToolCallOutcome, ToolCallView, ToolTemplateInput } from '../tool-call-outcome.js'
import type {
  ToolCallErrorRecord,
  ToolLifecyclePhase,
  ToolRejection,
  ToolWaitKind,
} from '../tool-call-state.js'
import type { ApprovalRequiredError as ApprovalRequiredErrorClass } from '../tool-errors.js'
import { errorText } from './default-message.js'
import type { JsonValue } from './json.js'
import { ApprovalRequiredError, copyJson, DECISION_MAKERS, ToolRejectedError } from './pass-host.js'
import type { PassStart } from './request.js'

// The settlements of a pass (tool-pass.ts), loaded with it on a registry's first call; like it, this
// module imports the rest of the kit through pass-host.ts only.

/** What the lifecycle settles on before its message is rendered. */
export type Settlement =
  | { readonly status: 'completed'; readonly output: unknown }
  | {
      readonly status: 'pending'
      readonly waitingFor: ToolWaitKind
      readonly reason: string
      readonly question?: string | undefined
    }
  | { readonly status: 'rejected'; readonly rejection: ToolRejection }
  | { readonly status: 'failed'; readonly error: unknown; readonly phase: ToolLifecyclePhase }

export function failed(phase: ToolLifecyclePhase, error: unknown): Settlement {
  return { status: 'failed', error, phase }
}

/** A call that waits for a person, for the reason an `ApprovalRequiredError` gives. */
export function pendingSettlement(error: ApprovalRequiredErrorClass): Settlement {
  const { reason } = error.details
  const sentence = typeof reason === 'string' && reason.length > 0 ? reason : error.message
  return {
    status: 'pending',
    waitingFor: 'approval',
    reason: sentence.length > 0 ? sentence : 'This call needs approval.',
  }
}

/** What a hook's error means for the call. */
export function classify(error: unknown, phase: ToolLifecyclePhase, hook: string): Settlement {
  if (ToolRejectedError.isInstance(error)) {
    const { reason, by, instruction } = error.details
    if (by !== undefined && !DECISION_MAKERS.includes(by)) {
      return failed(
        phase,
        new InvalidOutputError(
          `${hook} threw a ToolRejectedError whose details.by is ${describeValue(by)}; use "person", "policy" or "earlier-refusal".`,
          { details: { hook, field: 'details.by', received: describeValue(by) }, cause: error },
        ),
      )
    }
    const sentence = typeof reason === 'string' && reason.length > 0 ? reason : error.message
    return {
      status: 'rejected',
      rejection: {
        reason: sentence.length > 0 ? sentence : 'The call was refused.',
        by: by ?? 'policy',
        ...(typeof instruction === 'string' ? { instruction } : {}),
      },
    }
  }
  if (UnauthorizedError.isInstance(error)) {
    return {
      status: 'rejected',
      rejection: { reason: error.message.length > 0 ? error.message : 'The call was refused.', by: 'policy' },
    }
  }
  if (ApprovalRequiredError.isInstance(error)) {
    if (phase === 'authorize') return pendingSettlement(error)
    return failed(
      phase,
      new InvalidOutputError(
        `${hook} threw ApprovalRequiredError, but only authorize may ask for a person's approval. Move the check into the tool's authorize hook, or throw ToolRejectedError to refuse.`,
        { details: { hook }, cause: error },
      ),
    )
  }
  return failed(phase, error)
}

export function errorRecord(error: unknown): ToolCallErrorRecord {
  const code = AgentCoreError.isInstance(error) ? error.code : undefined
  const name = error instanceof Error ? error.name : typeof error
  return { ...(code === undefined ? {} : { code }), name, message: errorText(error) }
}

export function freezeView(start: PassStart, input: JsonValue): ToolCallView {
  return Object.freeze({
    toolCallId: start.toolCallId,
    invocationId: start.invocationId,
    toolId: start.toolId,
    input,
    runId: start.runId,
    decision: start.decision,
  })
}

/** The identity fields of a record whose input was parsed. */
export function identity(start: PassStart, input: JsonValue) {
  return {
    toolCallId: start.toolCallId,
    invocationId: start.invocationId,
    toolId: start.toolId,
    input: copyJson(input),
    ...(start.runId === undefined ? {} : { runId: start.runId }),
  }
}

/** The identity fields of a failed record: the parsed input, or the raw arguments that were not JSON. */
export function failedIdentity(start: PassStart) {
  return {
    toolCallId: start.toolCallId,
    invocationId: start.invocationId,
    toolId: start.toolId,
    ...(start.input.ok ? { input: copyJson(start.input.value) } : { arguments: start.input.raw }),
    ...(start.runId === undefined ? {} : { runId: start.runId }),
  }
}

export function templateInput(settlement: Settlement, view: ToolCallView): ToolTemplateInput {
  switch (settlement.status) {
    case 'completed':
      return Object.freeze({ status: 'completed', call: view, output: settlement.output })
    case 'rejected':
      return Object.freeze({ status: 'rejected', call: view, rejection: settlement.rejection })
    default: {
      const failure = settlement as Extract<Settlement, { status: 'failed' }>
      return Object.freeze({ status: 'failed', call: view, error: failure.error, phase: failure.phase })
    }
  }
}

/** Reads a provider's answer: falsy passes, a template is checked. */
export function readTemplate(
  answer: unknown,
  name: string,
  input: ToolTemplateInput,
): { content: string; isError: boolean } | undefined {
  if (!answer) return undefined
  if (typeof answer !== 'object') {
    throw new InvalidOutputError(
      `${name} must answer a template { content, isError? } or a falsy value to pass, but answered ${describeValue(answer)}.`,
      { details: { hook: name, received: describeValue(answer) } },
    )
  }
  const { content, isError } = answer as { content?: unknown; isError?: unknown }
  if (typeof content !== 'string') {
    throw new InvalidOutputError(
      `${name} answered a template whose content is ${describeValue(content)}; it must be the text the model reads.`,
      { details: { hook: name, field: 'content', received: describeValue(content) } },
    )
  }
  if (isError !== undefined && typeof isError !== 'boolean') {
    throw new InvalidOutputError(
      `${name} answered a template whose isError is ${describeValue(isError)}; give a boolean or leave it out.`,
      { details: { hook: name, field: 'isError', received: describeValue(isError) } },
    )
  }
  return { content, isError: isError ?? input.status !== 'completed' }
}

export function endSpan(span: DiagnosticSpan, outcome: ToolCallOutcome): void {
  const data = {
    status: outcome.status,
    ...(outcome.status === 'failed' ? { phase: outcome.phase } : {}),
    ...(outcome.finalizeErrors.length > 0 ? { finalizeErrors: outcome.finalizeErrors.length } : {}),
  }
  if (outcome.status === 'failed') span.fail(outcome.error, data)
  else if (outcome.finalizeErrors.length > 0) span.end('error', data, outcome.finalizeErrors[0])
  else span.end('ok', data)
}
