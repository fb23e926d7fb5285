import type { ChatMessage } from '@agent-core/core'
import type { SessionSnapshot, SessionStore } from './session-store.js'

/**
 * A session to run on: the store that keeps it and its id (the App's).
 * @example
 * ```ts
 * import { createMemorySessionStore, type SessionRef } from '@agent-core/kits/memory'
 * const session: SessionRef = { store: createMemorySessionStore(), id: 'chat-1' }
 * ```
 */
export interface SessionRef {
  readonly store: SessionStore
  readonly id: string
}

/**
 * What the model reads in place of the messages a compaction folded: a system message that starts with
 * this text, then the summary.
 * @example
 * ```ts
 * import { SUMMARY_PREFIX } from '@agent-core/kits/memory'
 * const isSummary = (text: string) => text.startsWith(SUMMARY_PREFIX)
 * ```
 */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n'

/** The summary as the message the model reads. */
export function summaryMessage(summary: string): ChatMessage {
  return { role: 'system', content: `${SUMMARY_PREFIX}${summary}` }
}

/** One message of a view and the `seq` it comes from (0 for the summary). */
export interface ViewEntry {
  readonly seq: number
  readonly message: ChatMessage
}

/**
 * What the model reads of a session before any window: without a compaction, every message; with one,
 * the system messages it covered (pinned), its summary, then every message after it.
 * @example
 * ```ts
 * import { createMemorySessionStore, sessionView } from '@agent-core/kits/memory'
 * const store = createMemorySessionStore()
 * await store.append('chat-1', { messages: [{ role: 'user', content: 'Hi' }] })
 * const view = sessionView(await store.read('chat-1'))
 * view.length // 1
 * ```
 */
export function sessionView(snapshot: SessionSnapshot): ChatMessage[] {
  return viewEntries(snapshot).map((entry) => entry.message)
}

export function viewEntries(snapshot: SessionSnapshot): ViewEntry[] {
  const compaction = snapshot.state?.compaction
  if (!compaction) return snapshot.messages.map(({ seq, message }) => ({ seq, message }))
  const out: ViewEntry[] = []
  for (const entry of snapshot.messages)
    if (entry.seq <= compaction.throughSeq && entry.message.role === 'system') out.push(entry)
  out.push({ seq: 0, message: summaryMessage(compaction.summary) })
  for (const entry of snapshot.messages) if (entry.seq > compaction.throughSeq) out.push(entry)
  return out
}
