import { assertSafeInteger, refuseField } from '@agent-core/core'
import { type BlockHeading, checkArguments, splitBlocks } from './split.js'

/**
 * One retrieval passage of a text: consecutive blocks merged up to a target size, with the headings it
 * sits under. `text === source.slice(start, end)`.
 * @example
 * ```ts
 * import { TextBlocks, type TextPassage } from '@agent-core/kits/text-blocks'
 *
 * const source = '# Guide\n\nInstall it.\n\n## Usage\n\nCall it.\n'
 * const [first]: readonly TextPassage[] = TextBlocks.passages(source, { targetChars: 200 })
 * console.log(first?.headingPath, source.slice(first?.start, first?.end) === first?.text) // ['Guide'] true
 * ```
 */
export interface TextPassage {
  /** Position of the passage, starting at 1. */
  readonly number: number
  /** The passage's exact characters. */
  readonly text: string
  /** UTF-16 offset of the passage's first character in the source. */
  readonly start: number
  /** UTF-16 offset just past the passage's last character (exclusive). */
  readonly end: number
  /** The headings the passage sits under, outermost first, e.g. `['Search kit', 'Snapshots']`. */
  readonly headingPath: readonly string[]
}

/**
 * Options of `TextBlocks.passages`: the size a passage aims at, and how much it repeats of the one before.
 * @example
 * ```ts
 * import { TextBlocks, type TextPassageOptions } from '@agent-core/kits/text-blocks'
 *
 * const options: TextPassageOptions = { targetChars: 1200, overlapChars: 120 }
 * const passages = TextBlocks.passages('A long section of plain text.\n', options)
 * ```
 */
export interface TextPassageOptions {
  /**
   * The size (UTF-16 code units) a passage should not grow past: a positive safe integer. A passage is
   * longer only by a heading that opens it, or by the blank lines that close its last block.
   */
  readonly targetChars: number
  /**
   * How much of the previous passage of the same section a passage repeats at its start, at most, so
   * that a sentence cut by a passage boundary is whole in one of them. A safe integer from 0 (the
   * default: passages are contiguous) to `targetChars - 1`. The overlap starts at a line start when one
   * is close enough, else at a word start; a passage that opens a section never overlaps.
   */
  readonly overlapChars?: number
}

interface Draft {
  start: number
  /** Where the passage's body begins, past the headings (and blank lines) that open it. */
  bodyStart: number
  end: number
  headingPath: readonly string[]
  /** The passage so far holds headings only: the next block always joins it. */
  headingsOnly: boolean
  /** The passage continues a section (it did not start at a heading): it may overlap its predecessor. */
  continues: boolean
}

/**
 * Retrieval passages of decoded plain text: {@link TextBlocks.split}'s blocks merged in order up to
 * `targetChars`, starting afresh at every heading, each carrying the path of headings above it and exact
 * UTF-16 offsets. Lines longer than `targetChars` are cut at a sentence end, else at a space.
 */
function passages(text: string, options: TextPassageOptions): readonly TextPassage[] {
  const targetChars = checkArguments(text, options, 'passages')
  const overlapChars = (options as { overlapChars?: unknown }).overlapChars ?? 0
  assertSafeInteger(overlapChars, 'options.overlapChars', { min: 0 })
  if (overlapChars >= targetChars) {
    refuseField(
      'input',
      'options.overlapChars',
      `(${overlapChars}) must be smaller than targetChars (${targetChars}), or a passage could repeat all of the previous one. Use for example a tenth of targetChars`,
      overlapChars,
      { prefix: 'TextBlocks.passages ', details: { max: targetChars - 1 } },
    )
  }
  if (text.length === 0) return []
  const headings: (BlockHeading | undefined)[] = []
  const blocks = splitBlocks(text, targetChars, headings)
  const drafts: Draft[] = []
  const stack: BlockHeading[] = []
  let current: Draft | undefined
  const flush = () => {
    if (current) drafts.push(current)
    current = undefined
  }
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    const heading = headings[i]
    if (heading) {
      while (stack.length > 0 && stack.at(-1)!.level >= heading.level) stack.pop()
      stack.push(heading)
      const path = stack.map((h) => h.text)
      const bodyStart = headingEnd(text, block.start, block.end)
      const headingOnly = bodyStart === block.end
      if (current?.headingsOnly) {
        current.end = block.end
        current.bodyStart = bodyStart
        current.headingPath = path
        current.headingsOnly = headingOnly
      } else {
        flush()
        current = {
          start: block.start,
          bodyStart,
          end: block.end,
          headingPath: path,
          headingsOnly: headingOnly,
          continues: false,
        }
      }
      if (current.end - current.bodyStart > targetChars) current = cutLong(text, current, targetChars, drafts)
      continue
    }
    const path = stack.map((h) => h.text)
    if (current?.headingsOnly) {
      current.end = block.end
      current.bodyStart = block.start
      current.headingsOnly = false
    } else if (current && block.end - current.bodyStart <= targetChars) current.end = block.end
    else {
      flush()
      current = {
        start: block.start,
        bodyStart: block.start,
        end: block.end,
        headingPath: path,
        headingsOnly: false,
        continues: true,
      }
    }
    if (current.end - current.bodyStart > targetChars) current = cutLong(text, current, targetChars, drafts)
  }
  flush()
  const out: TextPassage[] = new Array(drafts.length)
  for (let i = 0; i < drafts.length; i++) {
    const draft = drafts[i]!
    const previous = drafts[i - 1]
    const start =
      overlapChars > 0 && previous !== undefined && draft.continues
        ? overlapStart(text, previous.start, previous.end, overlapChars)
        : draft.start
    out[i] = {
      number: i + 1,
      text: text.slice(start, draft.end),
      start,
      end: draft.end,
      headingPath: Object.freeze([...draft.headingPath]),
    }
  }
  return out
}

