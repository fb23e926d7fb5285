import type { ChatMessage, OperationContext, OperationContextInit } from '@agent-core/core'
import type { Agent, AgentCallOutcome } from '@agent-core/kits/loop'
import { readSessionRef } from './compaction.js'
import { runSession, type SessionRunRequest, type SessionRunResult } from './run-session.js'
import type { SessionRef } from './session-view.js'

/**
 * Options of a {@link Conversation}: the session and what every turn shares (window, compaction, events).
 * @example
 * ```ts
 * import { createMemorySessionStore, type ConversationOptions } from '@agent-core/kits/memory'
 * const options: ConversationOptions = { session: { store: createMemorySessionStore(), id: 'chat-1' }, window: { maxMessages: 20 } }
 * ```
 */
export type ConversationOptions<App = unknown> = Omit<
  SessionRunRequest<App>,
  'prompt' | 'messages' | 'resume' | 'outcomes'
>

/**
 * The common chat case over {@link runSession}: one agent, one session, turn by turn. Nothing more than
 * the runner with the shared options filled in; use {@link runSession} for anything else.
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { Conversation, createMemorySessionStore } from '@agent-core/kits/memory'
 *
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }, { text: 'Still here.' }]) })
 * const chat = new Conversation(agent, { session: { store: createMemorySessionStore(), id: 'chat-1' } })
 * await chat.send('Hi')
 * await chat.send('Are you there?')
 * ;(await chat.history()).length // 4
 * ```
 */
export class Conversation<Answer = string, App = unknown> {
  readonly session: SessionRef
  readonly #agent: Agent<Answer, App>
  readonly #options: ConversationOptions<App>

  constructor(agent: Agent<Answer, App>, options: ConversationOptions<App>) {
    this.session = readSessionRef((options as { session?: unknown } | undefined)?.session, 'options.session')
    this.#agent = agent
    this.#options = options
  }

  /** Sends the user's next message and runs the turn. */
  send(
    prompt: string,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<SessionRunResult<Answer>> {
    return runSession(this.#agent, { ...this.#options, prompt }, context)
  }

  /** Resumes the turn that suspended, with the outcomes of its pending calls. */
  resume(
    outcomes: Readonly<Record<string, AgentCallOutcome>>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<SessionRunResult<Answer>> {
    const { compaction: _compaction, window: _window, ...rest } = this.#options
    return runSession(this.#agent, { ...rest, resume: true, outcomes }, context)
  }

  /** Every message of the session (the full history, whatever the model saw). */
  async history(): Promise<readonly ChatMessage[]> {
    return (await this.session.store.read(this.session.id)).messages.map((entry) => entry.message)
  }

  /** Forgets the conversation (its messages, summary and suspended run). */
  async clear(): Promise<void> {
    await this.session.store.clear(this.session.id)
  }
}
