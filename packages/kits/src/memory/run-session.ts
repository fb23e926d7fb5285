import {
  type ChatMessage,
  createOperationContext,
  describeValue,
  FieldReader,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
} from '@agent-core/core'
import type {
  Agent,
  AgentCallOutcome,
  AgentEvent,
  AgentResult,
  AgentRunRequest,
  AgentRunState,
} from '@agent-core/kits/loop'
import { holdSession } from '@agent-core/kits/loop'
import {
  type CompactionEvent,
  type CompactionOptions,
  type CompactionOutcome,
  compactSnapshot,
  readCompactionOptions,
  readSessionRef,
} from './compaction.js'
import { SessionBusyError } from './errors.js'
import { checkMessages } from './internal/checks.js'
import type { SessionState } from './session-store.js'
import { type SessionRef, sessionView } from './session-view.js'
import { readWindowOptions, type WindowOptions, windowOf } from './window.js'

/**
 * What a session run writes once it is recorded: the session's new revision and the `seq`s it added.
 * @example
 * ```ts
 * import type { SessionSavedEvent } from '@agent-core/kits/memory'
 * const added = (event: SessionSavedEvent) => event.lastSeq - event.firstSeq + 1
 * ```
 */
export interface SessionSavedEvent {
  readonly type: 'session-saved'
  readonly sessionId: string
  readonly revision: number
  readonly firstSeq: number
  readonly lastSeq: number
  /** True when the run suspended: its state was recorded and its messages wait for the resume. */
  readonly suspended: boolean
}

/**
 * The events of a session run: the loop's events, the compaction's, and `session-saved`.
 * @example
 * ```ts
 * import type { SessionEvent } from '@agent-core/kits/memory'
 * const onEvent = (event: SessionEvent) => {
 *   if (event.type === 'text-delta') process.stdout.write(event.text)
 *   if (event.type === 'compaction-done') console.log(`\n(folded ${event.compaction.folded} messages)`)
 * }
 * ```
 */
export type SessionEvent = AgentEvent | CompactionEvent | SessionSavedEvent

/**
 * One run on a session: a new turn (`prompt` and/or `messages`) or the resume of the session's suspended
 * run (`resume: true` with `outcomes`), what the model sees (`window`), when to compact, and the loop's
 * run options that fit a session run.
 * @example
 * ```ts
 * import { createMemorySessionStore, type SessionRunRequest } from '@agent-core/kits/memory'
 * const request: SessionRunRequest = {
 *   session: { store: createMemorySessionStore(), id: 'chat-1' },
 *   prompt: 'And tomorrow?',
 *   window: { maxMessages: 40 },
 * }
 * ```
 */
export interface SessionRunRequest<App = unknown>
  extends Pick<
    AgentRunRequest<App>,
    'runId' | 'toolChoice' | 'defer' | 'resolveApproval' | 'answerQuestion' | 'onHistoryAppend' | 'onProgress'
  > {
  readonly session: SessionRef
  /** The user's message, added after `messages`. */
  readonly prompt?: string | undefined
  /** New messages of this turn (a user message with images, say), added before `prompt`. */
  readonly messages?: readonly ChatMessage[] | undefined
  /** Resume the session's suspended run instead of starting one. Not with `prompt` or `messages`. */
  readonly resume?: boolean | undefined
  /** With `resume`: the decisions and results of the pending calls, keyed by tool-call id. */
  readonly outcomes?: Readonly<Record<string, AgentCallOutcome>> | undefined
  /** What the model sees of the history. Default: all of it (after the last summary). */
  readonly window?: WindowOptions | undefined
  /** Compact before the run when the session passes a budget. Default: never. */
  readonly compaction?: CompactionOptions<App> | undefined
  /** A second run on a session that has one going in this process: `queue` (default) waits, `refuse` throws. */
  readonly concurrency?: 'queue' | 'refuse' | undefined
  /** Every event, synchronously, in order: the loop's, the compaction's, and `session-saved`. */
  readonly onEvent?: ((event: SessionEvent) => void) | undefined
}

/**
 * What a session run did beside the loop's result.
 * @example
 * ```ts
 * import type { SessionRunReport } from '@agent-core/kits/memory'
 * const note = (report: SessionRunReport) => `${report.appended.length} message(s) saved, revision ${report.revision}`
 * ```
 */
export interface SessionRunReport {
  readonly sessionId: string
  /** The session's revision after the run was recorded. */
  readonly revision: number
  /** What this run added to the session (nothing while it is suspended; everything on its resume). */
  readonly appended: readonly ChatMessage[]
  /** Messages of the session's view the window left out for this run. */
  readonly dropped: number
  /** The compaction before the run, when `compaction` was asked for; a failure is `status: 'failed'` with its error. */
  readonly compaction: CompactionOutcome | undefined
}

