/// <reference path="./wink-porter2-stemmer.d.ts" />
/**
 * The text analysis behind the built-in analyzers: Unicode-aware tokens that keep identifiers whole,
 * identifier parts (connectors and camelCase), English stop words and Porter2 stemming.
 */
import { stopwords } from '@orama/stopwords/english'
import porter2 from 'wink-porter2-stemmer'

/**
 * A regular expression created on first use, then shared. The patterns of this kit use Unicode property
 * escapes (`\p{L}`), and V8 builds a property's character ranges when it parses a pattern: as regex
 * literals at the top of a module (or `new RegExp` there) they cost every cold import of the search and
 * knowledge subpaths about a millisecond, most of it for a query or an analysis that never runs in that
 * process (docs/design/cold-import.md). The pattern and flags are the ones a literal would have had.
 */
export function lazyRegExp(source: string, flags: string): () => RegExp {
  let pattern: RegExp | undefined
  return () => {
    pattern ??= new RegExp(source, flags)
    return pattern
  }
}

/**
 * A token: letters, marks and digits of any script, joined by identifier connectors (`.`, `_`, `-`, `/`,
 * `:`, `#`, `@`) or by an apostrophe inside a word. `sap.m.Table`, `manifest.json`, `npm`, `user's`,
 * `https://example.com/a-b` and `getEmbeddingsPath` are one token each; punctuation around them is not
 * part of them. Global (`g`): use it with `match` or `matchAll`, which do not depend on its `lastIndex`.
 */
export const tokenPattern = lazyRegExp(
  String.raw`[\p{L}\p{M}\p{N}]+(?:(?:[._\-/:#@]+|['\u2019])[\p{L}\p{M}\p{N}]+)*`,
  'gu',
)

const CONNECTORS = /[._\-/:#@]+/u
const camel = lazyRegExp(String.raw`\p{Ll}\p{Lu}|\p{N}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}`, 'u')
const camelSplit = lazyRegExp(String.raw`(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})`, 'u')
const number = lazyRegExp(String.raw`^\p{N}+$`, 'u')
const STEMMABLE = /^[a-z][a-z']*$/
const POSSESSIVE = /['\u2019]s$/

/**
 * English stop words: the Snowball list as shipped by `@orama/stopwords`, plus "a", which that list
 * leaves out.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([...stopwords, 'a'])

/** Splits text into tokens (see {@link tokenPattern}). */
export function tokenizeText(text: string): string[] {
  return text.match(tokenPattern()) ?? []
}

const stemCache = new Map<string, string>()
const STEM_CACHE_LIMIT = 100_000

/** Porter2 stem of a lower-case ASCII word, memoized (a corpus repeats a small vocabulary). */
export function stemEnglish(word: string): string {
  let stem = stemCache.get(word)
  if (stem === undefined) {
    stem = word.length < 3 || !STEMMABLE.test(word) ? word : porter2(word)
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear()
    stemCache.set(word, stem)
  }
  return stem
}

/**
 * The index terms of one token. A plain word gives one term (lower-cased, then stop-word filtered and
 * stemmed when `english`). An identifier (connectors or camelCase) gives the whole token lower-cased and
 * unstemmed, for exact matches, followed by each of its parts processed like plain words, for matches by
 * part. Dotted numbers (`1.2.6`) stay whole.
 */
export function identifierTerms(token: string, english: boolean): string[] {
  let lower = token.toLowerCase()
  if (lower.includes('\u2019')) lower = lower.replaceAll('\u2019', "'")
  if (POSSESSIVE.test(lower) && lower.length > 2) {
    lower = lower.slice(0, -2)
    token = token.slice(0, -2)
  }
  const compound = CONNECTORS.test(token)
  if (!compound && !camel().test(token)) return wordTerm(lower, english)
  const pieces = compound ? token.split(CONNECTORS) : [token]
  const terms = [lower]
  let numeric = true
  for (const piece of pieces) {
    if (piece === '') continue
    if (!number().test(piece)) numeric = false
    if (camel().test(piece)) {
      // A camelCase piece inside a compound is also a term of its own (`TextSearch` in `TextSearch-Klasse`).
      if (compound) addTerm(terms, piece.toLowerCase())
      for (const part of piece.split(camelSplit())) addWord(terms, part.toLowerCase(), english)
    } else addWord(terms, piece.toLowerCase(), english)
  }
  return numeric ? [lower] : terms
}

function addTerm(terms: string[], term: string): void {
  if (!terms.includes(term)) terms.push(term)
}

function addWord(terms: string[], lower: string, english: boolean): void {
  if (!english) addTerm(terms, lower)
  else if (!ENGLISH_STOP_WORDS.has(lower)) addTerm(terms, stemEnglish(lower))
}

function wordTerm(lower: string, english: boolean): string[] {
  if (!english) return [lower]
  if (ENGLISH_STOP_WORDS.has(lower)) return []
  return [stemEnglish(lower)]
}
