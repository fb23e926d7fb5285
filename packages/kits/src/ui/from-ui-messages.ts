import {
  type AssistantMessage,
  type ChatMessage,
  describeValue,
  isRecord,
  refuseField,
  type ToolCall,
} from '@agent-core/core'

/**
 * A message as the AI SDK's client keeps it (`UIMessage` of `ai` 7.x), as far as agent-core reads it: its
 * role and its parts (text, reasoning, tool parts `tool-<name>` or `dynamic-tool`, steps, data parts).
 * @example
 * ```ts
 * import type { ChatUIMessage } from '@agent-core/kits/ui'
 * const message: ChatUIMessage = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }
 * ```
 */
export interface ChatUIMessage {
  readonly id: string
  readonly role: 'system' | 'user' | 'assistant'
  readonly parts: readonly ChatUIPart[]
  readonly metadata?: unknown
}

/**
 * One part of a {@link ChatUIMessage}: the fields agent-core reads (every part has a `type`; the others
 * depend on it).
 * @example
 * ```ts
 * import type { ChatUIPart } from '@agent-core/kits/ui'
 * const part: ChatUIPart = { type: 'tool-refund', toolCallId: 'call_1', state: 'input-available', input: { amount: 5 } }
 * ```
 */
export interface ChatUIPart {
  readonly type: string
  readonly text?: string
  readonly toolCallId?: string
  readonly toolName?: string
  readonly state?: string
  readonly input?: unknown
  readonly output?: unknown
  readonly errorText?: string
  readonly approval?: { readonly id: string; readonly approved?: boolean; readonly reason?: string }
  readonly [key: string]: unknown
}

/** Checks the shape of UI messages from a request body (what a page sent: never trusted). */
export function readUIMessages(value: unknown, field: string): readonly ChatUIMessage[] {
  if (!Array.isArray(value))
    refuseField(
      'input',
      field,
      `must be an array of UI messages { id, role, parts }, but got ${describeValue(value)}`,
      value,
    )
  value.forEach((message, index) => {
    const at = `${field}[${index}]`
    if (!isRecord(message))
      refuseField(
        'input',
        at,
        `must be a UI message { id, role, parts }, but got ${describeValue(message)}`,
        message,
      )
    if (typeof message.id !== 'string')
      refuseField('input', `${at}.id`, `must be a string, but got ${describeValue(message.id)}`, message.id)
    if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system')
      refuseField(
        'input',
        `${at}.role`,
        `must be "user", "assistant" or "system", but got ${describeValue(message.role)}`,
        message.role,
      )
    if (!Array.isArray(message.parts))
      refuseField(
        'input',
        `${at}.parts`,
        `must be an array of parts, but got ${describeValue(message.parts)}`,
        message.parts,
      )
    message.parts.forEach((part: unknown, p: number) => {
      if (!isRecord(part) || typeof part.type !== 'string')
        refuseField(
          'input',
          `${at}.parts[${p}]`,
          `must be a part { type, ... }, but got ${describeValue(part)}`,
          part,
        )
      for (const key of ['text', 'toolCallId', 'toolName', 'state', 'errorText'] as const) {
        if (part[key] !== undefined && typeof part[key] !== 'string')
          refuseField(
            'input',
            `${at}.parts[${p}].${key}`,
            `must be a string, but got ${describeValue(part[key])}`,
            part[key],
          )
      }
      if (isToolPart(part as ChatUIPart) && typeof part.toolCallId !== 'string')
        refuseField(
          'input',
          `${at}.parts[${p}].toolCallId`,
          `must be the tool call id (a string), but got ${describeValue(part.toolCallId)}`,
          part.toolCallId,
        )
      if (part.approval !== undefined) {
        const approval = part.approval
        if (!isRecord(approval) || typeof approval.id !== 'string')
          refuseField(
            'input',
            `${at}.parts[${p}].approval`,
            `must be an approval { id, approved?, reason? }, but got ${describeValue(approval)}`,
            approval,
          )
        if (approval.approved !== undefined && typeof approval.approved !== 'boolean')
          refuseField(
            'input',
            `${at}.parts[${p}].approval.approved`,
            `must be a boolean, but got ${describeValue(approval.approved)}`,
            approval.approved,
          )
        if (approval.reason !== undefined && typeof approval.reason !== 'string')
          refuseField(
            'input',
            `${at}.parts[${p}].approval.reason`,
            `must be a string, but got ${describeValue(approval.reason)}`,
            approval.reason,
          )
      }
    })
  })
  return value as readonly ChatUIMessage[]
}

