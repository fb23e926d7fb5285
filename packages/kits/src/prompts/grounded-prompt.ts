import { describeValue, InvalidInputError, type SystemMessage, type UserMessage } from '@agent-core/core'

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

function readPassages(passages: unknown): readonly GroundingPassage[] {
  if (!Array.isArray(passages)) {
    throw new InvalidInputError(
      `passages must be an array of { text, id?, source? }, but got ${describeValue(passages)}.`,
      {
        details: { field: 'passages', received: describeValue(passages) },
      },
    )
  }
  return Object.freeze(
    passages.map((passage: unknown, index) => {
      const field = `passages[${index}]`
      if (typeof passage === 'string') return Object.freeze({ text: passage })
      if (typeof passage !== 'object' || passage === null) {
        throw new InvalidInputError(
          `${field} must be { text, id?, source? } or a string, but got ${describeValue(passage)}.`,
          {
            details: { field, received: describeValue(passage), index },
          },
        )
      }
      const { text, id, source, ...rest } = passage as Record<string, unknown>
      const extra = Object.keys(rest)[0]
      if (extra !== undefined) {
        throw new InvalidInputError(`${field}.${extra} is not a known field (known: text, id, source).`, {
          details: { field: `${field}.${extra}`, received: describeValue(rest[extra]), index },
        })
      }
      for (const [key, value, optional] of [
        ['text', text, false],
        ['id', id, true],
        ['source', source, true],
      ] as const) {
        if ((value === undefined && !optional) || (value !== undefined && typeof value !== 'string')) {
          throw new InvalidInputError(`${field}.${key} must be a string, but got ${describeValue(value)}.`, {
            details: { field: `${field}.${key}`, received: describeValue(value), index },
          })
        }
      }
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
    throw new InvalidInputError(
      `groundedPrompt question must be a non-empty string, but got ${describeValue(question)}.`,
      {
        details: { field: 'question', received: describeValue(question) },
      },
    )
  }
  const list = readPassages(passages)
  if (typeof options !== 'object' || options === null) {
    throw new InvalidInputError(
      `groundedPrompt options must be { instructions? }, but got ${describeValue(options)}.`,
      {
        details: { field: 'options', received: describeValue(options) },
      },
    )
  }
  const { instructions } = options
  if (instructions !== undefined && typeof instructions !== 'string') {
    throw new InvalidInputError(
      `groundedPrompt options.instructions must be a string, but got ${describeValue(instructions)}.`,
      { details: { field: 'options.instructions', received: describeValue(instructions) } },
    )
  }
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
    throw new InvalidInputError(`parseCitations answer must be a string, but got ${describeValue(answer)}.`, {
      details: { field: 'answer', received: describeValue(answer) },
    })
  }
  if (!Array.isArray(passages)) {
    throw new InvalidInputError(
      `parseCitations passages must be the array the prompt was built from, but got ${describeValue(passages)}.`,
      { details: { field: 'passages', received: describeValue(passages) } },
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
