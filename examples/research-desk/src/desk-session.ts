/**
 * The desk's conversations (`--session NAME`): the memory kit's SQLite session store, in `sessions.db`
 * beside the desk's other files. Each question asked in a session is one turn: the run reads the turns
 * before it (the questions and the answers with their citations), and when it has answered, the question
 * and the answer are appended to the session in one write checked against the revision the run read.
 *
 * The session keeps the question and the answer, not the searches and passages the run read for it: the
 * answer names its passages by id (a later turn can read them again), and the model's context stays the
 * size of the conversation rather than of everything it ever read.
 *
 * The run itself stays the desk's durable run: its id names the session and the revision it read, so a
 * run stopped or killed before its answer was recorded continues (or is recorded) when the same command
 * runs again, and its turn is appended once.
 */
import type { ChatMessage } from '@agent-core/core'
import type { AgentRunState } from '@agent-core/kits/loop'
import { selectWindow, sessionView } from '@agent-core/kits/memory'
import { createSqliteSessionStore, type SqliteSessionStore } from '@agent-core/kits/memory/sqlite'
import Database from 'better-sqlite3'
import { DeskError } from './desk-error.js'

/** The most messages of the conversation a run reads (the last turns; the session keeps them all). */
const WINDOW = 24

/** A session name: letters, digits, `.`, `_` and `-`, up to 64 characters. */
const NAME = /^[\w.-]{1,64}$/

/** One conversation of the desk, as read before a question. */
export interface DeskSession {
  readonly name: string
  /** The session's revision when it was read: part of the question's run id. */
  readonly revision: number
  /** How many questions the session answered before this one. */
  readonly turns: number
  /** What the run reads of the conversation: its last turns. */
  readonly history: readonly ChatMessage[]
  /** Appends the question and the answer of a finished run (once: a second call appends nothing). */
  record(state: AgentRunState): Promise<{ readonly revision: number; readonly appended: boolean }>
  close(): void
}

/** Checks a `--session` name. */
export function checkSessionName(name: string): string {
  if (!NAME.test(name))
    throw new DeskError(
      'usage',
      `--session takes a name of letters, digits, ".", "_" and "-" (up to 64), but got ${JSON.stringify(name)}.`,
      { field: '--session', received: JSON.stringify(name) },
    )
  return name
}

/** The question and the answer of a finished run, as the session keeps them. */
function turnOf(question: string, state: AgentRunState): ChatMessage[] {
  return [
    { role: 'user', content: question },
    { role: 'assistant', content: state.text ?? '' },
  ]
}

/** Opens `file` and reads the session `name`. */
export async function openDeskSession(file: string, name: string, question: string): Promise<DeskSession> {
  const database = new Database(file)
  database.pragma('journal_mode = WAL')
  database.pragma('busy_timeout = 5000')
  const store: SqliteSessionStore = createSqliteSessionStore(database)
  try {
    const snapshot = await store.read(name)
    const view = sessionView(snapshot)
    const history = view.length === 0 ? [] : selectWindow(view, { maxMessages: WINDOW }).messages
    let recorded = false
    return {
      name,
      revision: snapshot.revision,
      turns: snapshot.messages.filter((entry) => entry.message.role === 'user').length,
      history,
      async record(state) {
        if (recorded) return { revision: snapshot.revision + 1, appended: false }
        const write = await store.append(name, {
          messages: turnOf(question, state),
          expectedRevision: snapshot.revision,
        })
        recorded = true
        return { revision: write.revision, appended: true }
      },
      close: () => database.close(),
    }
  } catch (error) {
    database.close()
    throw error
  }
}
