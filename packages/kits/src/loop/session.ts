import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  type ChatMessage,
  createOperationContext,
  describeValue,
  FieldReader,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  refuseField,
} from '@agent-core/core'
import type { AgentResult, AgentRunRequest } from './agent.js'
import { isCustomInput } from './custom-inputs.js'
import { isRecord } from './internal/check.js'
import type { AgentCallOutcome, AgentRunState } from './run-state.js'

/**
 * A write to a session was refused because the session changed since it was read: another run (in this
 * process or in another one sharing the storage) appended, popped, cleared or compacted in between.
 * Nothing of the refused write was stored. `details` carry the `sessionId`, the `expectedRevision` and the
 * `revision` the store found. Read the session again and retry the run if it still makes sense. Session
 * stores (`@agent-core/kits/memory` and its SQLite and PostgreSQL stores) throw it; the memory kit
 * exports the same class.
 * @example
 * ```ts
 * import { SessionConflictError } from '@agent-core/kits/loop'
 * const error = new SessionConflictError('Session "chat-1" changed (revision 4, expected 3). Read it again.', {
 *   details: { sessionId: 'chat-1', expectedRevision: 3, revision: 4 },
 * })
 * SessionConflictError.isInstance(error) // true
 * ```
 */
export class SessionConflictError extends AgentCoreError {
  static override readonly code = 'session-conflict'
  declare readonly code: 'session-conflict'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('session-conflict', message, options)
  }
}

/**
 * A run on a session was refused because another run on the same session is still going in this process
 * (`concurrency: 'refuse'`), or because the session holds a suspended run that must be resumed first.
 * `details.sessionId` names the session, `details.reason` is `'running'` or `'suspended'`. The memory kit
 * exports the same class.
 * @example
 * ```ts
 * import { SessionBusyError } from '@agent-core/kits/loop'
 * const error = new SessionBusyError('Session "chat-1" has a run going. Wait for it.', {
 *   details: { sessionId: 'chat-1', reason: 'running' },
 * })
 * error.code // 'session-busy'
 * ```
 */
export class SessionBusyError extends AgentCoreError {
  static override readonly code = 'session-busy'
  declare readonly code: 'session-busy'
  constructor(message: string, options?: AgentCoreErrorOptions) {
    super('session-busy', message, options)
  }
}

/**
 * One stored message of a session and its position (`seq` grows by one per appended message).
 * @example
 * ```ts
 * import type { AgentSessionMessage } from '@agent-core/kits/loop'
 * const entry: AgentSessionMessage = { seq: 1, message: { role: 'user', content: 'Hi' } }
 * ```
 */
export interface AgentSessionMessage {
  readonly seq: number
  readonly message: ChatMessage
}

/**
 * What a session keeps beside its messages, as far as a run on it reads it: the suspended run (its
 * state and how many messages it was given) and the summary a compaction recorded. Stores keep it as
 * JSON; other fields (the memory kit's usage figures) are kept as they are.
 * @example
 * ```ts
 * import type { AgentSessionState } from '@agent-core/kits/loop'
 * const state: AgentSessionState = { compaction: { summary: 'The user is Ada.', throughSeq: 12 } }
 * ```
 */
export interface AgentSessionState {
  readonly suspended?: { readonly runId: string; readonly given: number; readonly state: unknown } | undefined
  readonly compaction?: { readonly summary: string; readonly throughSeq: number } | undefined
}

/**
 * A session as its store reads it: the revision (0 for one never written), the messages in `seq` order
 * and the state.
 * @example
 * ```ts
 * import type { AgentSessionSnapshot } from '@agent-core/kits/loop'
 * const empty: AgentSessionSnapshot = { sessionId: 'chat-1', revision: 0, messages: [], state: undefined }
 * ```
 */
export interface AgentSessionSnapshot {
  readonly sessionId: string
  readonly revision: number
  readonly messages: readonly AgentSessionMessage[]
  readonly state: AgentSessionState | undefined
}

/**
 * The session port of `agent.run({ session })`: the two operations a run needs. `append` is one atomic
 * write that, given `expectedRevision`, throws {@link SessionConflictError} unless the session is still at
 * it. The memory kit's stores (memory, SQLite, PostgreSQL) satisfy it, and its conformance suite checks
 * the semantics.
 * @example
 * ```ts
 * import type { AgentSessionStore } from '@agent-core/kits/loop'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * const store: AgentSessionStore = createMemorySessionStore()
 * ```
 */
