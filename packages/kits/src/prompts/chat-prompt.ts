import {
  describeValue,
  FieldReader,
  refuseField,
  type SystemMessage,
  type UserMessage,
} from '@agent-core/core'
import { MissingPromptVariablesError } from './prompt-errors.js'
import { type PromptCheck, type PromptTemplate, type PromptValue, templateAt } from './prompt-template.js'

/**
 * One part of a chat prompt: the role of the message it becomes and its template text. Assistant parts
 * are examples of answers (few-shot); they become plain assistant messages.
 * @example
 * ```ts
 * import type { ChatPromptPart } from '@agent-core/kits/prompts'
 * const part: ChatPromptPart = { role: 'user', template: 'Translate {{text}} into {{language}}.' }
 * ```
 */
export interface ChatPromptPart {
  readonly role: 'system' | 'user' | 'assistant'
  readonly template: string
}

/**
 * A message a chat prompt renders: system, user or assistant, with text content.
 * @example
 * ```ts
 * import type { ChatPromptMessage } from '@agent-core/kits/prompts'
 * const message: ChatPromptMessage = { role: 'user', content: 'Hello' }
 * ```
 */
export type ChatPromptMessage =
  | SystemMessage
  | (UserMessage & { readonly content: string })
  | { readonly role: 'assistant'; readonly content: string }

/**
 * A list of role/template parts that renders into chat messages with one set of values.
 * @example
 * ```ts
 * import { defineChatPrompt, type ChatPrompt } from '@agent-core/kits/prompts'
 * const prompt: ChatPrompt = defineChatPrompt([{ role: 'user', template: 'Hi {{name}}' }])
 * prompt.render({ name: 'Ada' }) // [{ role: 'user', content: 'Hi Ada' }]
 * ```
 */
export interface ChatPrompt {
  /** Each part's role and parsed template. */
  readonly parts: readonly { readonly role: ChatPromptPart['role']; readonly template: PromptTemplate }[]
  /** The placeholder names of all parts, each once, in order of first appearance. */
  readonly variables: readonly string[]
  /**
   * The messages, one per part, in order.
   * @throws `MissingPromptVariablesError` naming every placeholder (of any part) without a value
   */
  render(values?: Readonly<Record<string, PromptValue>>): readonly ChatPromptMessage[]
  /** A new chat prompt with the given placeholders filled in every part. */
  partial(values: Readonly<Record<string, PromptValue>>): ChatPrompt
  /** The placeholders the values miss and the values no part uses. */
  check(values?: Readonly<Record<string, unknown>>): PromptCheck
}

type Part = ChatPrompt['parts'][number]

class Chat implements ChatPrompt {
  readonly parts: readonly Part[]
  readonly variables: readonly string[]
  constructor(parts: readonly Part[]) {
    this.parts = Object.freeze(parts.map((part) => Object.freeze({ ...part })))
    this.variables = Object.freeze([...new Set(parts.flatMap((part) => part.template.variables))])
    Object.freeze(this)
  }

  check(values?: Readonly<Record<string, unknown>>): PromptCheck {
    const checks = this.parts.map((part) => part.template.check(values))
    const used = new Set(this.variables)
    return Object.freeze({
      missing: Object.freeze(this.variables.filter((name) => checks.some((c) => c.missing.includes(name)))),
      unused: Object.freeze((checks[0]?.unused ?? Object.keys(values ?? {})).filter((n) => !used.has(n))),
    })
  }

  render(values?: Readonly<Record<string, PromptValue>>): readonly ChatPromptMessage[] {
    const { missing } = this.check(values)
    if (missing.length > 0) {
      throw new MissingPromptVariablesError(
        `The chat prompt needs a value for ${missing.map((name) => `"${name}"`).join(', ')}. Pass ${missing.length === 1 ? 'it' : 'them'} to render, or fill some now with partial() and the rest later.`,
        { details: { missing, given: Object.freeze(Object.keys(values ?? {})) } },
      )
    }
    return Object.freeze(
      this.parts.map((part) =>
        Object.freeze({ role: part.role, content: part.template.render(values) } as ChatPromptMessage),
      ),
    )
  }

  partial(values: Readonly<Record<string, PromptValue>>): ChatPrompt {
    return new Chat(this.parts.map((part) => ({ role: part.role, template: part.template.partial(values) })))
  }
}

const PART_ROLES: readonly ChatPromptPart['role'][] = ['system', 'user', 'assistant']

/**
 * Defines a chat prompt from role/template parts; each template is parsed like
 * {@link definePromptTemplate}'s.
 * @throws `InvalidInputError` for an empty list, a part that is not `{ role, template }`, an unknown role or a bad placeholder
 * @example
 * ```ts
 * import { defineChatPrompt } from '@agent-core/kits/prompts'
 * const prompt = defineChatPrompt([
 *   { role: 'system', template: 'You answer in {{language}}.' },
 *   { role: 'user', template: '{{question}}' },
 * ])
 * const messages = prompt.partial({ language: 'French' }).render({ question: 'What is a tide?' })
 * // [{ role: 'system', content: 'You answer in French.' }, { role: 'user', content: 'What is a tide?' }]
 * ```
 */
export function defineChatPrompt(parts: readonly ChatPromptPart[]): ChatPrompt {
  if (!Array.isArray(parts) || parts.length === 0)
    refuseField(
      'input',
      'parts',
      `must be a non-empty array of { role, template }, but got ${describeValue(parts)}`,
      parts,
    )
  return new Chat(
    parts.map((part: unknown, index) => {
      const field = `parts[${index}]`
      const fields = new FieldReader(part, field, '{ role, template }', 'input', { details: { index } })
      const role = fields.requiredOneOf('role', PART_ROLES)
      const template = fields.get('template')
      fields.done()
      return { role, template: templateAt(template, `${field}.template`) }
    }),
  )
}
