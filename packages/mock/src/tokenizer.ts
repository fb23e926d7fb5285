/**
 * MockGPT's token approximation. It is not OpenAI's BPE; it is a small, deterministic rule that lands near
 * it for English prose and keeps usage numbers stable across runs and platforms:
 *
 * - a run of letters (with combining marks) counts one token per 4 characters, rounded up;
 * - a run of digits counts one token per 3 digits, rounded up;
 * - every other non-space character (punctuation, symbols, emoji, one code point each) is one token;
 * - whitespace is free when a token follows it (it is glued to that token); trailing whitespace is one token.
 *
 * The pieces concatenate back to the input exactly, so streamed deltas are these pieces and a stream's
 * `completion_tokens` equals its number of content deltas.
 */
let PIECE: RegExp | undefined

/**
 * The rule above as one expression, compiled on first use: its Unicode property classes cost about 1 ms to
 * build (more on a loaded machine), which every cold import of the engine would pay, and ASCII text never
 * needs it.
 */
function piece(): RegExp {
  PIECE ??= /\s*(?:[\p{L}\p{M}]{1,4}|\p{N}{1,3}|[^\s\p{L}\p{M}\p{N}])|\s+/gu
  return PIECE
}

/**
 * Splits text into MockGPT tokens; `tokenize(text).join('') === text` always holds.
 * @example
 * ```ts
 * import { tokenize } from '@agent-core/mock'
 * tokenize('Hello, world') // ['Hell', 'o', ',', ' worl', 'd']
 * ```
 */
export function tokenize(text: string): string[] {
  return asciiPieces(text) ?? text.match(piece()) ?? []
}

/**
 * Counts MockGPT tokens in `text` (see {@link tokenize} for the rule).
 * @example
 * ```ts
 * import { countTokens } from '@agent-core/mock'
 * countTokens('Hello, world') // 5
 * ```
 */
export function countTokens(text: string): number {
  const ascii = countAsciiTokens(text)
  if (ascii >= 0) return ascii
  const pattern = piece()
  let count = 0
  pattern.lastIndex = 0
  while (pattern.exec(text) !== null) count++
  pattern.lastIndex = 0
  return count
}

/** What `PIECE` sees in each ASCII character: 0 whitespace (`\s`), 1 letter, 2 digit, 3 anything else. */
const ASCII_KIND = (() => {
  const kinds = new Uint8Array(128).fill(3)
  for (const c of ' \t\n\v\f\r') kinds[c.charCodeAt(0)] = 0
  for (let c = 0; c < 26; c++) {
    kinds[65 + c] = 1
    kinds[97 + c] = 1
  }
  for (let c = 48; c < 58; c++) kinds[c] = 2
  return kinds
})()

/**
 * The count of {@link countTokens} for ASCII text, read character by character instead of with `PIECE`
 * (every request counts its messages, and most are ASCII): the same rule, so the same count. Returns -1 at
 * the first character beyond ASCII, where letters, marks, digits and spaces of other scripts begin, and the
 * caller counts with the expression instead.
 */
function countAsciiTokens(text: string): number {
  const n = text.length
  let count = 0
  let i = 0
  while (i < n) {
    let c = text.charCodeAt(i)
    if (c > 127) return -1
    let kind = ASCII_KIND[c] as number
    // Whitespace is glued to the token after it; a run at the end is one token of its own.
    while (kind === 0) {
      if (++i === n) return count + 1
      c = text.charCodeAt(i)
      if (c > 127) return -1
      kind = ASCII_KIND[c] as number
    }
    // One token: up to 4 letters, up to 3 digits, or one other character.
    count++
    const max = kind === 1 ? 4 : kind === 2 ? 3 : 1
    let run = 1
    i++
    while (run < max && i < n) {
      c = text.charCodeAt(i)
      if (c > 127) return -1
      if (ASCII_KIND[c] !== kind) break
      run++
      i++
    }
  }
  return count
}

/**
 * The pieces of {@link tokenize} for ASCII text, cut character by character as {@link countAsciiTokens}
 * counts them (answers are tokenized once each, and most are ASCII); `undefined` at the first character
 * beyond ASCII, and the caller splits with `PIECE` instead.
 */
function asciiPieces(text: string): string[] | undefined {
  const n = text.length
  const pieces: string[] = []
  let start = 0
  let i = 0
  while (i < n) {
    let c = text.charCodeAt(i)
    if (c > 127) return undefined
    let kind = ASCII_KIND[c] as number
    while (kind === 0) {
      if (++i === n) {
        pieces.push(text.slice(start))
        return pieces
      }
      c = text.charCodeAt(i)
      if (c > 127) return undefined
      kind = ASCII_KIND[c] as number
    }
    const max = kind === 1 ? 4 : kind === 2 ? 3 : 1
    let run = 1
    i++
    while (run < max && i < n) {
      c = text.charCodeAt(i)
      if (c > 127) return undefined
      if (ASCII_KIND[c] !== kind) break
      run++
      i++
    }
    pieces.push(text.slice(start, i))
    start = i
  }
  return pieces
}
