import {
  describeValue,
  FieldReader,
  refuseField,
  type SystemMessage,
  type UserMessage,
} from '@agent-core/core'

/**
 * The exact sentence a grounded prompt tells the model to answer when the context does not hold the
 * answer; {@link parseCitations} recognises it.
 * @example
 * ```ts
 * import { NOT_IN_CONTEXT } from '@agent-core/kits/prompts'
 * NOT_IN_CONTEXT // 'The context does not contain the answer.'
 * ```
 */
export const NOT_IN_CONTEXT = 'The context does not contain the answer.'

/**
 * A passage given to a grounded prompt: its text, and optionally an id and a source (a title, a path, a
 * URL) shown in its context block.
 * @example
 * ```ts
 * import type { GroundingPassage } from '@agent-core/kits/prompts'
 * const passage: GroundingPassage = { id: 'tides#3', source: 'tides.md', text: 'High tide is at 06:12.' }
 * ```
 */
export interface GroundingPassage {
  readonly text: string
  readonly id?: string | undefined
  readonly source?: string | undefined
}

/**
 * Options of {@link groundedPrompt}.
 * @example
 * ```ts
 * import type { GroundedPromptOptions } from '@agent-core/kits/prompts'
 * const options: GroundedPromptOptions = { instructions: 'Answer in one sentence.' }
 * ```
 */
export interface GroundedPromptOptions {
  /** More instructions, added to the system text after the grounding rules. */
  readonly instructions?: string | undefined
}

/**
 * A grounded prompt: the system text with the rules, the user message with the numbered context blocks
 * and the question, and the passages by number (1 is `passages[0]`).
 * @example
 * ```ts
 * import { groundedPrompt, type GroundedPrompt } from '@agent-core/kits/prompts'
 * const prompt: GroundedPrompt = groundedPrompt('When is high tide?', [{ text: 'High tide is at 06:12.' }])
 * const messages = [prompt.system, prompt.user]
 * ```
 */
export interface GroundedPrompt {
  readonly system: SystemMessage
  readonly user: UserMessage & { readonly content: string }
  /** `[system, user]`, ready for a model request or an agent run's `messages`. */
  readonly messages: readonly [SystemMessage, UserMessage & { readonly content: string }]
  /** The passages in block order: block `n` is `passages[n - 1]`. */
  readonly passages: readonly GroundingPassage[]
}

const RULES = [
  'Answer the question using only the numbered context blocks in the user message.',
  'Cite the blocks you used with their numbers in square brackets right after the statement they support, for example [1] or [2][3].',
  `If the context does not contain the answer, answer exactly: ${NOT_IN_CONTEXT}`,
  'Do not use knowledge from outside the context, and do not cite a number that is not a block.',
]

const PARSE_CITATIONS = Object.freeze({ prefix: 'parseCitations ' })

function readPassages(passages: unknown): readonly GroundingPassage[] {
  if (!Array.isArray(passages)) {
    refuseField(
      'input',
      'passages',
      `must be an array of { text, id?, source? }, but got ${describeValue(passages)}`,
      passages,
    )
  }
  return Object.freeze(
    passages.map((passage: unknown, index) => {
      const field = `passages[${index}]`
      if (typeof passage === 'string') return Object.freeze({ text: passage })
      const fields = new FieldReader(passage, field, '{ text, id?, source? } or a string', 'input', {
        details: { index },
      })
      // All three are taken before done(), so an unknown field is named before a missing text.
      const text = fields.get('text')
      const id = fields.get('id')
      const source = fields.get('source')
      fields.done()
      if (typeof text !== 'string') fields.mustBe('text', 'a string', text)
      if (id !== undefined && typeof id !== 'string') fields.mustBe('id', 'a string', id)
      if (source !== undefined && typeof source !== 'string') fields.mustBe('source', 'a string', source)
      return Object.freeze({
        text: text as string,
        ...(id === undefined ? {} : { id: id as string }),
        ...(source === undefined ? {} : { source: source as string }),
      })
    }),
  )
}

/**
 * Builds a grounded prompt: the passages become numbered context blocks (`[1]`, `[2]`, ... with their
 * source when given), the system text tells the model to answer from them only, to cite them by number,
 * and to answer exactly {@link NOT_IN_CONTEXT} when they do not hold the answer. With no passages the
 * user message says there is no context (the model should then answer that sentence).
 * @throws `InvalidInputError` for a question that is not a non-empty string or a malformed passage
 * @example
 * ```ts
 * import { groundedPrompt } from '@agent-core/kits/prompts'
 * const prompt = groundedPrompt('When is high tide in Brest?', [
 *   { source: 'tides.md', text: 'In Brest, high tide is at 06:12 today.' },
 *   { source: 'ports.md', text: 'Brest is a port in Brittany.' },
 * ])
 * prompt.user.content.startsWith('Context:\n\n[1] (tides.md)') // true
 * ```
 */
