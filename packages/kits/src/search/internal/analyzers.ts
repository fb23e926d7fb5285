/** Internals of analyzers shared inside the kit: which analyzers are built in, keys and token spans. */
import type { TextAnalyzer } from '../text-analyzer.js'
import { tokenPattern } from './analysis.js'

/** The analyzers this kit ships, whose output needs no checking and whose token spans are exact. */
export const BUILT_IN = new WeakSet<TextAnalyzer>()

/** `name@version`, as written into fingerprints. */
export function analyzerKey(analyzer: TextAnalyzer): string {
  return `${analyzer.name}@${analyzer.version}`
}

/** A token and its UTF-16 span in the text it came from. */
export interface TokenSpan {
  readonly token: string
  readonly start: number
  readonly end: number
}

/**
 * Tokens of `text` with their offsets. Built-in analyzers report exact spans; an App's analyzer is
 * followed through the text with `indexOf`, and a token that is not found verbatim (a tokenizer that
 * rewrites text) has no span and is skipped.
 */
export function tokenSpans(analyzer: TextAnalyzer, text: string): TokenSpan[] {
  const spans: TokenSpan[] = []
  if (BUILT_IN.has(analyzer)) {
    for (const match of text.matchAll(tokenPattern())) {
      spans.push({ token: match[0], start: match.index, end: match.index + match[0].length })
    }
    return spans
  }
  let cursor = 0
  for (const token of analyzer.tokenize(text)) {
    const at = token === '' ? -1 : text.indexOf(token, cursor)
    if (at === -1) continue
    spans.push({ token, start: at, end: at + token.length })
    cursor = at + token.length
  }
  return spans
}
