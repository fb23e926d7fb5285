import { describeValue, FieldReader, refuseField, type UserMessage } from '@agent-core/core'
import { excerptOf, OutputParseError, type OutputParserName } from './prompt-errors.js'

/** The prefixes of parseChoice's and correctionPrompt's refusals. */
const PARSE_CHOICE = Object.freeze({ prefix: 'parseChoice ' })
const CORRECTION = Object.freeze({ prefix: 'correctionPrompt ' })

function assertText(text: unknown, parser: string): asserts text is string {
  if (typeof text !== 'string')
    refuseField(
      'input',
      'text',
      `must be the model's text as a string, but got ${describeValue(text)}. Pass the answer text (result.text or result.answer)`,
      text,
      { prefix: `${parser}: ` },
    )
}

function refuse(
  parser: OutputParserName,
  text: string,
  problem: string,
  expected: string,
  extra: { readonly choices?: readonly string[] } = {},
): never {
  throw new OutputParseError(`The model's output ${problem}. ${expected}`, {
    details: { parser, expected, problem, excerpt: excerptOf(text), ...extra },
  })
}

const LINE_BREAK = /\r\n|\r|\n/

/**
 * The non-empty lines of a text, trimmed. Never throws for a string (an empty text gives `[]`).
 * @throws `InvalidInputError` when `text` is not a string
 * @example
 * ```ts
 * import { parseLines } from '@agent-core/kits/prompts'
 * parseLines('alpha\n\n  beta \r\ngamma') // ['alpha', 'beta', 'gamma']
 * ```
 */
export function parseLines(text: string): readonly string[] {
  assertText(text, 'parseLines')
  return Object.freeze(
    text
      .split(LINE_BREAK)
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  )
}

const ITEM = /^(?:[-*+•]|\d{1,9}[.)])\s+(.*)$/

/**
 * The items of a bullet (`-`, `*`, `+`, `•`) or numbered (`1.`, `1)`) list, markers removed, in order.
 * Lines that are not items (an introduction, a closing remark) are left out, except an indented line
 * under an item, which continues it (joined with a space).
 * @throws `OutputParseError` when the text holds no list item
 * @example
 * ```ts
 * import { parseList } from '@agent-core/kits/prompts'
 * parseList('Here are three:\n1. Brest\n2. Lyon\n3. Nice\nEnjoy!') // ['Brest', 'Lyon', 'Nice']
 * ```
 */
export function parseList(text: string): readonly string[] {
  assertText(text, 'parseList')
  const items: string[] = []
  for (const raw of text.split(LINE_BREAK)) {
    const line = raw.trim()
    const match = ITEM.exec(line)
    if (match) items.push(match[1]!.trim())
    else if (items.length > 0 && line !== '' && /^\s/.test(raw)) {
      // An indented line under an item continues it.
      items[items.length - 1] = `${items[items.length - 1]} ${line}`.trim()
    }
  }
  if (items.length === 0)
    refuse(
      'list',
      text,
      'holds no list item',
      'Answer with one item per line, each starting with "- " or a number and a period ("1. ").',
    )
  return Object.freeze(items)
}

/**
 * Options of {@link parseChoice}.
 * @example
 * ```ts
 * import type { ChoiceOptions } from '@agent-core/kits/prompts'
 * const options: ChoiceOptions = { caseSensitive: true }
 * ```
 */
export interface ChoiceOptions {
  /** Match the choices' case exactly. Default false. */
  readonly caseSensitive?: boolean | undefined
}

/**
 * The one choice (out of `choices`) the model answered. The answer is trimmed of spaces, quotes, a
 * trailing period and markdown emphasis first; when it is not exactly a choice, the one choice that
 * appears in it as a whole word is taken (`"The answer is: yes."`). Two choices appearing, or none, is an
 * error: the model did not decide.
 * @returns the choice as written in `choices`
 * @throws `OutputParseError` when the answer names no choice or several
 * @throws `InvalidInputError` for an empty `choices`, a choice that is not a non-empty string, or duplicates
 * @example
 * ```ts
 * import { parseChoice } from '@agent-core/kits/prompts'
 * parseChoice('**Negative.**', ['positive', 'negative', 'neutral']) // 'negative'
 * parseChoice('I would say it is positive overall.', ['positive', 'negative']) // 'positive'
 * ```
 */