/** A tool part: `tool-<name>` (static tools) or `dynamic-tool` (with `toolName`). */
export function isToolPart(part: ChatUIPart): boolean {
  return part.type.startsWith('tool-') || part.type === 'dynamic-tool'
}

/** The tool a tool part is for. */
export function toolNameOf(part: ChatUIPart): string {
  return part.type === 'dynamic-tool' ? (part.toolName ?? '') : part.type.slice('tool-'.length)
}

function text(value: unknown): string {
  if (typeof value === 'string') return value
  return value === undefined ? '' : JSON.stringify(value)
}

/** What the model reads about a call, from its part's state. */
function toolResult(part: ChatUIPart): { content: string; isError?: true } {
  switch (part.state) {
    case 'output-available':
      return { content: text(part.output) }
    case 'output-error':
      return { content: part.errorText ?? 'The call failed.', isError: true }
    case 'output-denied':
      return {
        content:
          part.approval?.reason === undefined
            ? 'The call was refused by the user.'
            : `The call was refused by the user: ${part.approval.reason}`,
        isError: true,
      }
    default:
      return { content: 'The call was not run: the conversation went on without it.', isError: true }
  }
}

/**
 * UI messages (the conversation a `useChat` page sends) as the history an agent run reads: a user
 * message's text parts as one user message; each step of an assistant message as an assistant message
 * (its text, reasoning and tool calls) followed by the tool messages of its calls (an output as the text
 * the model reads, an error or a denial as an error, a call without a result as not run). Data parts
 * (tool progress included) are not history. System messages are dropped: the agent has its own.
 * @throws `InvalidInputError` for messages that are not UI messages
 * @example
 * ```ts
 * import { fromUIMessages } from '@agent-core/kits/ui'
 * const history = fromUIMessages([{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }])
 * // [{ role: 'user', content: 'Hello' }]
 * ```
 */
export function fromUIMessages(messages: readonly ChatUIMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (const message of readUIMessages(messages, 'messages')) {
    if (message.role === 'system') continue
    if (message.role === 'user') {
      const content = message.parts
        .filter((part) => part.type === 'text')
        .map((part) => part.text ?? '')
        .join('')
      out.push({ role: 'user', content })
      continue
    }
    let step: ChatUIPart[] = []
    const flush = (): void => {
      const content = step
        .filter((part) => part.type === 'text')
        .map((part) => part.text ?? '')
        .join('')
      const thinking = step
        .filter((part) => part.type === 'reasoning')
        .map((part) => part.text ?? '')
        .join('')
      const tools = step.filter((part) => isToolPart(part) && part.state !== 'input-streaming')
      step = []
      if (content === '' && tools.length === 0) return
      const toolCalls: ToolCall[] = tools.map((part) => ({
        id: part.toolCallId as string,
        name: toolNameOf(part),
        arguments: JSON.stringify(part.input ?? {}),
      }))
      const assistant: AssistantMessage = {
        role: 'assistant',
        content,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(thinking !== '' ? { thinking } : {}),
      }
      out.push(assistant)
      for (const part of tools)
        out.push({ role: 'tool', toolCallId: part.toolCallId as string, ...toolResult(part) })
    }
    for (const part of message.parts) {
      if (part.type === 'step-start') flush()
      else step.push(part)
    }
    flush()
  }
  return out
}
