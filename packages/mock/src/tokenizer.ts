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
const PIECE = /\s*(?:[\p{L}\p{M}]{1,4}|\p{N}{1,3}|[^\s\p{L}\p{M}\p{N}])|\s+/gu

/**
 * Splits text into MockGPT tokens; `tokenize(text).join('') === text` always holds.
 * @example
 * ```ts
 * import { tokenize } from '@agent-core/mock'
 * tokenize('Hello, world') // ['Hell', 'o', ',', ' worl', 'd']
 * ```
 */
export function tokenize(text: string): string[] {
  return text.match(PIECE) ?? []
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
  let count = 0
  PIECE.lastIndex = 0
  while (PIECE.exec(text) !== null) count++
  PIECE.lastIndex = 0
  return count
}