export function parseChoice<const Choice extends string>(
  text: string,
  choices: readonly Choice[],
  options: ChoiceOptions = {},
): Choice {
  assertText(text, 'parseChoice')
  if (!Array.isArray(choices) || choices.length === 0)
    refuseField(
      'input',
      'choices',
      `must be a non-empty array of strings, but got ${describeValue(choices)}`,
      choices,
      PARSE_CHOICE,
    )
  const caseSensitive =
    new FieldReader(options, 'options', 'an object { caseSensitive? }', 'input', PARSE_CHOICE).boolean(
      'caseSensitive',
    ) ?? false
  const fold = (value: string) => (caseSensitive ? value : value.toLowerCase())
  const seen = new Set<string>()
  choices.forEach((choice: unknown, index) => {
    if (typeof choice !== 'string' || choice.trim() === '') {
      refuseField(
        'input',
        `choices[${index}]`,
        `must be a non-empty string, but got ${describeValue(choice)}`,
        choice,
        {
          prefix: PARSE_CHOICE.prefix,
          details: { index },
        },
      )
    }
    if (seen.has(fold(choice))) {
      refuseField(
        'input',
        `choices[${index}]`,
        `"${choice}" is given twice${caseSensitive ? '' : ' (case aside)'}; give each choice once`,
        choice,
        { prefix: PARSE_CHOICE.prefix, details: { index } },
      )
    }
    seen.add(fold(choice))
  })
  const expected = `Answer with exactly one of: ${choices.map((c) => `"${c}"`).join(', ')}, and nothing else.`
  const cleaned = fold(
    text
      .trim()
      .replace(/^[\s"'`*_]+|[\s"'`*_.!]+$/g, '')
      .trim(),
  )
  const exact = choices.find((choice) => fold(choice) === cleaned)
  if (exact !== undefined) return exact
  const haystack = fold(text)
  const found = choices.filter((choice) => {
    const needle = fold(choice)
    let at = haystack.indexOf(needle)
    while (at !== -1) {
      const before = haystack[at - 1]
      const after = haystack[at + needle.length]
      if (!isWordChar(before) && !isWordChar(after)) return true
      at = haystack.indexOf(needle, at + 1)
    }
    return false
  })
  if (found.length === 1) return found[0]!
  refuse(
    'choice',
    text,
    found.length === 0
      ? 'names none of the choices'
      : `names several choices (${found.map((c) => `"${c}"`).join(', ')})`,
    expected,
    { choices: Object.freeze([...choices]) },
  )
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}_]/u.test(char)
}

/**
 * A fenced code block: its info string's first word (`json`, `ts`; `''` when none) and its content.
 * @example
 * ```ts
 * import { parseFencedBlock, type FencedBlock } from '@agent-core/kits/prompts'
 * const block: FencedBlock = parseFencedBlock('```sql\nSELECT 1\n```')
 * // { language: 'sql', code: 'SELECT 1' }
 * ```
 */
export interface FencedBlock {
  readonly language: string
  /** The lines between the fences, joined with `\n`, without the final line break. */
  readonly code: string
}

const OPEN_FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/

/**
 * The first fenced code block (three or more backticks or tildes) of a text, optionally the first one in
 * a given language. A block left open runs to the end of the text (a model cut short).
 * @throws `OutputParseError` when there is no such block
 * @example
 * ```ts
 * import { parseFencedBlock } from '@agent-core/kits/prompts'
 * const reply = 'Here you go:\n```python\nprint("hi")\n```\nAnything else?'
 * parseFencedBlock(reply).code // 'print("hi")'
 * parseFencedBlock(reply, { language: 'python' }).language // 'python'
 * ```
 */
