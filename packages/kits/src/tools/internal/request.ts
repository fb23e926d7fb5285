import { describeValue, InvalidInputError } from '@agent-core/core'
import { isJournal, type ToolCallJournal } from '../tool-call-journal.js'
import type { FailedToolCall, ToolCallState, ToolWaitKind } from '../tool-call-state.js'
import type { ToolDecision } from '../tool-decision.js'
import type { ToolCallRequest, ToolHostResult, ToolRunOptions } from '../tool-lifecycle-registry.js'
import { assertToolPolicy, type ToolPolicy } from '../tool-policy.js'
import { canonicalJson, type JsonValue, jsonProblem } from './json.js'
import { timeoutProblem } from './lifecycle-entry.js'

/** The parsed start of one pass through the lifecycle. */
export interface PassStart {
  readonly toolCallId: string
  readonly invocationId: string
  readonly toolId: string
  readonly runId: string | undefined
  readonly timeoutMs: number | undefined
  /** The input, or why the raw arguments could not be parsed. */
  readonly input:
    | { readonly ok: true; readonly value: JsonValue }
    | { readonly ok: false; readonly raw: string }
  /** Present when a pending call is resumed. */
  readonly decision: ToolDecision | undefined
  /** What the resumed pending call waited for. */
  readonly waited: ToolWaitKind | undefined
  /** The input the model gave, when an approval changed it (approve with edits). */
  readonly original: JsonValue | undefined
  readonly options: PassOptions
}

/** The checked options of one pass. */
export interface PassOptions {
  readonly journal: ToolCallJournal | undefined
  readonly result: ToolHostResult | undefined
  readonly saveBeforeRun: ToolRunOptions['saveBeforeRun']
  readonly decide: ToolRunOptions['decide']
  readonly toolPolicy: ToolPolicy | undefined
  readonly progress: ToolRunOptions['progress']
}

const NO_OPTIONS: PassOptions = {
  journal: undefined,
  result: undefined,
  saveBeforeRun: undefined,
  progress: undefined,
  decide: undefined,
  toolPolicy: undefined,
}

export function fingerprint(input: PassStart['input']): string {
  return input.ok ? canonicalJson(input.value) : `raw:${input.raw}`
}

export function stateFingerprint(state: ToolCallState): string {
  return state.input !== undefined
    ? canonicalJson(state.input)
    : `raw:${(state as FailedToolCall).arguments ?? ''}`
}

/** Throws the error of a malformed request field (module-level: no closure per call). */
function bad(field: string, problem: string, value: unknown): never {
  throw new InvalidInputError(`request.${field} ${problem}.`, {
    details: { field: `request.${field}`, received: describeValue(value) },
  })
}

/** Reads a run request strictly; a malformed request is the caller's mistake and is thrown. */
export function readRequest(
  request: unknown,
): Omit<PassStart, 'invocationId' | 'decision' | 'waited' | 'original' | 'options'> {
  if (typeof request !== 'object' || request === null) {
    throw new InvalidInputError(
      `A tool call request must be an object { toolCallId, toolId, input }, but got ${describeValue(request)}.`,
      { details: { field: 'request', received: describeValue(request) } },
    )
  }
  const { toolCallId, toolId, input, arguments: raw, runId, timeoutMs } = request as ToolCallRequest
  if (typeof toolCallId !== 'string' || toolCallId.length === 0)
    bad('toolCallId', `must be a non-empty string, but got ${describeValue(toolCallId)}`, toolCallId)
  if (typeof toolId !== 'string' || toolId.length === 0)
    bad('toolId', `must be a non-empty string, but got ${describeValue(toolId)}`, toolId)
  if (runId !== undefined && (typeof runId !== 'string' || runId.length === 0))
    bad('runId', `must be a non-empty string when given, but got ${describeValue(runId)}`, runId)
  const timeout = timeoutProblem(timeoutMs)
  if (timeout !== undefined) bad('timeoutMs', timeout, timeoutMs)
  let parsed: PassStart['input']
  if (raw !== undefined) {
    if (input !== undefined) bad('arguments', 'cannot be given together with input; give one of them', raw)
    if (typeof raw !== 'string')
      bad('arguments', `must be the JSON text of the input, but got ${describeValue(raw)}`, raw)
    try {
      const value: unknown = JSON.parse(raw)
      parsed = jsonProblem(value) === undefined ? { ok: true, value: value as JsonValue } : { ok: false, raw }
    } catch {
      parsed = { ok: false, raw }
    }
  } else {
    if (input === undefined) bad('input', 'is missing; give the input (or the raw arguments text)', input)
    const problem = jsonProblem(input, 'request.input')
    if (problem !== undefined) {
      throw new InvalidInputError(
        `request.input must be plain JSON (what a model sends and a pending call stores), but ${problem}.`,
        { details: { field: 'request.input', received: describeValue(input) } },
      )
    }
    parsed = { ok: true, value: input as JsonValue }
  }
  return { toolCallId, toolId, runId, timeoutMs, input: parsed }
}