export interface AgentSessionStore {
  read(sessionId: string): Promise<AgentSessionSnapshot>
  append(
    sessionId: string,
    write: {
      readonly messages: readonly ChatMessage[]
      readonly expectedRevision?: number | undefined
      readonly state?: AgentSessionState | null | undefined
    },
  ): Promise<{ readonly revision: number; readonly firstSeq: number; readonly lastSeq: number }>
}

/**
 * A session to run on: the store that keeps it and its id (the App's: a chat id, a user and a thread).
 * @example
 * ```ts
 * import type { AgentSessionRef } from '@agent-core/kits/loop'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * const session: AgentSessionRef = { store: createMemorySessionStore(), id: 'chat-1' }
 * ```
 */
export interface AgentSessionRef {
  readonly store: AgentSessionStore
  readonly id: string
}

/**
 * How {@link holdSession} waits: `queue` (default) waits for the run that holds the session, `refuse`
 * throws {@link SessionBusyError} at once; `signal` stops the wait.
 * @example
 * ```ts
 * import type { HoldSessionOptions } from '@agent-core/kits/loop'
 * const options: HoldSessionOptions = { concurrency: 'refuse' }
 * ```
 */
export interface HoldSessionOptions {
  readonly concurrency?: 'queue' | 'refuse' | undefined
  readonly signal?: AbortSignal | undefined
}

/** Runs on one session in this process, by store object and session id: the last holder's turn and how many hold or wait. */
const holders = new WeakMap<object, Map<string, { tail: Promise<void>; count: number }>>()

/**
 * Runs `body` while this process holds the session (by store object and id): what `agent.run({ session })`
 * and the memory kit's `runSession` do, so that two runs on one session never interleave in a process.
 * A second holder waits in arrival order (or is refused, `concurrency: 'refuse'`); the session is let go
 * when `body` settles, whether it resolved or threw. Across processes, the store's `expectedRevision`
 * check refuses the later write instead.
 * @throws {@link SessionBusyError} with `concurrency: 'refuse'` when the session is held
 * @example
 * ```ts
 * import { holdSession } from '@agent-core/kits/loop'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * const session = { store: createMemorySessionStore(), id: 'chat-1' }
 * const order: string[] = []
 * await Promise.all([
 *   holdSession(session, {}, async () => order.push('first')),
 *   holdSession(session, {}, async () => order.push('second')),
 * ])
 * // order: ['first', 'second']
 * ```
 */
export async function holdSession<T>(
  session: { readonly store: object; readonly id: string },
  options: HoldSessionOptions,
  body: () => Promise<T>,
): Promise<T> {
  let byId = holders.get(session.store)
  if (!byId) holders.set(session.store, (byId = new Map()))
  const entry = byId.get(session.id)
  if (entry && options.concurrency === 'refuse') {
    throw new SessionBusyError(
      `Session ${JSON.stringify(session.id)} has a run going in this process; runs on one session never interleave. Wait for it, or pass concurrency: 'queue'.`,
      { details: { sessionId: session.id, reason: 'running' } },
    )
  }
  const previous = entry?.tail
  let release!: () => void
  const mine = new Promise<void>((resolve) => {
    release = resolve
  })
  const held = entry ?? { tail: Promise.resolve(), count: 0 }
  // The next holder waits for every earlier one, even one that stopped waiting (its signal fired).
  held.tail = (previous ?? Promise.resolve()).then(() => mine)
  held.count += 1
  byId.set(session.id, held)
  try {
    if (previous) {
      const waiting = `waiting for the run on session ${JSON.stringify(session.id)}`
      await (options.signal ? raceSignal(previous, options.signal, waiting) : previous)
    }
    return await body()
  } finally {
    release()
    held.count -= 1
    if (held.count === 0 && byId.get(session.id) === held) byId.delete(session.id)
  }
}

/** What the model reads in place of the messages a compaction folded (the memory kit's `SUMMARY_PREFIX`). */
const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n'

/** The history a run on the session reads: every message, or, after a compaction, its pinned system messages, its summary and what came after it. */
function historyOf(snapshot: AgentSessionSnapshot): ChatMessage[] {
  const compaction = snapshot.state?.compaction
  if (!compaction) return snapshot.messages.map((entry) => entry.message)
  const out: ChatMessage[] = []
  for (const entry of snapshot.messages)
    if (entry.seq <= compaction.throughSeq && entry.message.role === 'system') out.push(entry.message)
  out.push({ role: 'system', content: `${SUMMARY_PREFIX}${compaction.summary}` })
  for (const entry of snapshot.messages) if (entry.seq > compaction.throughSeq) out.push(entry.message)
  return out
}

