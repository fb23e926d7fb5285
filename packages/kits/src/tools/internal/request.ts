import { FieldReader } from '@agent-core/core'
import { isJournal, type ToolCallJournal } from '../tool-call-journal.js'
import type { FailedToolCall, ToolCallState, ToolWaitKind } from '../tool-call-state.js'
import type { ToolDecision } from '../tool-decision.js'
import type { ToolHostResult, ToolRunOptions } from '../tool-lifecycle-registry.js'
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

/** Reads a run request strictly; a malformed request is the caller's mistake and is thrown. */
export function readRequest(
  request: unknown,
): Omit<PassStart, 'invocationId' | 'decision' | 'waited' | 'original' | 'options'> {
  const fields: FieldReader = new FieldReader(
    request,
    'request',
    'an object { toolCallId, toolId, input }',
    'input',
  )
  const toolCallId = fields.requiredString('toolCallId')
  const toolId = fields.requiredString('toolId')
  const runId = fields.string('runId')
  const timeoutMs = fields.get('timeoutMs') as number | undefined
  const timeout = timeoutProblem(timeoutMs)
  if (timeout !== undefined) fields.fail('timeoutMs', timeout, timeoutMs)
  const input = fields.get('input')
  const raw = fields.get('arguments')
  let parsed: PassStart['input']
  if (raw !== undefined) {
    if (input !== undefined)
      fields.fail('arguments', 'cannot be given together with input; give one of them', raw)
    if (typeof raw !== 'string') fields.mustBe('arguments', 'the JSON text of the input', raw)
    try {
      const value: unknown = JSON.parse(raw)
      parsed = jsonProblem(value) === undefined ? { ok: true, value: value as JsonValue } : { ok: false, raw }
    } catch {
      parsed = { ok: false, raw }
    }
  } else {
    if (input === undefined)
      fields.fail('input', 'is missing; give the input (or the raw arguments text)', input)
    const problem = jsonProblem(input, 'request.input')
    if (problem !== undefined)
      fields.fail(
        'input',
        `must be plain JSON (what a model sends and a pending call stores), but ${problem}`,
        input,
      )
    parsed = { ok: true, value: input as JsonValue }
  }
  return { toolCallId, toolId, runId, timeoutMs, input: parsed }
}

export function readOptions(options: unknown, resuming: boolean): PassOptions {
  if (options === undefined) return NO_OPTIONS
  const fields: FieldReader = new FieldReader(
    options,
    'options',
    'an object { journal?, saveBeforeRun?, decide?, result?, toolPolicy? }',
    'input',
  )
  const progress = fields.get('progress') as ToolRunOptions['progress']
  if (progress !== undefined && typeof progress !== 'function')
    fields.mustBe('progress', "a function (update) that receives the tool's progress reports", progress)
  const journal = fields.get('journal') as ToolCallJournal | undefined
  if (journal !== undefined && !isJournal(journal))
    fields.mustBe('journal', 'a ToolCallJournal (new ToolCallJournal())', journal)
  const saveBeforeRun = fields.get('saveBeforeRun') as ToolRunOptions['saveBeforeRun']
  if (saveBeforeRun !== undefined && typeof saveBeforeRun !== 'function')
    fields.mustBe('saveBeforeRun', 'a function (pending, context) that saves the call', saveBeforeRun)
  const decide = fields.get('decide') as ToolRunOptions['decide']
  if (decide !== undefined && resuming)
    fields.fail(
      'decide',
      'decides the waits of a fresh call; give it to run, not resume (resume carries its decision)',
      decide,
    )
  if (decide !== undefined && typeof decide !== 'function')
    fields.mustBe('decide', 'a function (pending, context) that answers a decision or nothing', decide)
  const result = fields.get('result') as ToolHostResult | undefined
  if (result !== undefined) {
    if (!resuming)
      fields.fail(
        'result',
        'is the result the host supplies for a pending call; give it to resume, not run',
        result,
      )
    if (typeof result !== 'object' || result === null)
      fields.fail('result', 'must be { ok: true, output } or { ok: false, error }', result)
    if (result.ok === true) {
      const problem =
        result.output === undefined ? undefined : jsonProblem(result.output, 'options.result.output')
      if (problem !== undefined) fields.fail('result', `must hold plain JSON output, but ${problem}`, result)
    } else if (result.ok !== false) fields.fail('result', 'must have ok: true or ok: false', result)
  }
  const toolPolicy = fields.get('toolPolicy')
  return {
    journal,
    result,
    saveBeforeRun,
    decide,
    toolPolicy: toolPolicy === undefined ? undefined : assertToolPolicy(toolPolicy, 'options.toolPolicy'),
    progress,
  }
}
