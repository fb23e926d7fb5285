import { assertObject, assertSafeInteger, describeValue, refuseField } from '@agent-core/core'
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

/**
 * Checks `text` and `options.targetChars` for `TextBlocks.<method>`.
 * @internal
 */
export function checkArguments(text: unknown, options: unknown, method = 'split'): number {
  const where = `TextBlocks.${method}`
  if (typeof text !== 'string') {
    refuseField(
      'input',
      'text',
      `must be a string, but got ${describeValue(text)}. Decode bytes (for example with TextDecoder) first`,
      text,
      { prefix: `${where}: ` },
    )
  }
  assertObject(options, 'options', {
    where,
    hint: 'Pass options { targetChars }, for example { targetChars: 2000 }.',
  })
  const { targetChars } = options as { targetChars?: unknown }
  assertSafeInteger(targetChars, 'options.targetChars', {
    min: 1,
    where,
    hint: 'It is a block size in UTF-16 code units: pass a whole number of at least 1, such as 2000.',
  })
  return targetChars
}

/** A heading that starts a block: its level (1 to 6; setext `===` is 1, `---` is 2) and its text. */
export interface BlockHeading {
  readonly level: number
  readonly text: string
}

const HASH_CODE = 35

/** The level and text of the ATX heading line `[start, end)`. */
function atxHeading(text: string, start: number, end: number): BlockHeading {
  let i = start
  while (i < end && text.charCodeAt(i) === 32) i++
  let level = 0
  while (i < end && text.charCodeAt(i) === HASH_CODE) {
    level++
    i++
  }
  // The optional closing sequence: spaces, then only `#` to the end of the line.
  const content = text.slice(i, end).trim()
  const closed = content.replace(/(^|[ \t]+)#+$/, '').trim()
  return { level, text: closed }
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
  return splitBlocks(text, checkArguments(text, options))
}

/**
 * {@link split} without the argument checks. When `headings` is given, `headings[i]` is set to the heading
 * that starts block `i` (or `undefined`).
 * @internal
 */
export function splitBlocks(
  text: string,
  targetChars: number,
  headings?: (BlockHeading | undefined)[],
): TextBlock[] {
  const length = text.length
  const blocks: TextBlock[] = []
  if (length === 0) return blocks

  const fence: FenceMark = { char: 0, length: 0 }
  let openFence: FenceMark | undefined
  let pendingHeading: BlockHeading | undefined
  let blockStart = 0
  /** The open block holds at least one non-blank line. */
  let hasContent = false
  /** Blank lines followed the block's content: the next content line starts a new block. */
  let closed = false
  /** Content lines in the open block (for the setext rule, which moves the heading text line). */
  let contentLines = 0
  /** Start and end of the previous line and whether it was a paragraph line of the open block. */
  let previousStart = 0
  let previousEnd = 0
  let previousIsParagraph = false
  /** The heading that starts the open block, when `headings` is wanted. */
  let blockHeading: BlockHeading | undefined

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
      let heading: BlockHeading | undefined
      if (closed) cutAt = lineStart
      else if (hasContent) {
        if (kind === HEADING || kind === RULE) cutAt = lineStart
        else if ((kind === DASHES || kind === EQUALS) && previousIsParagraph) {
          // A setext underline: the previous line is a heading, so the block starts there.
          if (contentLines >= 2) cutAt = previousStart
          if (headings) {
            heading = {
              level: kind === EQUALS ? 1 : 2,
              text: text.slice(previousStart, previousEnd).trim(),
            }
            // Without a cut, the open block starts with the heading's text line.
            if (cutAt === -1) blockHeading = heading
          }
          kind = HEADING
        } else if (kind === DASHES) cutAt = lineStart
        else if (next - blockStart > targetChars) cutAt = lineStart
      } else if (kind === EQUALS) kind = TEXT
      if (headings && kind === HEADING && heading === undefined) {
        heading = atxHeading(text, lineStart, lineEnd)
        if (cutAt === -1) blockHeading = heading
      }
      // After a cut the new block starts with this heading; `pendingHeading` carries it past the push.
      pendingHeading = heading
      if (kind === FENCE) openFence = { char: fence.char, length: fence.length }
      previousIsParagraph = kind === TEXT || kind === EQUALS
    }

    if (cutAt !== -1) {
      if (headings) {
        headings.push(blockHeading)
        blockHeading = pendingHeading
      }
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
    pendingHeading = undefined
    hasContent = true
    contentLines++
    previousStart = lineStart
    previousEnd = lineEnd
  }
  if (headings) headings.push(blockHeading)
  blocks.push({
    number: blocks.length + 1,
    text: text.slice(blockStart, length),
    start: blockStart,
    end: length,
  })
  return blocks
}

export { split }
