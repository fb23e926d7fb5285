import { assertObject, assertSafeInteger, describeValue, InvalidInputError } from '@agent-core/core'
import {
  BLANK,
  classifyLine,
  closesFence,
  DASHES,
  EQUALS,
  FENCE,
  type FenceMark,
  HEADING,
  type LineKind,
  RULE,
  STRUCTURE_START,
  TEXT,
} from './line-kind.js'

/**
 * One structural block of a text. `text === source.slice(start, end)`; blocks are contiguous, so joining
 * every block's `text` gives back the source exactly.
 * @example
 * ```ts
 * import { type TextBlock, TextBlocks } from '@agent-core/kits/text-blocks'
 * const source = '# Title\nIntro.\n'
 * const [first]: readonly TextBlock[] = TextBlocks.split(source, { targetChars: 2000 })
 * first?.number // 1
 * source.slice(first?.start, first?.end) === first?.text // true
 * ```
 */
export interface TextBlock {
  /** Position of the block, starting at 1. */
  readonly number: number
  /** The block's exact characters, line terminators and trailing blank lines included. */
  readonly text: string
  /** UTF-16 offset of the block's first character in the source. */
  readonly start: number
  /** UTF-16 offset just past the block's last character (exclusive). */
  readonly end: number
}

/**
 * Options of `TextBlocks.split`.
 * @example
 * ```ts
 * import { type TextBlockSplitOptions, TextBlocks } from '@agent-core/kits/text-blocks'
 * const options: TextBlockSplitOptions = { targetChars: 2000 }
 * const blocks = TextBlocks.split('First paragraph.\n\nSecond paragraph.\n', options)
 * ```
 */
export interface TextBlockSplitOptions {
  /**
   * The size (in UTF-16 code units, line terminators included) a run of lines should not grow past. A
   * positive safe integer. A block is only longer when its first line alone is longer, or by the blank
   * lines that close it.
   */
  readonly targetChars: number
}

const LF = 10

const WHERE = 'TextBlocks.split'

function checkArguments(text: unknown, options: unknown): number {
  if (typeof text !== 'string') {
    throw new InvalidInputError(
      `${WHERE}: text must be a string, but got ${describeValue(text)}. Decode bytes (for example with TextDecoder) before splitting.`,
      { details: { field: 'text', received: describeValue(text) } },
    )
  }
  assertObject(options, 'options', {
    where: WHERE,
    hint: 'Pass options { targetChars }, for example { targetChars: 2000 }.',
  })
  const { targetChars } = options as { targetChars?: unknown }
  assertSafeInteger(targetChars, 'options.targetChars', {
    min: 1,
    where: WHERE,
    hint: 'It is a block size in UTF-16 code units: pass a whole number of at least 1, such as 2000.',
  })
  return targetChars
}

/**
 * Splits decoded plain text into numbered structural blocks in one pass.
 *
 * Lines end at `\n`, `\r\n` or a lone `\r`. A heading (`#` to `######`, or a paragraph line followed by a
 * `===`/`---` underline) or a thematic break (`---`, `***`, `___`) starts a new block; one or more blank
 * lines end the current block and stay at its end; a run of other lines starts a new block at the line
 * that would make the current one longer than `targetChars`. A single line longer than `targetChars` is one
 * block of its own. Inside a fenced code block (three or more backticks or tildes) lines are never read
 * as headings, rules or blank separators, so only the size limit breaks a code block.
 *
 * @param text - decoded text; an empty string gives an empty array
 * @param options - `{ targetChars }`, a positive safe integer
 * @returns blocks numbered from 1 that cover `text` contiguously and exactly
 * @throws InvalidInputError when `text` is not a string or `targetChars` is not a positive safe integer
 */