export function parseFencedBlock(text: string, options: { readonly language?: string } = {}): FencedBlock {
  assertText(text, 'parseFencedBlock')
  const wanted = typeof options === 'object' && options !== null ? options.language : options
  if (wanted !== undefined && (typeof wanted !== 'string' || wanted === '')) {
    refuseField(
      'input',
      'options.language',
      `must be a non-empty string, but got ${describeValue(wanted)}`,
      wanted,
      {
        prefix: 'parseFencedBlock ',
      },
    )
  }
  const lines = text.split(LINE_BREAK)
  for (let i = 0; i < lines.length; i += 1) {
    const open = OPEN_FENCE.exec(lines[i]!)
    if (!open) continue
    const fence = open[2]!
    const language = open[3] ?? ''
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j += 1) {
      const line = lines[j]!
      const trimmed = line.trim()
      if (/^(`{3,}|~{3,})$/.test(trimmed) && trimmed[0] === fence[0] && trimmed.length >= fence.length) break
      body.push(line)
    }
    if (wanted === undefined || language.toLowerCase() === wanted.toLowerCase()) {
      return Object.freeze({ language, code: body.join('\n') })
    }
    i = j
  }
  refuse(
    'fenced-block',
    text,
    wanted === undefined ? 'holds no fenced code block' : `holds no fenced ${wanted} block`,
    `Put the ${wanted ?? 'code'} in one fenced block: a line \`\`\`${wanted ?? ''}, the content, then a line \`\`\`.`,
  )
}

/**
 * The end (exclusive) of the balanced JSON object starting at `start` (a `{`), strings and escapes
 * respected; -1 when it is never closed.
 */
function balancedEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i += 1) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i += 1
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{' || char === '[') depth += 1
    else if (char === '}' || char === ']') {
      depth -= 1
      if (depth === 0) return i + 1
      if (depth < 0) return -1
    }
  }
  return -1
}

/**
 * The first balanced JSON object in a text: prose around it, a fenced block or an unclosed remark after it
 * are ignored. Each `{` is tried in order: the first whose balanced span (strings and escapes respected)
 * parses as JSON wins, so braces in prose before the object (`{like this}`) do not hide it.
 * @returns the parsed object (a plain object, never an array or a primitive)
 * @throws `OutputParseError` when no balanced span parses as a JSON object
 * @example
 * ```ts
 * import { parseJsonObject } from '@agent-core/kits/prompts'
 * parseJsonObject('Sure! {"city": "Brest", "tide": {"high": "06:12"}} Hope that helps.')
 * // { city: 'Brest', tide: { high: '06:12' } }
 * ```
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  assertText(text, 'parseJsonObject')
  let unclosed = false
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start)
    if (end === -1) {
      unclosed = true
      continue
    }
    try {
      const value: unknown = JSON.parse(text.slice(start, end))
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>
    } catch {
      // Not JSON: try the next `{`.
    }
  }
  refuse(
    'json-object',
    text,
    unclosed ? 'holds a JSON object that is never closed' : 'holds no JSON object',
    'Answer with one JSON object ({ ... }) that is valid JSON: double-quoted keys and strings, no trailing commas, no comments.',
  )
}

/**
 * Options of {@link correctionPrompt}: the output that was refused (quoted back to the model) and extra
 * instructions.
 * @example
 * ```ts
 * import type { CorrectionOptions } from '@agent-core/kits/prompts'
 * const options: CorrectionOptions = { output: 'Maybe', instructions: 'Keep it to one word.' }
 * ```
 */
export interface CorrectionOptions {
  /** The refused output, quoted (up to 2000 characters) so the model sees what it wrote. */
  readonly output?: string | undefined
  /** Added after the expected format. */
  readonly instructions?: string | undefined
}

/**
 * The user message that asks the model to correct an output a parser refused: what was wrong and what a
 * valid output looks like (from the error's details), optionally the refused output and more
 * instructions. Append it to the conversation after the model's reply and call the model again.
 * @throws `InvalidInputError` when `error` is not an {@link OutputParseError}
 * @example
 * ```ts
 * import { correctionPrompt, OutputParseError, parseChoice } from '@agent-core/kits/prompts'
 * try {
 *   parseChoice('Hard to say.', ['yes', 'no'])
 * } catch (error) {
 *   if (!OutputParseError.isInstance(error)) throw error
 *   const retry = correctionPrompt(error, { output: 'Hard to say.' })
 *   // retry.content starts with 'Your previous answer names none of the choices.'
 * }
 * ```
 */
export function correctionPrompt(
  error: OutputParseError,
  options: CorrectionOptions = {},
): UserMessage & { readonly content: string } {
  if (!OutputParseError.isInstance(error))
    refuseField(
      'input',
      'error',
      `must be the OutputParseError a parser threw, but got ${describeValue(error)}. Rethrow other errors: they are not the model's fault`,
      error,
      CORRECTION,
    )
  const fields = new FieldReader(options, 'options', '{ output?, instructions? }', 'input', CORRECTION)
  const output = fields.string('output', { empty: true })
  const instructions = fields.string('instructions', { empty: true })
  const lines = [`Your previous answer ${error.details.problem}.`]
  if (output !== undefined) {
    const quoted = output.length > 2000 ? `${output.slice(0, 2000)}…` : output
    lines.push('', 'It was:', quoted)
  }
  lines.push('', error.details.expected)
  if (instructions !== undefined && instructions !== '') lines.push(instructions)
  lines.push('Answer again, in that format.')
  return Object.freeze({ role: 'user', content: lines.join('\n') })
}
