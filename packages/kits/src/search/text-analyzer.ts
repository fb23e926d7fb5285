import {
  assertFunction,
  assertNonEmptyString,
  assertNotThenable,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidOutputError,
  refuseField,
} from '@agent-core/core'
import { identifierTerms, tokenizeText } from './internal/analysis.js'
import { BUILT_IN } from './internal/analyzers.js'

/**
 * What {@link defineTextAnalyzer} takes: a name and version for snapshots, and the two steps of analysis.
 *
 * @example
 * ```ts
 * import type { TextAnalyzerDefinition } from '@agent-core/kits/search'
 * const lowerWords: TextAnalyzerDefinition = {
 *   name: 'lower-words',
 *   version: 1,
 *   tokenize: (text) => text.split(/\s+/).filter((word) => word !== ''),
 *   terms: (token) => [token.toLowerCase()],
 * }
 * ```
 */
export interface TextAnalyzerDefinition {
  /**
   * Names the analysis. Together with `version` it is part of the snapshot fingerprint of every index
   * that uses the analyzer, so a snapshot written with another analysis is refused. Names starting with
   * `agent-core/` are reserved for the built-in analyzers.
   */
  readonly name: string
  /** A positive safe integer; raise it whenever `tokenize` or `terms` change what they return. */
  readonly version: number
  /** Splits a field's text, or a query, into tokens in reading order. Synchronous. */
  readonly tokenize: (text: string) => readonly string[]
  /** The index terms of one token, in order; an empty array drops the token. Synchronous. */
  readonly terms: (token: string) => readonly string[]
}

/**
 * A named, versioned text analysis for {@link TextSearch} and {@link HybridSearch}: how text becomes
 * index terms, the same way for documents and for queries. Unlike a bare `tokenize` function, an
 * analyzer's name and version are written into snapshots, so an index restored under another analysis is
 * refused instead of silently finding nothing.
 *
 * @example
 * ```ts
 * import { englishAnalyzer } from '@agent-core/kits/search'
 * console.log(englishAnalyzer.analyze('Deploying the sap.m.Table'))
 * // ["deploy", "sap.m.table", "sap", "m", "tabl"]
 * ```
 */
export interface TextAnalyzer extends TextAnalyzerDefinition {
  /** Tokens and terms of `text` in one step: every term of every token, in order (duplicates kept). */
  readonly analyze: (text: string) => string[]
}

function makeAnalyzer(definition: TextAnalyzerDefinition): TextAnalyzer {
  const { name, version, tokenize, terms } = definition
  return Object.freeze({
    name,
    version,
    tokenize,
    terms,
    analyze: (text: string) => {
      const out: string[] = []
      for (const token of tokenize(text)) for (const term of terms(token)) out.push(term)
      return out
    },
  })
}

/**
 * Defines an App's own analyzer. The callbacks are wrapped so that a Promise or a value of the wrong type
 * is a typed error at the first call instead of a corrupt index.
 *
 * @throws InvalidInputError when the name is empty or reserved, the version is not a positive safe
 *   integer, or a callback is missing
 * @example
 * ```ts
 * import { defineTextAnalyzer, TextSearch } from '@agent-core/kits/search'
 * const exact = defineTextAnalyzer({
 *   name: 'exact-words',
 *   version: 1,
 *   tokenize: (text) => text.split(/\s+/).filter((word) => word !== ''),
 *   terms: (token) => [token],
 * })
 * const index = new TextSearch<{ id: string; text: string }>({ indexRevision: 'r1', fields: ['text'], analyzer: exact })
 * ```
 */
export function defineTextAnalyzer(definition: TextAnalyzerDefinition): TextAnalyzer {
  assertObject(definition, 'definition')
  assertNonEmptyString(definition.name, 'definition.name')
  if (definition.name.startsWith('agent-core/')) {
    refuseField(
      'input',
      'definition.name',
      `must not start with "agent-core/", which is reserved for the built-in analyzers, but got ${describeValue(definition.name)}. Name your analyzer without that prefix`,
      definition.name,
      { prefix: 'defineTextAnalyzer: ' },
    )
  }
  assertSafeInteger(definition.version, 'definition.version', { min: 1 })
  assertFunction(definition.tokenize, 'definition.tokenize')
  assertFunction(definition.terms, 'definition.terms')
  const hook = (what: string) => `analyzer "${definition.name}" ${what}`
  const tokenize = definition.tokenize
  const terms = definition.terms
  return makeAnalyzer({
    name: definition.name,
    version: definition.version,
    tokenize: (text) => checkStrings(assertNotThenable(tokenize(text), hook('tokenize')), hook('tokenize')),
    terms: (token) => checkStrings(assertNotThenable(terms(token), hook('terms')), hook('terms')),
  })
}

function checkStrings(value: unknown, hook: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new InvalidOutputError(
      `${hook} must return an array of strings, but returned ${describeValue(value)}.`,
      {
        details: { hook, received: describeValue(value) },
      },
    )
  }
  return value
}

function builtIn(definition: TextAnalyzerDefinition): TextAnalyzer {
  const analyzer = makeAnalyzer(definition)
  BUILT_IN.add(analyzer)
  return analyzer
}

/**
 * English analysis (`agent-core/english`, version 1): Unicode-aware tokens, lower-casing, the Snowball
 * English stop words, and Porter2 stemming (`deploying` and `deployment` both become `deploy`).
 * Identifiers stay findable: `sap.m.Table`, `manifest.json`, `ui5-tooling`, `snake_case` and camelCase
 * names index the whole token unstemmed (an exact query matches it, and it is rare, so it ranks high)
 * plus each part processed like a word (a query for a part finds it too).
 *
 * @example
 * ```ts
 * import { englishAnalyzer, TextSearch } from '@agent-core/kits/search'
 * const docs = new TextSearch<{ id: string; text: string }>({
 *   indexRevision: 'docs-v1',
 *   fields: ['text'],
 *   analyzer: englishAnalyzer,
 * })
 * docs.addAll([{ id: 'a', text: 'Deploying with getEmbeddingsPath()' }])
 * console.log(docs.search({ query: 'deployment embeddings', limit: 1 })[0]?.id) // "a"
 * ```
 */
export const englishAnalyzer: TextAnalyzer = builtIn({
  name: 'agent-core/english',
  version: 1,
  tokenize: tokenizeText,
  terms: (token) => identifierTerms(token, true),
})

/**
 * Language-neutral analysis (`agent-core/standard`, version 1): the same Unicode-aware tokens and
 * identifier handling as {@link englishAnalyzer}, lower-cased, without stop words or stemming. Use it for
 * text that is not English, or when exact word forms matter.
 *
 * @example
 * ```ts
 * import { standardAnalyzer } from '@agent-core/kits/search'
 * console.log(standardAnalyzer.analyze('Die TextSearch-Klasse')) // ["die", "textsearch-klasse", "textsearch", "text", "search", "klasse"]
 * ```
 */
export const standardAnalyzer: TextAnalyzer = builtIn({
  name: 'agent-core/standard',
  version: 1,
  tokenize: tokenizeText,
  terms: (token) => identifierTerms(token, false),
})