export function readOptions(options: unknown, resuming: boolean): PassOptions {
  if (options === undefined) return NO_OPTIONS
  if (typeof options !== 'object' || options === null) {
    throw new InvalidInputError(
      `options must be an object { journal?, saveBeforeRun?, decide?, result?, toolPolicy? }, but got ${describeValue(options)}.`,
      { details: { field: 'options', received: describeValue(options) } },
    )
  }
  const { journal, result, saveBeforeRun, decide, toolPolicy, progress } = options as ToolRunOptions
  if (progress !== undefined && typeof progress !== 'function') {
    throw new InvalidInputError(
      `options.progress must be a function (update) that receives the tool's progress reports, but got ${describeValue(progress)}.`,
      { details: { field: 'options.progress', received: describeValue(progress) } },
    )
  }
  if (journal !== undefined && !isJournal(journal)) {
    throw new InvalidInputError(
      `options.journal must be a ToolCallJournal (new ToolCallJournal()), but got ${describeValue(journal)}.`,
      { details: { field: 'options.journal', received: describeValue(journal) } },
    )
  }
  if (saveBeforeRun !== undefined && typeof saveBeforeRun !== 'function') {
    throw new InvalidInputError(
      `options.saveBeforeRun must be a function (pending, context) that saves the call, but got ${describeValue(saveBeforeRun)}.`,
      { details: { field: 'options.saveBeforeRun', received: describeValue(saveBeforeRun) } },
    )
  }
  if (decide !== undefined && (typeof decide !== 'function' || resuming)) {
    throw new InvalidInputError(
      resuming
        ? 'options.decide decides the waits of a fresh call; give it to run, not resume (resume carries its decision).'
        : `options.decide must be a function (pending, context) that answers a decision or nothing, but got ${describeValue(decide)}.`,
      { details: { field: 'options.decide', received: describeValue(decide) } },
    )
  }
  if (result !== undefined) {
    if (!resuming) {
      throw new InvalidInputError(
        'options.result is the result the host supplies for a pending call; give it to resume, not run.',
        { details: { field: 'options.result', received: describeValue(result) } },
      )
    }
    const bad = (problem: string): never => {
      throw new InvalidInputError(`options.result ${problem}.`, {
        details: { field: 'options.result', received: describeValue(result) },
      })
    }
    if (typeof result !== 'object' || result === null)
      bad('must be { ok: true, output } or { ok: false, error }')
    if (result.ok === true) {
      const problem =
        result.output === undefined ? undefined : jsonProblem(result.output, 'options.result.output')
      if (problem !== undefined) bad(`must hold plain JSON output, but ${problem}`)
    } else if (result.ok !== false) bad('must have ok: true or ok: false')
  }
  return {
    journal,
    result,
    saveBeforeRun,
    decide,
    toolPolicy: toolPolicy === undefined ? undefined : assertToolPolicy(toolPolicy, 'options.toolPolicy'),
    progress,
  }
}