function readSession(value: unknown): AgentSessionRef {
  const fields = new FieldReader(value, 'request.session', 'a session { store, id }')
  const store = fields.get('store')
  if (!isRecord(store) || typeof store.read !== 'function' || typeof store.append !== 'function')
    fields.fail(
      'store',
      `must be a session store with read and append, but got ${describeValue(store)}`,
      store,
    )
  const id = fields.requiredString('id')
  fields.done()
  return { store: store as unknown as AgentSessionStore, id: id! }
}

/** The request fields a run on a session takes out before the run: `session` and `concurrency`. */
export function isSessionRequest(request: unknown): boolean {
  return isRecord(request) && (request.session !== undefined || request.concurrency !== undefined)
}

/**
 * `agent.run({ session, ... })`: holds the session, reads it, runs `run` on its history (a new turn) or
 * on its suspended state (a resume), and appends what the run added in one write checked against the
 * revision it read.
 */
export async function runOnSession<Answer, App>(
  request: AgentRunRequest<App>,
  context: OperationContext<App> | OperationContextInit<App>,
  run: (request: AgentRunRequest<App>, context: OperationContext<App>) => Promise<AgentResult<Answer>>,
): Promise<AgentResult<Answer>> {
  const { session: rawSession, concurrency = 'queue', ...rest } = request
  if (rawSession === undefined)
    refuseField('input', 'request.concurrency', 'only goes with request.session', concurrency)
  const session = readSession(rawSession)
  if (concurrency !== 'queue' && concurrency !== 'refuse')
    refuseField(
      'input',
      'request.concurrency',
      `must be 'queue' or 'refuse', but got ${describeValue(concurrency)}`,
      concurrency,
    )
  if (rest.resume !== undefined)
    refuseField(
      'input',
      'request.resume',
      'cannot go with request.session: the session holds its suspended run. Leave resume out and give the outcomes',
      rest.resume,
    )
  const custom = Array.isArray(rest.messages) ? rest.messages.findIndex(isCustomInput) : -1
  if (custom !== -1)
    refuseField(
      'input',
      `request.messages[${custom}]`,
      "is a custom input, which a session cannot keep (its store holds chat messages). Turn it into a message before the run (transformInput's work), or run without the session",
      rest.messages![custom],
    )
  const ctx = createOperationContext(context as OperationContextInit<App>) as OperationContext<App>
  const newTurn =
    rest.prompt !== undefined ||
    (rest.messages !== undefined && rest.messages.length > 0) ||
    (isRecord(rest.toolChoice) && 'input' in rest.toolChoice)
  return holdSession(session, { concurrency, signal: ctx.signal }, async () => {
    const snapshot = await session.store.read(session.id)
    const suspended = snapshot.state?.suspended
    let result: AgentResult<Answer>
    let given: number
    if (newTurn) {
      if (suspended)
        throw new SessionBusyError(
          `Session ${JSON.stringify(session.id)} holds the suspended run ${JSON.stringify(suspended.runId)}: resume it (run on the session with outcomes and no prompt) before the next turn, or clear the session.`,
          { details: { sessionId: session.id, reason: 'suspended', runId: suspended.runId } },
        )
      if (rest.outcomes !== undefined)
        refuseField(
          'input',
          'request.outcomes',
          'only go with the resume of the session’s suspended run (no prompt, no messages)',
          rest.outcomes,
        )
      const history = historyOf(snapshot)
      given = history.length
      result = await run({ ...rest, messages: [...history, ...(rest.messages ?? [])] }, ctx)
    } else {
      if (!suspended)
        throw new InvalidStateError(
          `Session ${JSON.stringify(session.id)} has no suspended run to resume (it was resumed already, or never suspended). Give a prompt to start a new turn.`,
          { details: { field: 'request.prompt', received: 'undefined', sessionId: session.id } },
        )
      given = suspended.given
      const { messages: _none, ...resumeRequest } = rest
      result = await run(
        {
          ...resumeRequest,
          resume: suspended.state as AgentRunState,
          outcomes: rest.outcomes as Readonly<Record<string, AgentCallOutcome>> | undefined,
        },
        ctx,
      )
    }
    const {
      suspended: _done,
      usage: _stale,
      ...kept
    } = (snapshot.state ?? {}) as AgentSessionState & {
      usage?: unknown
    }
    if (result.reason === 'suspended') {
      await session.store.append(session.id, {
        messages: [],
        expectedRevision: snapshot.revision,
        state: { ...kept, suspended: { runId: result.runId, given, state: result.state } },
      })
      return result
    }
    await session.store.append(session.id, {
      messages: result.messages.slice(given),
      expectedRevision: snapshot.revision,
      state: Object.keys(kept).length === 0 ? null : kept,
    })
    return result
  })
}
