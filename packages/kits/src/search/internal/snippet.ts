import type { TextAnalyzer } from '../text-analyzer.js'
import { tokenSpans } from './analyzers.js'

/** A highlighted range, in UTF-16 offsets of the field's text. */
export interface Range {
  readonly start: number
  readonly end: number
}

/** A short excerpt of a field around the best match. */
export interface SnippetParts {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly highlights: readonly Range[]
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

/**
 * The window of about `size` characters of `text` that holds the most distinct matched terms (then the
 * most matches), widened to word boundaries, with the tokens whose terms matched as highlights. Without
 * a match it is the start of the text.
 */
export function snippetOf(
  text: string,
  matched: ReadonlySet<string>,
  analyzer: TextAnalyzer,
  size: number,
): SnippetParts {
  const hits: { start: number; end: number; terms: string[] }[] = []
  if (matched.size > 0) {
    for (const span of tokenSpans(analyzer, text)) {
      const terms = analyzer.terms(span.token).filter((term) => matched.has(term))
      if (terms.length > 0) hits.push({ start: span.start, end: span.end, terms })
    }
  }
  let from = 0
  if (hits.length > 0) {
    // Slide a window over the hits: the best keeps the most distinct terms, then the most hits.
    let best = { distinct: -1, count: -1, first: 0 }
    for (let i = 0; i < hits.length; i++) {
      const seen = new Set<string>()
      let count = 0
      for (let j = i; j < hits.length && hits[j]!.end - hits[i]!.start <= size; j++) {
        for (const term of hits[j]!.terms) seen.add(term)
        count++
      }
      if (seen.size > best.distinct || (seen.size === best.distinct && count > best.count))
        best = { distinct: seen.size, count, first: i }
    }
    // Give the first hit some leading context, a fifth of the window.
    from = Math.max(0, hits[best.first]!.start - Math.floor(size / 5))
  }
  let start = from
  if (start > 0) {
    // Start at a word: just after the nearest whitespace at or before `from`.
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--
  }
  let end = Math.min(text.length, start + size)
  if (end < text.length) {
    let cut = end
    while (cut > start && !isSpace(text.charCodeAt(cut))) cut--
    if (cut > start) end = cut
  }
  // Never end between the halves of a surrogate pair.
  const last = text.charCodeAt(end - 1)
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
  const highlights = hits
    .filter((hit) => hit.start >= start && hit.end <= end)
    .map(({ start, end }) => ({ start, end }))
  return { text: text.slice(start, end), start, end, highlights }
}
