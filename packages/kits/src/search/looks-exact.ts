import { ENGLISH_STOP_WORDS, lazyRegExp } from './internal/analysis.js'

const QUOTED = /"[^"]+"|\u201c[^\u201d]+\u201d|`[^`]+`/
// created on first use, like every Unicode property pattern of the kit (see lazyRegExp)
const identifierPattern = lazyRegExp(
  String.raw`[\p{L}\p{N}][._/:#@]+[\p{L}\p{N}]|[\p{L}\p{N}]_[\p{L}\p{N}]|\p{Ll}\p{Lu}|[\p{L}\p{N}]\(\)|(?:^|\s)--?[\p{L}]`,
  'u',
)
const wordPattern = lazyRegExp(String.raw`[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*(?:['\u2019][\p{L}]+)?`, 'gu')

/**
 * True when a query looks like a lookup rather than a question: a quoted phrase, an identifier (a dotted
 * or slashed name such as `sap.m.Table`, `manifest.json` or `src/index.ts`, snake_case, camelCase, a call
 * `f()`, a command-line flag), or bare keywords with no English function word among them, however many
 * (`filter bar selection fields`, `mass edit dialog custom save returning true`; a hyphenated compound
 * such as `retry-after-ms` counts as one keyword). A question in a sentence ("how do I restore a
 * snapshot?") is not.
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
  if (QUOTED.test(query) || identifierPattern().test(query)) return true
  // A hyphenated compound (`retry-after-ms`) is one keyword: its parts are not checked as stop words.
  const words = query.toLowerCase().match(wordPattern()) ?? []
  return words.length > 0 && !words.some((word) => ENGLISH_STOP_WORDS.has(word.replace('\u2019', "'")))
}
