import { ENGLISH_STOP_WORDS } from './internal/analysis.js'

const QUOTED = /"[^"]+"|\u201c[^\u201d]+\u201d|`[^`]+`/
const IDENTIFIER =
  /[\p{L}\p{N}][._/:#@]+[\p{L}\p{N}]|[\p{L}\p{N}]_[\p{L}\p{N}]|\p{Ll}\p{Lu}|[\p{L}\p{N}]\(\)|(?:^|\s)--?[\p{L}]/u

/**
 * True when a query looks like a lookup rather than a question: a quoted phrase, an identifier (a dotted
 * or slashed name such as `sap.m.Table`, `manifest.json` or `src/index.ts`, snake_case, camelCase, a call
 * `f()`, a command-line flag), or a few bare keywords with no English function word among them
 * (`filter bar selection fields`). A question in a sentence ("how do I restore a snapshot?") is not.
 * {@link HybridSearch} answers lookups text-first.
 *
 * @example
 * ```ts
 * import { looksExact } from '@agent-core/kits/search'
 * looksExact('sap.m.Table') // true
 * looksExact('how do I restore a snapshot?') // false
 * ```
 */
export function looksExact(query: string): boolean {
  if (QUOTED.test(query) || IDENTIFIER.test(query)) return true
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)?/gu) ?? []
  return (
    words.length > 0 &&
    words.length <= 6 &&
    !words.some((word) => ENGLISH_STOP_WORDS.has(word.replace('\u2019', "'")))
  )
}