function split(text: string, options: TextBlockSplitOptions): readonly TextBlock[] {
  const targetChars = checkArguments(text, options)
  const length = text.length
  const blocks: TextBlock[] = []
  if (length === 0) return blocks

  const fence: FenceMark = { char: 0, length: 0 }
  let openFence: FenceMark | undefined
  let blockStart = 0
  /** The open block holds at least one non-blank line. */
  let hasContent = false
  /** Blank lines followed the block's content: the next content line starts a new block. */
  let closed = false
  /** Content lines in the open block (for the setext rule, which moves the heading text line). */
  let contentLines = 0
  /** Start of the previous line and whether it was a paragraph line of the open block. */
  let previousStart = 0
  let previousIsParagraph = false

  let nextLf = text.indexOf('\n')
  // One search tells whether the text has any CR at all; then it is only searched again past each one found.
  let nextCr = text.indexOf('\r')
  let position = 0

  while (position < length) {
    if (nextLf !== -1 && nextLf < position) nextLf = text.indexOf('\n', position)
    if (nextCr !== -1 && nextCr < position) nextCr = text.indexOf('\r', position)
    let lineEnd: number
    let next: number
    if (nextCr === -1 || (nextLf !== -1 && nextLf < nextCr)) {
      lineEnd = nextLf === -1 ? length : nextLf
      next = nextLf === -1 ? length : nextLf + 1
    } else {
      lineEnd = nextCr
      next = nextCr + 1 < length && text.charCodeAt(nextCr + 1) === LF ? nextCr + 2 : nextCr + 1
    }
    const lineStart = position
    position = next

    let cutAt = -1
    let kind: LineKind
    if (openFence !== undefined) {
      // Inside a code fence every line is content; only the size limit may break the run.
      if (closesFence(text, lineStart, lineEnd, openFence)) openFence = undefined
      kind = TEXT
      if (next - blockStart > targetChars && hasContent) cutAt = lineStart
      previousIsParagraph = false
    } else {
      // An empty line is blank, and a line that does not start with a space, a tab or a marker character
      // is text: neither needs a classification call.
      if (lineStart === lineEnd) kind = BLANK
      else {
        const first = text.charCodeAt(lineStart)
        kind =
          first < 128 && STRUCTURE_START[first] === 1 ? classifyLine(text, lineStart, lineEnd, fence) : TEXT
      }
      if (kind === BLANK) {
        if (hasContent) closed = true
        previousIsParagraph = false
        continue
      }
      if (closed) cutAt = lineStart
      else if (hasContent) {
        if (kind === HEADING || kind === RULE) cutAt = lineStart
        else if ((kind === DASHES || kind === EQUALS) && previousIsParagraph) {
          // A setext underline: the previous line is a heading, so the block starts there.
          if (contentLines >= 2) cutAt = previousStart
          kind = HEADING
        } else if (kind === DASHES) cutAt = lineStart
        else if (next - blockStart > targetChars) cutAt = lineStart
      } else if (kind === EQUALS) kind = TEXT
      if (kind === FENCE) openFence = { char: fence.char, length: fence.length }
      previousIsParagraph = kind === TEXT || kind === EQUALS
    }

    if (cutAt !== -1) {
      blocks.push({
        number: blocks.length + 1,
        text: text.slice(blockStart, cutAt),
        start: blockStart,
        end: cutAt,
      })
      contentLines = cutAt === lineStart ? 0 : 1
      blockStart = cutAt
      closed = false
    }
    hasContent = true
    contentLines++
    previousStart = lineStart
  }
  blocks.push({
    number: blocks.length + 1,
    text: text.slice(blockStart, length),
    start: blockStart,
    end: length,
  })
  return blocks
}

/**
 * Structure-aware splitting of decoded plain text into numbered blocks with exact UTF-16 offsets. The kit
 * reads no files, pages nothing and calls no model: paging windows, indexing and prompts stay the App's.
 *
 * @example
 * ```ts
 * import { TextBlocks } from '@agent-core/kits/text-blocks'
 *
 * const text = '# Intro\nHello.\n\n# Usage\nRun it.\n'
 * const blocks = TextBlocks.split(text, { targetChars: 2000 })
 * blocks.map((b) => b.text) // ['# Intro\nHello.\n\n', '# Usage\nRun it.\n']
 * blocks.map((b) => b.text).join('') === text // true
 * ```
 */
export const TextBlocks: {
  /**
   * Splits `text` into blocks that start at headings and rules, end after blank lines and break at line
   * boundaries before `targetChars` is exceeded. Throws InvalidInputError on a non-string text or a
   * `targetChars` that is not a positive safe integer.
   */
  readonly split: (text: string, options: TextBlockSplitOptions) => readonly TextBlock[]
} = Object.freeze({ split })
