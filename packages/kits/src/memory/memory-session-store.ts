import { type ChatMessage, FieldReader } from '@agent-core/core'
import {
  checkAfterSeq,
  checkAppend,
  checkFactValue,
  checkId,
  checkWriteOptions,
  conflict,
  copyJson,
} from './internal/checks.js'
import type {
  Fact,
  FactStore,
  SessionAppend,
  SessionMessage,
  SessionPop,
  SessionReadOptions,
  SessionSnapshot,
  SessionState,
  SessionStore,
  SessionWrite,
  SessionWriteOptions,
} from './session-store.js'

interface Row {
  revision: number
  nextSeq: number
  messages: SessionMessage[]
  state: string | undefined
}

const WHERE = 'MemorySessionStore'

/**
 * Options of {@link createMemorySessionStore}.
 * @example
 * ```ts
 * import { createMemorySessionStore, type MemorySessionStoreOptions } from '@agent-core/kits/memory'
 * const options: MemorySessionStoreOptions = { now: () => 0 }
 * const store = createMemorySessionStore(options)
 * ```
 */
export interface MemorySessionStoreOptions {
  /** The clock of facts' `updatedAtMs`. Default `Date.now`. */
  readonly now?: (() => number) | undefined
}

/**
 * A {@link SessionStore} and {@link FactStore} in this process's memory, for tests and single-process
 * Apps. Messages and states are copied on the way in and out (JSON), as a database store would, so a
 * caller that mutates what it passed or got changes nothing stored.
 * @example
 * ```ts
 * import { MemorySessionStore } from '@agent-core/kits/memory'
 * const store = new MemorySessionStore()
 * await store.append('chat-1', { messages: [{ role: 'user', content: 'Hi' }] })
 * store.sessionIds() // ['chat-1']
 * ```
 */
export class MemorySessionStore implements SessionStore, FactStore {
  readonly #sessions = new Map<string, Row>()
  readonly #facts = new Map<string, Map<string, Fact>>()
  readonly #now: () => number

  constructor(options: MemorySessionStoreOptions = {}) {
    const fields = new FieldReader(options, 'options', 'options { now? }', 'input')
    this.#now = fields.func<() => number>('now') ?? Date.now
    fields.done()
  }

  /** Ids of the sessions written so far, in the order they were first written. */
  sessionIds(): string[] {
    return [...this.#sessions.keys()]
  }

  async read(sessionId: string, options?: SessionReadOptions): Promise<SessionSnapshot> {
    checkId(sessionId, 'sessionId', `${WHERE}.read`)
    const afterSeq = checkAfterSeq(options, `${WHERE}.read`)
    const row = this.#sessions.get(sessionId)
    if (!row) return { sessionId, revision: 0, messages: [], state: undefined }
    return {
      sessionId,
      revision: row.revision,
      messages: row.messages.filter((entry) => entry.seq > afterSeq).map((entry) => copyJson(entry)),
      state: row.state === undefined ? undefined : (JSON.parse(row.state) as SessionState),
    }
  }

  async append(sessionId: string, write: SessionAppend): Promise<SessionWrite> {
    checkId(sessionId, 'sessionId', `${WHERE}.append`)
    const checked = checkAppend(write, `${WHERE}.append`)
    const messages = checked.messages.map((message) => copyJson(message) as ChatMessage)
    const state =
      checked.state === undefined ? undefined : checked.state === null ? null : JSON.stringify(checked.state)
    const row = this.#row(sessionId, checked.expectedRevision)
    const firstSeq = row.nextSeq
    for (const message of messages) row.messages.push({ seq: row.nextSeq++, message })
    if (state !== undefined) row.state = state ?? undefined
    row.revision += 1
    return { revision: row.revision, firstSeq, lastSeq: row.nextSeq - 1 }
  }

  async pop(sessionId: string, options?: SessionWriteOptions): Promise<SessionPop> {
    checkId(sessionId, 'sessionId', `${WHERE}.pop`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.pop`)
    const existing = this.#sessions.get(sessionId)
    if (expectedRevision !== undefined && (existing?.revision ?? 0) !== expectedRevision)
      throw conflict(sessionId, expectedRevision, existing?.revision ?? 0)
    if (!existing || existing.messages.length === 0)
      return { revision: existing?.revision ?? 0, removed: undefined }
    const removed = existing.messages.pop()
    existing.revision += 1
    return { revision: existing.revision, removed }
  }

  async clear(sessionId: string, options?: SessionWriteOptions): Promise<{ readonly revision: number }> {
    checkId(sessionId, 'sessionId', `${WHERE}.clear`)
    const { expectedRevision } = checkWriteOptions(options, `${WHERE}.clear`)
    const row = this.#row(sessionId, expectedRevision)
    row.messages = []
    row.state = undefined
    row.revision += 1
    return { revision: row.revision }
  }

  async remember(scope: string, key: string, value: string): Promise<Fact> {
    checkId(scope, 'scope', `${WHERE}.remember`)
    checkId(key, 'key', `${WHERE}.remember`)
    checkFactValue(value, `${WHERE}.remember`)
    let facts = this.#facts.get(scope)
    if (!facts) this.#facts.set(scope, (facts = new Map()))
    const fact: Fact = { key, value, updatedAtMs: this.#now() }
    facts.set(key, fact)
    return { ...fact }
  }

  async recall(scope: string, key: string): Promise<Fact | undefined> {
    checkId(scope, 'scope', `${WHERE}.recall`)
    checkId(key, 'key', `${WHERE}.recall`)
    const fact = this.#facts.get(scope)?.get(key)
    return fact ? { ...fact } : undefined
  }

  async recallAll(scope: string): Promise<readonly Fact[]> {
    checkId(scope, 'scope', `${WHERE}.recallAll`)
    const facts = [...(this.#facts.get(scope)?.values() ?? [])].map((fact) => ({ ...fact }))
    return facts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }

  async forget(scope: string, key: string): Promise<boolean> {
    checkId(scope, 'scope', `${WHERE}.forget`)
    checkId(key, 'key', `${WHERE}.forget`)
    return this.#facts.get(scope)?.delete(key) ?? false
  }

  #row(sessionId: string, expectedRevision: number | undefined): Row {
    const existing = this.#sessions.get(sessionId)
    const revision = existing?.revision ?? 0
    if (expectedRevision !== undefined && revision !== expectedRevision)
      throw conflict(sessionId, expectedRevision, revision)
    if (existing) return existing
    const row: Row = { revision: 0, nextSeq: 1, messages: [], state: undefined }
    this.#sessions.set(sessionId, row)
    return row
  }
}

/**
 * Creates a {@link MemorySessionStore}: sessions and facts in this process's memory.
 * @example
 * ```ts
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * const store = createMemorySessionStore()
 * await store.remember('user:42', 'name', 'Ada')
 * ```
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): MemorySessionStore {
  return new MemorySessionStore(options)
}
