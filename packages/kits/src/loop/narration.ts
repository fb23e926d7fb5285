import { describeValue, FieldReader, refuseField } from '@agent-core/core'
import type { ToolProgressUpdate } from '@agent-core/core/tools'
import type { AgentResult } from './agent.js'
import type { AgentEvent } from './events.js'
import type { AgentPendingCall, AgentRunState } from './run-state.js'

/**
 * Display text for what an agent is doing: a short `phase` ("Searching flights") and, optionally, the
 * `goal` it serves ("a trip to Lyon on Friday"). Narration is for people watching a run: it travels in
 * `tool-progress` events (see {@link narrate}), is never part of the conversation, and never steers the run.
 * @example
 * ```ts
 * import type { Narration } from '@agent-core/kits/loop'
 * const narration: Narration = { phase: 'Searching flights', goal: 'a trip to Lyon on Friday' }
 * ```
 */
export interface Narration {
  /** What the agent is doing now, in a few words. */
  readonly phase: string
  /** What it is doing it for. */
  readonly goal?: string | undefined
}

const NARRATION_KEY = 'narration'
const MAX_LENGTH = 200

const NARRATION_CONTEXT = Object.freeze({ prefix: 'Narration ' })

function readNarration(value: unknown, field: string): Narration {
  const fields = new FieldReader(value, field, 'an object { phase, goal? }', 'input', NARRATION_CONTEXT)
  const given = value as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (key !== 'phase' && key !== 'goal')
      fields.fail(
        key,
        `is not a field (phase, goal): remove it, but got ${describeValue(given[key])}`,
        given[key],
      )
  }
  const text = (key: 'phase' | 'goal', required: boolean): string | undefined => {
    const v = required ? fields.requiredString(key) : fields.string(key)
    if (v === undefined) return undefined
    if (v.trim() === '') fields.mustBe(key, 'a non-empty string', v)
    if (v.length > MAX_LENGTH)
      fields.fail(
        key,
        `must be at most ${MAX_LENGTH} characters (it is display text), but got ${describeValue(v)}`,
        v,
      )
    return v.trim()
  }
  const phase = text('phase', true) as string
  const goal = text('goal', false)
  return Object.freeze(goal === undefined ? { phase } : { phase, goal })
}

/**
 * Builds the progress report that narrates a tool's work: pass it to `context.progress` in a tool's
 * `execute`. The run emits it as a `tool-progress` event whose `message` is the narration's line and whose
 * `data` is `{ narration }`; the model never reads it (the report is not kept). Refuses a malformed
 * narration with `InvalidInputError`.
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { narrate } from '@agent-core/kits/loop'
 * const search = defineModelTool<{ to: string }, string>({
 *   id: 'search_flights',
 *   description: 'Finds flights',
 *   inputSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } },
 *   execute: ({ to }, context) => {
 *     context.progress(narrate({ phase: 'Searching flights', goal: `a trip to ${to}` }))
 *     return `3 flights to ${to}`
 *   },
 * })
 * ```
 */
export function narrate(narration: Narration): ToolProgressUpdate {
  const read = readNarration(narration, 'narration')
  return { message: narrationLine(read), data: { [NARRATION_KEY]: { ...read } } }
}

/**
 * The narration an event carries: a `tool-progress` event made by {@link narrate}; `undefined` for any
 * other event (and for progress data that is not a well-formed narration).
 * @example
 * ```ts
 * import { narrationOf, type AgentEvent } from '@agent-core/kits/loop'
 * declare const event: AgentEvent
 * const narration = narrationOf(event)
 * if (narration) console.log(narration.phase)
 * ```
 */
export function narrationOf(event: AgentEvent): Narration | undefined {
  if (event.type !== 'tool-progress') return undefined
  const data = event.data
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  const value = (data as Record<string, unknown>)[NARRATION_KEY]
  if (value === undefined) return undefined
  try {
    return readNarration(value, 'data.narration')
  } catch {
    return undefined
  }
}

function narrationLine(narration: Narration): string {
  return narration.goal === undefined ? narration.phase : `${narration.phase} (${narration.goal})`
}

/**
 * What {@link describeRun} may also be told.
 * @example
 * ```ts
 * import type { DescribeRunOptions } from '@agent-core/kits/loop'
 * const options: DescribeRunOptions = { narration: { phase: 'Planning' } }
 * ```
 */
export interface DescribeRunOptions {
  /** The narration to show; by default the last one found in the events (none for a result or a state). */
  readonly narration?: Narration | undefined
}

const WAITING: Record<AgentPendingCall['waitingFor'], string> = {
  approval: 'approval',
  external: 'its result',
  question: 'an answer',
  running: 'a restart',
}

function waitingLine(pending: readonly AgentPendingCall[]): string {
  if (pending.length === 0) return 'waiting'
  const parts = pending.map((call) => `${call.toolId} (${WAITING[call.waitingFor]})`)
  return `waiting: ${parts.join(', ')}`
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return describeValue(error)
}

