/**
 * Classifies one line of plain text by looking only at its first characters (a whole-line scan happens
 * only for lines that start like a rule, an underline or a blank line). Markdown-flavoured: ATX headings,
 * thematic breaks, setext underlines and code fences, each indented by at most three spaces.
 */

/** Ordinary text. */
export const TEXT = 0
/** Empty, or spaces and tabs only. */
export const BLANK = 1
/** `#` to `######` followed by a space, a tab or the end of the line. */
export const HEADING = 2
/** Three or more `*`, `_` or `-` (the dashes with spaces between them), nothing else but spaces/tabs. */
export const RULE = 3
/** Three or more contiguous `-`: an underline after a paragraph line, a rule anywhere else. */
export const DASHES = 4
/** Three or more contiguous `=`: an underline after a paragraph line, text anywhere else. */
export const EQUALS = 5
/** Three or more backticks or tildes: opens (or closes) a fenced code block. */
export const FENCE = 6

export type LineKind =
  | typeof TEXT
  | typeof BLANK
  | typeof HEADING
  | typeof RULE
  | typeof DASHES
  | typeof EQUALS
  | typeof FENCE

const SPACE = 32
const TAB = 9
const HASH = 35
const DASH = 45
const STAR = 42
const UNDERSCORE = 95
const EQUAL_SIGN = 61
const BACKTICK = 96
const TILDE = 126

/**
 * 1 for the characters a structural or blank line can start with (space, tab, `#`, `-`, `*`, `_`, `=`,
 * backtick, `~`); a line starting with anything else is {@link TEXT} without further reading.
 */
export const STRUCTURE_START: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (const code of [SPACE, TAB, HASH, DASH, STAR, UNDERSCORE, EQUAL_SIGN, BACKTICK, TILDE]) table[code] = 1
  return table
})()

/** The fence a {@link FENCE} line opened: its character and run length, written by {@link classifyLine}. */
export interface FenceMark {
  char: number
  length: number
}

function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB
}

/** True when `[from, end)` holds only spaces and tabs. */
function onlySpacesFrom(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (!isSpaceOrTab(text.charCodeAt(i))) return false
  return true
}

/**
 * The kind of the line `[start, end)` (`end` excludes the line terminator). For a {@link FENCE} line the
 * fence character and length are written to `fence`.
 */
export function classifyLine(text: string, start: number, end: number, fence: FenceMark): LineKind {
  let i = start
  const indentLimit = start + 3
  while (i < end && i < indentLimit && text.charCodeAt(i) === SPACE) i++
  if (i === end) return BLANK
  const first = text.charCodeAt(i)
  switch (first) {
    case SPACE:
    case TAB:
      // Four or more columns of indentation: never structure, only blank or text.
      return onlySpacesFrom(text, i, end) ? BLANK : TEXT
    case HASH: {
      let j = i + 1
      while (j < end && j - i < 7 && text.charCodeAt(j) === HASH) j++
      const level = j - i
      return level <= 6 && (j === end || isSpaceOrTab(text.charCodeAt(j))) ? HEADING : TEXT
    }
    case DASH:
    case STAR:
    case UNDERSCORE: {
      let count = 0
      let gap = false
      let lastMark = i
      for (let j = i; j < end; j++) {
        const code = text.charCodeAt(j)
        if (code === first) {
          if (count > 0 && j !== lastMark + 1) gap = true
          count++
          lastMark = j
        } else if (!isSpaceOrTab(code)) return TEXT
      }
      if (count < 3) return TEXT
      return first === DASH && !gap ? DASHES : RULE
    }
    case EQUAL_SIGN: {
      let j = i
      while (j < end && text.charCodeAt(j) === EQUAL_SIGN) j++
      return j - i >= 3 && onlySpacesFrom(text, j, end) ? EQUALS : TEXT
    }
    case BACKTICK:
    case TILDE: {
      let j = i
      while (j < end && text.charCodeAt(j) === first) j++
      const length = j - i
      if (length < 3) return TEXT
      if (first === BACKTICK) {
        // A backtick fence's info string may not contain a backtick (that is inline code, not a fence).
        for (let k = j; k < end; k++) if (text.charCodeAt(k) === BACKTICK) return TEXT
      }
      fence.char = first
      fence.length = length
      return FENCE
    }
    default:
      return TEXT
  }
}

/** True when `[start, end)` closes a fence opened with `fence`: the same character, at least as many, nothing after. */
export function closesFence(text: string, start: number, end: number, fence: FenceMark): boolean {
  let i = start
  const indentLimit = start + 3
  while (i < end && i < indentLimit && text.charCodeAt(i) === SPACE) i++
  let j = i
  while (j < end && text.charCodeAt(j) === fence.char) j++
  return j - i >= fence.length && onlySpacesFrom(text, j, end)
}
