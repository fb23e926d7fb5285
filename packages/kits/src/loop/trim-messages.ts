import { type ChatMessage, describeValue, FieldReader, refuseField } from '@agent-core/core'
import { readMessage, readMessages } from './internal/messages.js'

/** Tokens added per message for its role and framing, as chat formats do. */
const PER_MESSAGE = 4

function textLength(message: ChatMessage): number {
  switch (message.role) {
    case 'user':
      return typeof message.content === 'string'
        ? message.content.length
        : message.content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 340), 0)
    case 'assistant': {
      let length = message.content.length + (message.thinking?.length ?? 0)
      for (const call of message.toolCalls ?? [])
        length += call.name.length + call.arguments.length + call.id.length
      return length
    }
    default:
      return message.content.length
  }
}

/**
 * A rough token count: about four characters per token, plus a few tokens per message for its framing
 * (an image counts as 85 tokens). Good enough for budgets and trimming; it is not a tokenizer, so pass
 * your own `estimate` where exact counts matter.
 * @example
 * ```ts
 * import { estimateTokens } from '@agent-core/kits/loop'
 * estimateTokens('Hello there!') // 3
 * estimateTokens([{ role: 'user', content: 'Hello there!' }]) // 7
 * ```
 */
export function estimateTokens(value: string | ChatMessage | readonly ChatMessage[]): number {
  if (typeof value === 'string') return Math.ceil(value.length / 4)
  const messages = Array.isArray(value) ? readMessages(value, 'messages') : [readMessage(value, 'message')]
  return countTokens(messages)
}

/** {@link estimateTokens} of messages already checked. */
export function countTokens(messages: readonly ChatMessage[]): number {
  let total = 0
  for (const message of messages) total += Math.ceil(textLength(message) / 4) + PER_MESSAGE
  return total
}

/**
 * Options of {@link trimMessages}.
 * @example
 * ```ts
 * import type { TrimOptions } from '@agent-core/kits/loop'
 * const options: TrimOptions = { maxTokens: 8_000 }
 * ```
 */
export interface TrimOptions {
  /** The budget the trimmed messages must fit: a safe integer of at least 1. */
  readonly maxTokens: number
  /** Counts the tokens of messages. Default {@link estimateTokens}. */
  readonly estimate?: ((messages: readonly ChatMessage[]) => number) | undefined
}

/**
 * Trims a conversation to a token budget for one model call: system messages are always kept (in place),
 * and the oldest turns are dropped first. A turn is a user message, or an assistant message together
 * with the tool messages that answer its calls, so a tool result is never separated from its call. The
 * newest turn is always kept, even when it alone is over the budget. Returns a new array of the same
 * message objects; the input is not changed. Use it in an agent's `beforeTurn`, which replaces what the
 * model reads without touching the run's history.
 * @throws `InvalidInputError` for malformed messages or options; `InvalidOutputError` when `estimate` does not return a number
 * @example
 * ```ts
 * import { defineAgent, trimMessages } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const agent = defineAgent({
 *   model,
 *   beforeTurn: ({ messages }) => ({ messages: trimMessages(messages, { maxTokens: 8_000 }) }),
 * })
 * ```
 */
export function trimMessages(messages: readonly ChatMessage[], options: TrimOptions): ChatMessage[] {
  const list = readMessages(messages, 'messages')
  const fields = new FieldReader(options, 'options', 'an object { maxTokens, estimate? }')
  const maxTokens = fields.requiredInteger('maxTokens', 1)
  const estimate = fields.func<NonNullable<TrimOptions['estimate']>>('estimate') ?? countTokens
  fields.done()
  const count = (part: readonly ChatMessage[]): number => {
    const tokens: unknown = estimate(part)
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      refuseField(
        'output',
        'options.estimate',
        `must return a finite number of tokens, but returned ${describeValue(tokens)}`,
        tokens,
        { details: { hook: 'options.estimate' } },
      )
    }
    return tokens
  }
  // Units: each system message alone (always kept), and the turns between them. A tool message joins the
  // last turn before it, so a call and its results are kept or dropped together.
  const units: { readonly messages: ChatMessage[]; readonly system: boolean }[] = []
  let lastTurn: { readonly messages: ChatMessage[]; readonly system: boolean } | undefined
  for (const message of list) {
    if (message.role === 'system') units.push({ messages: [message], system: true })
    else if (message.role === 'tool' && lastTurn) lastTurn.messages.push(message)
    else {
      lastTurn = { messages: [message], system: false }
      units.push(lastTurn)
    }
  }
  const keep = units.map(() => true)
  const flatten = () => units.filter((_, index) => keep[index]).flatMap((unit) => unit.messages)
  const turns = units.flatMap((unit, index) => (unit.system ? [] : [index]))
  // The default estimate adds up per message, so a dropped turn's tokens can be subtracted.
  const additive = estimate === estimateTokens || estimate === countTokens
  const sizes = additive ? units.map((unit) => count(unit.messages)) : []
  let current = count(flatten())
  for (const index of turns.slice(0, -1)) {
    if (current <= maxTokens) break
    keep[index] = false
    current = additive ? current - sizes[index]! : count(flatten())
  }
  return flatten()
}
