import type { ChatMessage } from '@agent-core/core'

/**
 * One message of a session with its position: `seq` grows by one per appended message and is never
 * reused, not even after `pop` or `clear`.
 * @example
 * ```ts
 * import type { SessionMessage } from '@agent-core/kits/memory'
 * const entry: SessionMessage = { seq: 1, message: { role: 'user', content: 'Hi' } }
 * ```
 */
export interface SessionMessage {
  readonly seq: number
  readonly message: ChatMessage
}

/**
 * The summary a compaction recorded: it stands for every non-system message up to `throughSeq`.
 * @example
 * ```ts
 * import type { SessionCompaction } from '@agent-core/kits/memory'
 * const compaction: SessionCompaction = { summary: 'The user plans a trip to Lyon.', throughSeq: 40, folded: 38, atMs: 0 }
 * ```
 */
export interface SessionCompaction {
  /** The summary text the model reads in place of the folded messages. */
  readonly summary: string
  /** The `seq` of the last message the summary covers. */
  readonly throughSeq: number
  /** How many messages the summary stands for in all (earlier summaries included). */
  readonly folded: number
  /** When it was made (ms since the epoch). */
  readonly atMs: number
}

/**
 * A session run that suspended: its state (JSON, from the loop) and how many messages it was given, so
 * its resume appends what the run added exactly once.
 * @example
 * ```ts
 * import type { SuspendedSessionRun } from '@agent-core/kits/memory'
 * declare const suspended: SuspendedSessionRun
 * const { runId, given } = suspended
 * ```
 */
export interface SuspendedSessionRun {
  readonly runId: string
  /** Messages the run was given (the window); those after them in its state are the run's own. */
  readonly given: number
  /** The loop's `AgentRunState`, as plain JSON. */
  readonly state: unknown
}

/**
 * Token usage a model reported for the session's last run, when one model call read the whole view: it
 * holds while the session is at `revision` (the write that recorded it), and is then more exact than any
 * estimate (it counts the agent's system text and tool schemas too).
 * @example
 * ```ts
 * import type { SessionUsage } from '@agent-core/kits/memory'
 * const usage: SessionUsage = { tokens: 1200, revision: 7 }
 * ```
 */
export interface SessionUsage {
  /** Tokens of what the model read and wrote on that call (input plus output). */
  readonly tokens: number
  /** The session revision it describes. */
  readonly revision: number
}

/**
 * What the session runner keeps beside the messages. Stores keep it as JSON and never interpret it.
 * @example
 * ```ts
 * import type { SessionState } from '@agent-core/kits/memory'
 * const state: SessionState = { usage: { tokens: 900, revision: 3 } }
 * ```
 */
export interface SessionState {
  readonly compaction?: SessionCompaction | undefined
  readonly suspended?: SuspendedSessionRun | undefined
  readonly usage?: SessionUsage | undefined
}

/**
 * A session as read: its revision (0 when it was never written), its messages in order and its state.
 * @example
 * ```ts
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * const store = createMemorySessionStore()
 * const snapshot = await store.read('chat-1')
 * snapshot.revision // 0
 * ```
 */
export interface SessionSnapshot {
  readonly sessionId: string
  /** Grows by exactly one on every write (append, pop, clear); 0 for a session never written. */
  readonly revision: number
  /** The messages, ordered by `seq` (only those after `afterSeq` when the read asked so). */
  readonly messages: readonly SessionMessage[]
  readonly state: SessionState | undefined
}

/**
 * Options of {@link SessionStore.read}.
 * @example
 * ```ts
 * import type { SessionReadOptions } from '@agent-core/kits/memory'
 * const tail: SessionReadOptions = { afterSeq: 100 }
 * ```
 */
export interface SessionReadOptions {
  /** Only the messages whose `seq` is greater. Default 0: all of them. */
  readonly afterSeq?: number | undefined
}

/**
 * One atomic write of {@link SessionStore.append}: messages added at the end, and optionally the state.
 * @example
 * ```ts
 * import type { SessionAppend } from '@agent-core/kits/memory'
 * const write: SessionAppend = { messages: [{ role: 'user', content: 'Hi' }], expectedRevision: 0 }
 * ```
 */
export interface SessionAppend {
  /** Added at the end, in order (may be empty to change only the state). */
  readonly messages: readonly ChatMessage[]
  /** Refuse the write with a `SessionConflictError` unless the session is at this revision. */
  readonly expectedRevision?: number | undefined
  /** The new state (`null` removes it; left out keeps it). */
  readonly state?: SessionState | null | undefined
}