const STOPPED: Record<Exclude<AgentResult['reason'], 'suspended' | 'error'>, string> = {
  final: 'done',
  'turn-limit': 'stopped: turn limit reached',
  'token-limit': 'stopped: token limit reached',
  stopped: 'stopped',
  guardrail: 'stopped: a guardrail tripped',
}

function statusOfReason(reason: string, pending: readonly AgentPendingCall[], error: unknown): string {
  if (reason === 'suspended') return waitingLine(pending)
  if (reason === 'error') return `failed: ${errorText(error)}`
  return STOPPED[reason as keyof typeof STOPPED] ?? reason
}

function isEvents(value: unknown): value is readonly AgentEvent[] {
  return Array.isArray(value)
}

function isState(value: object): value is AgentRunState {
  return 'status' in value && 'version' in value
}

function isResult(value: object): value is AgentResult<unknown> {
  return 'reason' in value && 'state' in value && 'runId' in value
}

function statusOfEvents(events: readonly AgentEvent[]): string {
  const running = new Map<string, string>()
  let turn = 0
  for (const event of events) {
    if (event.type === 'turn-start') turn = event.turn
    if (event.type === 'tool-start') running.set(event.toolCallId, event.toolId)
    if (event.type === 'tool-resolved' || event.type === 'tool-failed' || event.type === 'tool-aborted')
      running.delete(event.toolCallId)
    if (event.type === 'tool-rejected') running.delete(event.toolCallId)
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as AgentEvent
    if (event.type === 'run-done') return statusOfReason(event.reason, [], event.error)
    if (event.type === 'run-suspended') return waitingLine(event.pending)
    if (event.type === 'run-aborted') return 'stopped'
    if (event.type === 'tool-awaiting-approval') return `waiting: ${event.toolId} (approval)`
    if (event.type === 'tool-awaiting-answer') return `waiting: ${event.toolId} (an answer)`
    if (event.type === 'turn-start' || event.type === 'tool-start' || event.type === 'run-start') break
  }
  if (running.size > 0) return `running: ${[...new Set(running.values())].join(', ')}`
  return turn > 0 ? `thinking (turn ${turn})` : 'starting'
}

const DESCRIBE_RUN_CONTEXT = Object.freeze({ prefix: 'describeRun ' })

/**
 * One line an App can show for a run: its narration (the phase and goal a tool reported with
 * {@link narrate}, or `options.narration`) joined with its state: `starting`, `thinking (turn 2)`,
 * `running: search_flights`, `waiting: book (approval)`, `failed: <message>`,
 * `stopped: turn limit reached`, `done`. Reads a run's result, a saved {@link AgentRunState}, or the events seen so far (the
 * last narration wins). Pure: it never touches the run. Refuses anything else with `InvalidInputError`.
 * @example
 * ```ts
 * import { createScriptedModel, defineAgent, describeRun } from '@agent-core/kits/loop'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * const result = await agent.run({ prompt: 'Hi' })
 * describeRun(result, { narration: { phase: 'Greeting' } }) // 'Greeting · done'
 * ```
 */
export function describeRun(
  source: AgentResult<unknown> | AgentRunState | readonly AgentEvent[],
  options: DescribeRunOptions = {},
): string {
  const fields = new FieldReader(
    options,
    'options',
    'an object { narration? }',
    'input',
    DESCRIBE_RUN_CONTEXT,
  )
  const given = fields.get('narration')
  fields.done()
  let narration = given === undefined ? undefined : readNarration(given, 'options.narration')
  let status: string
  if (isEvents(source)) {
    if (narration === undefined) {
      for (let i = source.length - 1; i >= 0 && narration === undefined; i--)
        narration = narrationOf(source[i] as AgentEvent)
    }
    status = statusOfEvents(source)
  } else if (typeof source === 'object' && source !== null && isResult(source)) {
    const error = source.reason === 'error' ? source.error : undefined
    const pending = source.reason === 'suspended' ? source.pending : []
    status = statusOfReason(source.reason, pending, error)
  } else if (typeof source === 'object' && source !== null && isState(source)) {
    if (source.status === 'suspended') status = waitingLine(source.pending)
    else if (source.status === 'done') status = statusOfReason(source.reason ?? 'final', [], undefined)
    else
      status =
        source.pending.length > 0
          ? `running: ${source.pending.map((c) => c.toolId).join(', ')}`
          : `thinking (turn ${source.turns})`
  } else {
    refuseField(
      'input',
      'source',
      `must be a run's result, its saved state or its events, but got ${describeValue(source)}`,
      source,
      DESCRIBE_RUN_CONTEXT,
    )
  }
  return narration === undefined ? status : `${narrationLine(narration)} · ${status}`
}