export function groundedPrompt(
  question: string,
  passages: readonly (GroundingPassage | string)[],
  options: GroundedPromptOptions = {},
): GroundedPrompt {
  if (typeof question !== 'string' || question.trim() === '') {
    refuseField(
      'input',
      'question',
      `must be a non-empty string, but got ${describeValue(question)}`,
      question,
      {
        prefix: 'groundedPrompt ',
      },
    )
  }
  const list = readPassages(passages)
  const instructions = new FieldReader(options, 'options', '{ instructions? }', 'input', {
    prefix: 'groundedPrompt ',
  }).string('instructions', { empty: true })
  const system = [...RULES, ...(instructions ? [instructions] : [])].join('\n')
  const blocks =
    list.length === 0
      ? '(no context blocks)'
      : list
          .map(
            (passage, index) =>
              `[${index + 1}]${passage.source === undefined ? '' : ` (${passage.source})`}\n${passage.text.trim()}`,
          )
          .join('\n\n')
  const user = Object.freeze({
    role: 'user' as const,
    content: `Context:\n\n${blocks}\n\nQuestion: ${question.trim()}`,
  })
  const systemMessage = Object.freeze({ role: 'system' as const, content: system })
  return Object.freeze({
    system: systemMessage,
    user,
    messages: Object.freeze([systemMessage, user] as const),
    passages: list,
  })
}

/**
 * What {@link parseCitations} found in an answer.
 * @example
 * ```ts
 * import { parseCitations, type CitedAnswer } from '@agent-core/kits/prompts'
 * const cited: CitedAnswer<{ text: string }> = parseCitations('At 06:12 [1].', [{ text: 'High tide is at 06:12.' }])
 * cited.citations[0]?.passage.text // 'High tide is at 06:12.'
 * ```
 */
export interface CitedAnswer<Passage = GroundingPassage> {
  /** The answer without its citation markers (spaces before a removed marker removed too). */
  readonly text: string
  /** Each passage cited, once, in order of first citation. */
  readonly citations: readonly { readonly number: number; readonly passage: Passage }[]
  /** Numbers cited that are no block (an invented citation), each once, in order. */
  readonly unknown: readonly number[]
  /** True when the answer is the {@link NOT_IN_CONTEXT} sentence (quotes, case and spaces aside). */
  readonly notInContext: boolean
}

const MARKER = /\s*\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\]/g

/**
 * Maps the `[n]` / `[n, m]` citations of a grounded answer back to the passages it was given (block `n`
 * is `passages[n - 1]`, as {@link groundedPrompt} numbered them), reports numbers that are no block, and
 * recognises the {@link NOT_IN_CONTEXT} answer.
 * @throws `InvalidInputError` when `answer` is not a string or `passages` not an array
 * @example
 * ```ts
 * import { parseCitations } from '@agent-core/kits/prompts'
 * const passages = [{ text: 'High tide is at 06:12.' }, { text: 'Low tide is at 12:30.' }]
 * const cited = parseCitations('High tide is at 06:12 [1], low tide at 12:30 [2][7].', passages)
 * cited.text // 'High tide is at 06:12, low tide at 12:30.'
 * cited.citations.map((c) => c.number) // [1, 2]
 * cited.unknown // [7]
 * ```
 */
export function parseCitations<Passage>(answer: string, passages: readonly Passage[]): CitedAnswer<Passage> {
  if (typeof answer !== 'string') {
    refuseField(
      'input',
      'answer',
      `must be a string, but got ${describeValue(answer)}`,
      answer,
      PARSE_CITATIONS,
    )
  }
  if (!Array.isArray(passages)) {
    refuseField(
      'input',
      'passages',
      `must be the array the prompt was built from, but got ${describeValue(passages)}`,
      passages,
      PARSE_CITATIONS,
    )
  }
  const cited: number[] = []
  const unknown: number[] = []
  const text = answer.replace(MARKER, (_match, numbers: string) => {
    for (const part of numbers.split(',')) {
      const number = Number(part.trim())
      const list = number >= 1 && number <= passages.length ? cited : unknown
      if (!list.includes(number)) list.push(number)
    }
    return ''
  })
  const normalized = (value: string) =>
    value
      .trim()
      .replace(/^["'“”]+|["'“”]+$/g, '')
      .replace(/\s+/g, ' ')
      .toLowerCase()
  return Object.freeze({
    text: text.trim(),
    citations: Object.freeze(
      cited.map((number) => Object.freeze({ number, passage: passages[number - 1] as Passage })),
    ),
    unknown: Object.freeze(unknown),
    notInContext: normalized(text) === normalized(NOT_IN_CONTEXT),
  })
}
