import type { MaybePromise } from '@agent-core/core'
import type { AgentRunState } from '@agent-core/kits/loop'

/**
 * Where {@link createChatHandler} keeps a chat's suspended run (keyed by the chat's id, as `useChat` sends
 * it) until the page answers its approval: the state stays on the server, so a page can approve or refuse
 * a pending call but never rewrite the run. Implement it on your database to survive restarts or to serve
 * from several processes (then give the agent a shared `suspensionLedger` too).
 * @example
 * ```ts
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * import type { ChatRunStore } from '@agent-core/kits/ui'
 * const rows = new Map<string, string>()
 * const store: ChatRunStore = {
 *   load: (chatId) => (rows.has(chatId) ? (JSON.parse(rows.get(chatId)!) as AgentRunState) : undefined),
 *   save: (chatId, state) => void rows.set(chatId, JSON.stringify(state)),
 *   delete: (chatId) => void rows.delete(chatId),
 * }
 * ```
 */
export interface ChatRunStore {
  /** The chat's suspended run, or `undefined`. */
  load(chatId: string): MaybePromise<AgentRunState | undefined>
  /** Keeps the chat's suspended run (replacing the one it had). */
  save(chatId: string, state: AgentRunState): MaybePromise<void>
  /** Forgets the chat's suspended run (it ended, or the conversation went on without it). */
  delete(chatId: string): MaybePromise<void>
}

/**
 * A {@link ChatRunStore} in this process's memory (the handler's default): suspended runs are lost on
 * restart and not shared between processes.
 * @example
 * ```ts
 * import { createMemoryChatRunStore } from '@agent-core/kits/ui'
 * const store = createMemoryChatRunStore()
 * // createChatHandler({ agent, store })
 * ```
 */
export function createMemoryChatRunStore(): ChatRunStore {
  const runs = new Map<string, AgentRunState>()
  return Object.freeze({
    load: (chatId: string) => runs.get(chatId),
    save: (chatId: string, state: AgentRunState) => {
      runs.set(chatId, state)
    },
    delete: (chatId: string) => {
      runs.delete(chatId)
    },
  })
}
