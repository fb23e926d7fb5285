import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  type ChatMessage,
  describeValue,
  FieldReader,
  refuseField,
} from '@agent-core/core'
import { SessionConflictError } from '../errors.js'
import type { SessionState, SessionWriteOptions } from '../session-store.js'

/** Longest session id, fact scope or fact key accepted. */
export const MAX_ID_LENGTH = 512
/** Longest fact value accepted (characters). */
export const MAX_FACT_LENGTH = 16_384

export function checkId(value: unknown, field: string, where: string): string {
  assertNonEmptyString(value, field, { where })
  if ((value as string).length > MAX_ID_LENGTH)
    refuseField(
      'input',
      field,
      `must be at most ${MAX_ID_LENGTH} characters, but got ${(value as string).length}. Use a shorter id (a hash of a long one)`,
      value,
      { prefix: `${where}: ` },
    )
  return value as string
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/** Refuses a message or state field: `<field> <problem>, but got <value>.` (the one rule of the checks below). */
function refuse(field: string, problem: string, value: unknown): never {
  return refuseField('input', field, `${problem}, but got ${describeValue(value)}`, value)
}

/** Checks one chat message's shape (what a store keeps must be a message the loop can read back). */
export function checkMessage(value: unknown, field: string): ChatMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse(field, 'must be a chat message { role, content }', value)
  const message = value as Record<string, unknown>
  if (!ROLES.has(message.role as string))
    refuse(`${field}.role`, "must be 'system', 'user', 'assistant' or 'tool'", message.role)
  if (message.role === 'user') {
    if (typeof message.content !== 'string' && !Array.isArray(message.content))
      refuse(`${field}.content`, 'must be a string or an array of content parts', message.content)
  } else if (typeof message.content !== 'string') {
    refuse(`${field}.content`, 'must be a string', message.content)
  }
  if (message.role === 'tool' && (typeof message.toolCallId !== 'string' || message.toolCallId === ''))
    refuse(`${field}.toolCallId`, 'must be the non-empty id of the call it answers', message.toolCallId)
  if (message.role === 'assistant' && message.toolCalls !== undefined) {
    if (!Array.isArray(message.toolCalls)) refuse(`${field}.toolCalls`, 'must be an array', message.toolCalls)
    message.toolCalls.forEach((call: unknown, index) => {
      const at = `${field}.toolCalls[${index}]`
      if (typeof call !== 'object' || call === null)
        refuse(at, 'must be a tool call { id, name, arguments }', call)
      const c = call as Record<string, unknown>
      if (typeof c.id !== 'string' || c.id === '') refuse(`${at}.id`, 'must be a non-empty string', c.id)
      if (typeof c.name !== 'string') refuse(`${at}.name`, 'must be a string', c.name)
      if (typeof c.arguments !== 'string') refuse(`${at}.arguments`, 'must be a string', c.arguments)
    })
  }
  return value as ChatMessage
}

export function checkMessages(value: unknown, field: string): readonly ChatMessage[] {
  if (!Array.isArray(value)) refuse(field, 'must be an array of chat messages', value)
  return value.map((message, index) => checkMessage(message, `${field}[${index}]`))
}

function checkRevision(value: unknown, field: string, where: string): number | undefined {
  if (value === undefined) return undefined
  assertSafeInteger(value, field, { where, min: 0 })
  return value as number
}

function checkState(value: unknown, field: string): SessionState | null | undefined {
  if (value === undefined || value === null) return value
  if (typeof value !== 'object' || Array.isArray(value))
    refuse(field, 'must be a session state object, null (to remove it) or be left out', value)
  try {
    JSON.stringify(value)
  } catch (error) {
    refuseField('input', field, `must be JSON (it is stored as text): ${String(error)}`, value, {
      cause: error,
    })
  }
  return value as SessionState
}

export interface CheckedAppend {
  readonly messages: readonly ChatMessage[]
  readonly expectedRevision: number | undefined
  readonly state: SessionState | null | undefined
}

export function checkAppend(value: unknown, where: string): CheckedAppend {
  const fields = new FieldReader(
    value,
    'write',
    'a session write { messages, expectedRevision?, state? }',
    'input',
  )
  const messages = checkMessages(fields.get('messages'), 'write.messages')
  const expectedRevision = checkRevision(fields.get('expectedRevision'), 'write.expectedRevision', where)
  const state = checkState(fields.get('state'), 'write.state')
  fields.done()
  return { messages, expectedRevision, state }
}

export function checkWriteOptions(value: unknown, where: string): SessionWriteOptions {
  if (value === undefined) return {}
  const fields = new FieldReader(value, 'options', 'options { expectedRevision? }', 'input')
  const expectedRevision = checkRevision(fields.get('expectedRevision'), 'options.expectedRevision', where)
  fields.done()
  return { expectedRevision }
}

export function checkAfterSeq(value: unknown, where: string): number {
  if (value === undefined) return 0
  const fields = new FieldReader(value, 'options', 'options { afterSeq? }', 'input')
  const afterSeq = fields.get('afterSeq') ?? 0
  assertSafeInteger(afterSeq, 'options.afterSeq', { where, min: 0 })
  fields.done()
  return afterSeq as number
}

export function checkFactValue(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length > MAX_FACT_LENGTH)
    refuseField(
      'input',
      'value',
      `must be a string of at most ${MAX_FACT_LENGTH} characters, but got ${describeValue(value)}. Keep facts short; store documents elsewhere`,
      value,
      { prefix: `${where}: ` },
    )
  return value
}

/** The conflict every store reports for a revision that does not match. */
export function conflict(
  sessionId: string,
  expectedRevision: number,
  revision: number,
): SessionConflictError {
  return new SessionConflictError(
    `Session ${JSON.stringify(sessionId)} is at revision ${revision}, not ${expectedRevision}: another run or process wrote to it since it was read. Nothing was written; read the session again and retry.`,
    { details: { sessionId, expectedRevision, revision } },
  )
}

export function assertStoreObject(value: unknown, field: string, where: string): void {
  assertObject(value, field, { where })
}

/** A deep copy through JSON, as the stores that keep text return them. */
export function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/

/** The options both database stores take: a table prefix and the facts' clock. */
export function readTableOptions(options: unknown): { readonly prefix: string; readonly now: () => number } {
  const fields = new FieldReader(options, 'options', 'options { tablePrefix?, now? }', 'input')
  const prefix = fields.string('tablePrefix') ?? 'agent_core_memory'
  if (!PREFIX_PATTERN.test(prefix))
    fields.fail(
      'tablePrefix',
      'must be a SQL identifier (a letter or underscore, then up to 40 letters, digits or underscores)',
      prefix,
    )
  const now = fields.func<() => number>('now') ?? Date.now
  fields.done()
  return { prefix, now }
}
