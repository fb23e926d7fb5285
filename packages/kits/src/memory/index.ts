/**
 * Conversations that last: sessions kept in a store (memory here; SQLite in `memory/sqlite`, PostgreSQL in
 * `memory/postgres`; check your own with `memory/testing`), a runner that reads a session, lets the model
 * see a window of it, runs the agent and appends what the run added (never two runs interleaved, a
 * suspended run appended once on its resume), windows that keep system messages and never separate a tool
 * result from its call, compaction that folds older turns into one summary through the App's model (a
 * failed summary changes nothing), and a small key/value memory of facts that an agent can use as tools.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { createMemorySessionStore, runSession } from '@agent-core/kits/memory'
 *
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hi Ada!' }, { text: 'You are Ada.' }]) })
 * const session = { store: createMemorySessionStore(), id: 'chat-1' }
 * await runSession(agent, { session, prompt: 'I am Ada.' })
 * const result = await runSession(agent, { session, prompt: 'Who am I?', window: { maxMessages: 20 } })
 * // result.text === 'You are Ada.'; the session holds four messages
 * ```
 *
 * @module
 */
export {
  type CompactionEvent,
  type CompactionOptions,
  type CompactionOutcome,
  compactSession,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  type Summarizer,
} from './compaction.js'
export { Conversation, type ConversationOptions } from './conversation.js'
export { CompactionError, SessionBusyError, SessionConflictError, SessionStoreError } from './errors.js'
export { defineFactTools, type FactToolsOptions, type RecallOutput } from './fact-tools.js'
export {
  createMemorySessionStore,
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from './memory-session-store.js'
export {
  runSession,
  type SessionEvent,
  type SessionRunReport,
  type SessionRunRequest,
  type SessionRunResult,
  type SessionSavedEvent,
} from './run-session.js'
export type {
  Fact,
  FactStore,
  SessionAppend,
  SessionCompaction,
  SessionMessage,
  SessionPop,
  SessionReadOptions,
  SessionSnapshot,
  SessionState,
  SessionStore,
  SessionUsage,
  SessionWrite,
  SessionWriteOptions,
  SuspendedSessionRun,
} from './session-store.js'
export { type SessionRef, SUMMARY_PREFIX, sessionView } from './session-view.js'
export {
  defaultTokenEstimate,
  type HistoryWindow,
  selectWindow,
  type TokenEstimator,
  type WindowOptions,
} from './window.js'