/** The end of the line that starts at `at` (past its terminator), within `end`. */
function lineEnd(text: string, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code === 10) return i + 1
    if (code === 13) return i + 1 < end && text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1
  }
  return end
}

/**
 * Where the body of a heading block begins: past leading blank lines, the heading line (and a setext
 * underline), and the blank lines after it. Equals `end` when the block is only a heading.
 */
function headingEnd(text: string, start: number, end: number): number {
  let at = start
  const skipBlank = () => {
    while (at < end) {
      const next = lineEnd(text, at, end)
      if (text.slice(at, next).trim() !== '') break
      at = next
    }
  }
  skipBlank()
  at = lineEnd(text, at, end)
  const next = lineEnd(text, at, end)
  // A setext heading's underline belongs to the heading.
  if (at < end && /^ {0,3}(=+|-+)[ \t]*$/.test(text.slice(at, next).replace(/[\r\n]+$/, ''))) at = next
  skipBlank()
  return at
}

/**
 * Cuts the front of an over-long draft into passages of at most `targetChars` (pushed to `drafts`) and
 * returns the rest as the open draft. Cuts fall after a sentence end (`.`, `!`, `?` and a space), else
 * after a space, else at `targetChars` (never inside a surrogate pair).
 */
function cutLong(text: string, draft: Draft, targetChars: number, drafts: Draft[]): Draft {
  let current = draft
  while (current.end - current.bodyStart > targetChars) {
    const cut = cutPoint(text, current.bodyStart, current.bodyStart + targetChars)
    drafts.push({ ...current, end: cut })
    current = {
      start: cut,
      bodyStart: cut,
      end: current.end,
      headingPath: current.headingPath,
      headingsOnly: false,
      continues: true,
    }
  }
  return current
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

function cutPoint(text: string, start: number, limit: number): number {
  let space = -1
  for (let i = limit; i > start + 1; i--) {
    if (!isSpace(text.charCodeAt(i - 1)) || isSpace(text.charCodeAt(i - 2))) continue
    // `i` is just past the first whitespace after a word: a sentence end when the word ends with . ! ?
    const before = text.charCodeAt(i - 2)
    if (before === 46 || before === 33 || before === 63) return i
    if (space === -1) space = i
  }
  if (space !== -1) return space
  // A hard cut, never between the two halves of a surrogate pair: back off one, or go one further when
  // the pair is the passage's first character.
  const code = text.charCodeAt(limit - 1)
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(limit)
    if (low >= 0xdc00 && low <= 0xdfff) return limit - 1 > start ? limit - 1 : limit + 1
  }
  return limit
}

/**
 * Where the passage after `[start, end)` begins when it repeats up to `overlapChars` of it: the first
 * line start in the window, else the first word start, else no overlap (`end`).
 */
function overlapStart(text: string, start: number, end: number, overlapChars: number): number {
  const from = Math.max(start + 1, end - overlapChars)
  let word = -1
  for (let i = from; i < end; i++) {
    const before = text.charCodeAt(i - 1)
    const code = text.charCodeAt(i)
    if (before === 10 || (before === 13 && code !== 10)) {
      if (text.slice(i, end).trim() !== '') return i
      break
    }
    if (word === -1 && isSpace(before) && !isSpace(code)) word = i
  }
  return word === -1 ? end : word
}

export { passages }
