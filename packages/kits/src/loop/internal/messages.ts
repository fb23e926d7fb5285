import {
  type AssistantMessage,
  type ChatMessage,
  ConflictError,
  describeValue,
  FieldReader,
  type FieldReaderKind,
  refuseField,
  type ToolCall,
} from '@agent-core/core'
import { isRecord } from './check.js'

function readToolCall(value: unknown, field: string, kind: FieldReaderKind): ToolCall {
  const fields: FieldReader = new FieldReader(value, field, 'a tool call { id, name, arguments }', kind)
  fields.requiredString('id')
  fields.requiredString('name')
  fields.requiredString('arguments', { empty: true })
  fields.done()
  return value as ToolCall
}

/** Checks one chat message strictly (core's shapes, no unknown fields) and returns it unchanged. */
export function readMessage(value: unknown, field: string, kind: FieldReaderKind = 'input'): ChatMessage {
  const fields: FieldReader = new FieldReader(value, field, 'a chat message { role, content, ... }', kind)
  const role = fields.requiredOneOf('role', ['system', 'user', 'assistant', 'tool'])
  switch (role) {
    case 'system':
      fields.requiredString('content', { empty: true })
      break
    case 'user': {
      const content = fields.get('content')
      if (Array.isArray(content)) {
        content.forEach((part: unknown, index) => {
          const at = `${fields.path('content')}[${index}]`
          const partFields: FieldReader = new FieldReader(
            part,
            at,
            'a content part { type: "text", text } or { type: "image", url }',
            kind,
          )
          const type = partFields.requiredOneOf('type', ['text', 'image'])
          if (type === 'text') partFields.requiredString('text', { empty: true })
          else partFields.requiredString('url')
          partFields.done()
        })
      } else if (typeof content !== 'string') {
        fields.fail(
          'content',
          `must be a string or an array of content parts, but got ${describeValue(content)}`,
          content,
        )
      }
      break
    }
    case 'assistant': {
      fields.requiredString('content', { empty: true })
      const calls = fields.get('toolCalls')
      if (calls !== undefined) {
        if (!Array.isArray(calls)) {
          fields.fail(
            'toolCalls',
            `must be an array of tool calls or be left out, but got ${describeValue(calls)}`,
            calls,
          )
        }
        calls.forEach((call: unknown, index) => {
          readToolCall(call, `${fields.path('toolCalls')}[${index}]`, kind)
        })
      }
      fields.string('thinking', { empty: true })
      const blocks = fields.get('thinkingBlocks')
      if (blocks !== undefined) {
        if (!Array.isArray(blocks)) {
          fields.fail(
            'thinkingBlocks',
            `must be an array of thinking blocks or be left out, but got ${describeValue(blocks)}`,
            blocks,
          )
        }
        blocks.forEach((block: unknown, index) => {
          const at = `${fields.path('thinkingBlocks')}[${index}]`
          const blockFields: FieldReader = new FieldReader(
            block,
            at,
            'a thinking block { text, signature?, redacted? }',
            kind,
          )
          blockFields.requiredString('text', { empty: true })
          blockFields.string('signature', { empty: true })
          blockFields.string('redacted', { empty: true })
          blockFields.done()
        })
      }
      break
    }
    case 'tool':
      fields.requiredString('toolCallId')
      fields.requiredString('content', { empty: true })
      fields.boolean('isError')
      break
  }
  fields.done()
  return value as ChatMessage
}

/** Checks a list of chat messages; returns a new array holding the same (unchanged) messages. */
export function readMessages(value: unknown, field: string, kind: FieldReaderKind = 'input'): ChatMessage[] {
  if (!Array.isArray(value)) {
    refuseField(kind, field, `must be an array of chat messages, but got ${describeValue(value)}`, value)
  }
  const out: ChatMessage[] = []
  for (let index = 0; index < value.length; index++) {
    if (!Object.hasOwn(value, index))
      refuseField(kind, `${field}[${index}]`, 'is a hole; give a message', undefined)
    out.push(readMessage(value[index], `${field}[${index}]`, kind))
  }
  return out
}

/** The calls of the last assistant message that no tool message after it answers. */
export interface OpenTail {
  /** Index of the assistant message in the history. */
  readonly index: number
  readonly message: AssistantMessage
  /** Its calls without an answer, in the message's order. */
  readonly open: readonly ToolCall[]
}

/**
 * Reads the end of a history: `undefined` when it does not end on an assistant message with tool calls
 * (optionally followed by tool messages answering some of them); the open calls otherwise.
 * @throws `ConflictError` for a tool message that answers no call of the assistant message before it
 */
export function openTail(messages: readonly ChatMessage[], field: string): OpenTail | undefined {
  let index = messages.length - 1
  while (index >= 0 && messages[index]!.role === 'tool') index--
  if (index === messages.length - 1) {
    const last = messages[index]
    if (last?.role !== 'assistant' || !last.toolCalls?.length) return undefined
  }
  const message = messages[index]
  if (message?.role !== 'assistant' || !message.toolCalls?.length) {
    throw new ConflictError(
      `${field} ends on tool messages that answer no assistant tool call (message ${index + 1} is not an assistant message with tool calls). Every tool message follows the assistant message that made the call.`,
      { details: { field, index: index + 1 } },
    )
  }
  const ids = new Set(message.toolCalls.map((call) => call.id))
  const answered = new Set<string>()
  for (let at = index + 1; at < messages.length; at++) {
    const tool = messages[at] as Extract<ChatMessage, { role: 'tool' }>
    if (!ids.has(tool.toolCallId) || answered.has(tool.toolCallId)) {
      throw new ConflictError(
        `${field}[${at}] answers tool call "${tool.toolCallId}", which ${answered.has(tool.toolCallId) ? 'was already answered' : 'the assistant message before it did not make'}. A history answers each call of the last assistant message once.`,
        { details: { field: `${field}[${at}]`, toolCallId: tool.toolCallId } },
      )
    }
    answered.add(tool.toolCallId)
  }
  return { index, message, open: message.toolCalls.filter((call) => !answered.has(call.id)) }
}

/** True for a record whose own `role` is a chat role; used to tell a message from garbage cheaply. */
export function looksLikeMessage(value: unknown): boolean {
  return isRecord(value) && typeof value.role === 'string'
}