/**
 * The loop's result of a session run, with what the session run did.
 * @example
 * ```ts
 * import type { SessionRunResult } from '@agent-core/kits/memory'
 * const show = (result: SessionRunResult) => `${result.text} (revision ${result.session.revision})`
 * ```
 */
export type SessionRunResult<Answer = string> = AgentResult<Answer> & { readonly session: SessionRunReport }

interface CheckedRequest<App> {
  readonly session: SessionRef
  readonly prompt: string | undefined
  readonly messages: readonly ChatMessage[]
  readonly resume: boolean
  readonly outcomes: Readonly<Record<string, AgentCallOutcome>> | undefined
  readonly window: ReturnType<typeof readWindowOptions> | undefined
  readonly compaction: ReturnType<typeof readCompactionOptions<App>> | undefined
  readonly concurrency: 'queue' | 'refuse'
  readonly onEvent: ((event: SessionEvent) => void) | undefined
  readonly pass: Partial<AgentRunRequest<App>>
}

const PASSED = [
  'runId',
  'toolChoice',
  'defer',
  'resolveApproval',
  'answerQuestion',
  'onHistoryAppend',
  'onProgress',
] as const

function readRequest<App>(value: unknown): CheckedRequest<App> {
  const fields = new FieldReader(value, 'request', 'a session run request { session, prompt?, ... }', 'input')
  const session = readSessionRef(fields.get('session'), 'request.session')
  const prompt = fields.string('prompt')
  const rawMessages = fields.get('messages')
  const messages = rawMessages === undefined ? [] : checkMessages(rawMessages, 'request.messages')
  const resume = fields.boolean('resume') ?? false
  const outcomes = fields.get('outcomes') as CheckedRequest<App>['outcomes']
  if (
    outcomes !== undefined &&
    (typeof outcomes !== 'object' || outcomes === null || Array.isArray(outcomes))
  )
    fields.fail(
      'outcomes',
      `must be an object keyed by tool-call id, but got ${describeValue(outcomes)}`,
      outcomes,
    )
  if (resume && (prompt !== undefined || messages.length > 0))
    fields.fail(
      'resume',
      'cannot go with prompt or messages: a resume continues the suspended run; send the new turn after it',
      resume,
    )
  if (!resume && outcomes !== undefined) fields.fail('outcomes', 'only goes with resume: true', outcomes)
  if (!resume && prompt === undefined && messages.length === 0)
    fields.fail(
      'prompt',
      'is needed (or messages, or resume: true): a session run adds a turn or resumes one',
      prompt,
    )
  const rawWindow = fields.get('window')
  const window = rawWindow === undefined ? undefined : readWindowOptions(rawWindow, 'request.window')
  const rawCompaction = fields.get('compaction')
  const compaction =
    rawCompaction === undefined ? undefined : readCompactionOptions<App>(rawCompaction, 'request.compaction')
  const concurrency = fields.get('concurrency') ?? 'queue'
  if (concurrency !== 'queue' && concurrency !== 'refuse')
    fields.fail(
      'concurrency',
      `must be 'queue' or 'refuse', but got ${describeValue(concurrency)}`,
      concurrency,
    )
  const onEvent = fields.func<(event: SessionEvent) => void>('onEvent')
  const pass: Record<string, unknown> = {}
  for (const key of PASSED) {
    const field = fields.get(key)
    if (field !== undefined) pass[key] = field
  }
  fields.done()
  return {
    session,
    prompt,
    messages,
    resume,
    outcomes,
    window,
    compaction,
    concurrency: concurrency as 'queue' | 'refuse',
    onEvent,
    pass: pass as Partial<AgentRunRequest<App>>,
  }
}

/**
 * Runs an agent on a session: reads the history, compacts it when asked and needed, lets the model see
 * the window of it, runs, and appends what the run added, in one atomic write that checks the session is
 * still at the revision it read. Two runs on one session never interleave: in this process the second
 * waits for the first (or is refused with a {@link SessionBusyError}, `concurrency: 'refuse'`); across
 * processes the later write is refused with a {@link SessionConflictError} and nothing of it is stored.
 * A run that suspends records its state in the session and appends nothing; `resume: true` continues it
 * and appends everything the run added, once. While a run is suspended, a new turn is refused
 * ({@link SessionBusyError}, `reason: 'suspended'`).
 *
 * Built over the loop's public run API: `agent.run({ messages, prompt })` with the window, the result's
 * messages, its suspended state and `resume`.
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { createMemorySessionStore, runSession } from '@agent-core/kits/memory'
 *
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hi Ada!' }, { text: 'You are Ada.' }]) })
 * const session = { store: createMemorySessionStore(), id: 'chat-1' }
 * await runSession(agent, { session, prompt: 'I am Ada.' })
 * const second = await runSession(agent, { session, prompt: 'Who am I?' })
 * second.messages.length // 4: the model read the first turn too
 * ```
 */