/**
 * What a write did: the session's new revision and the `seq` of the first and last messages it added
 * (`firstSeq > lastSeq` when it added none).
 * @example
 * ```ts
 * import type { SessionWrite } from '@agent-core/kits/memory'
 * const added = (write: SessionWrite) => write.lastSeq - write.firstSeq + 1
 * ```
 */
export interface SessionWrite {
  readonly revision: number
  readonly firstSeq: number
  readonly lastSeq: number
}

/**
 * Options of {@link SessionStore.pop} and {@link SessionStore.clear}.
 * @example
 * ```ts
 * import type { SessionWriteOptions } from '@agent-core/kits/memory'
 * const options: SessionWriteOptions = { expectedRevision: 3 }
 * ```
 */
export interface SessionWriteOptions {
  /** Refuse with a `SessionConflictError` unless the session is at this revision. */
  readonly expectedRevision?: number | undefined
}

/**
 * What {@link SessionStore.pop} did: the new revision and the message it removed (none on an empty session,
 * which is then left as it was).
 * @example
 * ```ts
 * import type { SessionPop } from '@agent-core/kits/memory'
 * const text = (pop: SessionPop) => pop.removed?.message.content
 * ```
 */
export interface SessionPop {
  readonly revision: number
  readonly removed: SessionMessage | undefined
}

/**
 * The session store port: conversations kept by id (ids are the App's: a chat id, a user id plus a
 * thread). Every write is atomic and bumps the revision, so a write that names `expectedRevision` is a
 * compare-and-set that holds across processes sharing the storage. `append` costs what it adds, not what
 * the session holds. Implementations: {@link createMemorySessionStore}, `@agent-core/kits/memory/sqlite`,
 * `@agent-core/kits/memory/postgres`; check your own with `@agent-core/kits/memory/testing`.
 * @example
 * ```ts
 * import { createMemorySessionStore, type SessionStore } from '@agent-core/kits/memory'
 * const store: SessionStore = createMemorySessionStore()
 * const write = await store.append('chat-1', { messages: [{ role: 'user', content: 'Hi' }], expectedRevision: 0 })
 * const { messages } = await store.read('chat-1')
 * ```
 */
export interface SessionStore {
  /** Reads a session (an unknown id reads as an empty session at revision 0). */
  read(sessionId: string, options?: SessionReadOptions): Promise<SessionSnapshot>
  /** Appends messages (and optionally sets the state) atomically; creates the session when needed. */
  append(sessionId: string, write: SessionAppend): Promise<SessionWrite>
  /** Removes the last message. */
  pop(sessionId: string, options?: SessionWriteOptions): Promise<SessionPop>
  /** Removes every message and the state; the revision still grows and `seq`s are not reused. */
  clear(sessionId: string, options?: SessionWriteOptions): Promise<{ readonly revision: number }>
}

/**
 * One fact of a {@link FactStore}.
 * @example
 * ```ts
 * import type { Fact } from '@agent-core/kits/memory'
 * const fact: Fact = { key: 'city', value: 'Lyon', updatedAtMs: 0 }
 * ```
 */
export interface Fact {
  readonly key: string
  readonly value: string
  readonly updatedAtMs: number
}

/**
 * The fact store port: a small key/value memory per scope (the App names scopes, e.g. `user:42` or
 * `session:chat-1`). The session stores of this kit implement it too, in the same storage.
 * @example
 * ```ts
 * import { createMemorySessionStore, type FactStore } from '@agent-core/kits/memory'
 * const facts: FactStore = createMemorySessionStore()
 * await facts.remember('user:42', 'city', 'Lyon')
 * await facts.recall('user:42', 'city') // { key: 'city', value: 'Lyon', updatedAtMs: ... }
 * ```
 */
export interface FactStore {
  /** Sets a fact (replacing its value). */
  remember(scope: string, key: string, value: string): Promise<Fact>
  /** One fact, or undefined. */
  recall(scope: string, key: string): Promise<Fact | undefined>
  /** Every fact of the scope, ordered by key. */
  recallAll(scope: string): Promise<readonly Fact[]>
  /** Removes a fact; true when there was one. */
  forget(scope: string, key: string): Promise<boolean>
}