export async function runSession<Answer = string, App = unknown>(
  agent: Agent<Answer, App>,
  request: SessionRunRequest<App>,
  context?: OperationContext<App> | OperationContextInit<App>,
): Promise<SessionRunResult<Answer>> {
  if (typeof agent !== 'object' || agent === null || typeof (agent as { run?: unknown }).run !== 'function') {
    new FieldReader({ agent }, 'arguments', 'arguments', 'input').fail(
      'agent',
      `must be an agent from defineAgent, but got ${describeValue(agent)}`,
      agent,
    )
  }
  const checked = readRequest<App>(request)
  const ctx = createOperationContext(context as OperationContextInit<App>) as OperationContext<App>
  const emit = (event: SessionEvent) => checked.onEvent?.(event)
  return holdSession(checked.session, { concurrency: checked.concurrency, signal: ctx.signal }, () =>
    runLocked(agent, checked, ctx, emit),
  )
}

async function runLocked<Answer, App>(
  agent: Agent<Answer, App>,
  request: CheckedRequest<App>,
  context: OperationContext<App>,
  emit: (event: SessionEvent) => void,
): Promise<SessionRunResult<Answer>> {
  const { session } = request
  let snapshot = await session.store.read(session.id)
  const suspended = snapshot.state?.suspended
  let result: AgentResult<Answer>
  let given: number
  let dropped = 0
  let viewLength = 0
  let compaction: CompactionOutcome | undefined
  const onEvent = request.onEvent ? (event: AgentEvent) => emit(event) : undefined
  if (request.resume) {
    if (!suspended) {
      throw new InvalidStateError(
        `Session ${JSON.stringify(session.id)} has no suspended run to resume (it was resumed already, or never suspended). Start a new turn with a prompt instead.`,
        { details: { field: 'request.resume', received: 'true', sessionId: session.id } },
      )
    }
    given = suspended.given
    result = await agent.run(
      { ...request.pass, resume: suspended.state as AgentRunState, outcomes: request.outcomes, onEvent },
      context,
    )
  } else {
    if (suspended) {
      throw new SessionBusyError(
        `Session ${JSON.stringify(session.id)} holds the suspended run ${JSON.stringify(suspended.runId)}: resume it (resume: true with outcomes) before the next turn, or clear the session.`,
        { details: { sessionId: session.id, reason: 'suspended', runId: suspended.runId } },
      )
    }
    if (request.compaction) {
      const compacted = await compactSnapshot(session, snapshot, request.compaction, context, emit)
      compaction = compacted.outcome
      snapshot = compacted.snapshot
    }
    const view = sessionView(snapshot)
    viewLength = view.length
    const shown = request.window ? windowOf(view, request.window) : { messages: view, dropped: 0 }
    dropped = shown.dropped
    given = shown.messages.length
    result = await agent.run(
      {
        ...request.pass,
        messages: [...shown.messages, ...request.messages],
        ...(request.prompt === undefined ? {} : { prompt: request.prompt }),
        onEvent,
      },
      context,
    )
  }
  const { suspended: _done, usage: _old, ...kept } = snapshot.state ?? {}
  if (result.reason === 'suspended') {
    const state: SessionState = { ...kept, suspended: { runId: result.runId, given, state: result.state } }
    const write = await session.store.append(session.id, {
      messages: [],
      expectedRevision: snapshot.revision,
      state,
    })
    emit({ type: 'session-saved', sessionId: session.id, ...write, suspended: true })
    return {
      ...result,
      session: { sessionId: session.id, revision: write.revision, appended: [], dropped, compaction },
    }
  }
  const appended = result.messages.slice(given)
  // The model's own count of what it read and wrote, when one model call read the whole view.
  const measured =
    !request.resume &&
    result.turns === 1 &&
    dropped === 0 &&
    viewLength === given &&
    result.usage.totalTokens > 0
  const state: SessionState = measured
    ? {
        ...kept,
        usage: {
          tokens: result.usage.inputTokens + result.usage.outputTokens,
          revision: snapshot.revision + 1,
        },
      }
    : kept
  const write = await session.store.append(session.id, {
    messages: appended,
    expectedRevision: snapshot.revision,
    state: Object.keys(state).length === 0 ? null : state,
  })
  emit({ type: 'session-saved', sessionId: session.id, ...write, suspended: false })
  return {
    ...result,
    session: { sessionId: session.id, revision: write.revision, appended, dropped, compaction },
  }
}
