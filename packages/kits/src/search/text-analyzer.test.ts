import {
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineTextAnalyzer, englishAnalyzer, standardAnalyzer, TextSearch } from './index.js'
import { tokenSpans } from './internal/analyzers.js'

interface Doc {
  id: string
  text: string
}

function index(analyzer = englishAnalyzer, indexRevision = 'r1'): TextSearch<Doc> {
  return new TextSearch<Doc>({ indexRevision, fields: ['text'], analyzer })
}

describe('englishAnalyzer', () => {
  it('lower-cases, drops stop words and stems with Porter2', () => {
    expect(englishAnalyzer.analyze('How do I deploy the deployments while Deploying?')).toEqual([
      'deploy',
      'deploy',
      'deploy',
    ])
    // Porter2, not Porter 1: "news" and "skies" keep their meaning, "generously" is not cut to "gener".
    expect(englishAnalyzer.analyze('news skies generously dying')).toEqual(['news', 'sky', 'generous', 'die'])
    expect(englishAnalyzer.analyze("the user's settings")).toEqual(['user', 'set'])
  })

  it('keeps identifiers whole and adds their parts', () => {
    expect(englishAnalyzer.analyze('sap.m.Table')).toEqual(['sap.m.table', 'sap', 'm', 'tabl'])
    expect(englishAnalyzer.analyze('manifest.json')).toEqual(['manifest.json', 'manifest', 'json'])
    expect(englishAnalyzer.analyze('getEmbeddingsPath()')).toEqual([
      'getembeddingspath',
      'get',
      'embed',
      'path',
    ])
    expect(englishAnalyzer.analyze('XMLHttpRequest')).toEqual(['xmlhttprequest', 'xml', 'http', 'request'])
    expect(englishAnalyzer.analyze('snake_case ui5-tooling')).toEqual([
      'snake_case',
      'snake',
      'case',
      'ui5-tooling',
      'ui5',
      'tool',
    ])
    expect(englishAnalyzer.analyze('TextSearch-Klasse')).toEqual([
      'textsearch-klasse',
      'textsearch',
      'text',
      'search',
      'klass',
    ])
    // Dotted numbers stay whole; surrounding punctuation is not part of a token.
    expect(englishAnalyzer.analyze('(version 1.2.6).')).toEqual(['version', '1.2.6'])
  })

  it('tokenizes any script', () => {
    expect(standardAnalyzer.analyze('Größe ÆSIR naïve 日本語 ١٢٣')).toEqual([
      'größe',
      'æsir',
      'naïve',
      '日本語',
      '١٢٣',
    ])
  })

  it('token spans slice the text to the token, in order (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', 'B', '.', '-', '_', ' ', '\n', "'", '😀', 'é', '1', ':', '/'),
          maxLength: 60,
        }),
        (text) => {
          const spans = tokenSpans(englishAnalyzer, text)
          let last = 0
          for (const span of spans) {
            expect(text.slice(span.start, span.end)).toBe(span.token)
            expect(span.start).toBeGreaterThanOrEqual(last)
            last = span.end
          }
          expect(spans.map((span) => span.token)).toEqual(englishAnalyzer.tokenize(text))
        },
      ),
    )
  })
})

describe('TextSearch with an analyzer', () => {
  it('finds identifiers exactly and by parts, the exact one first', () => {
    const docs = index()
    docs.addAll([
      { id: 'exact', text: 'Use sap.m.Table for responsive tables.' },
      { id: 'parts', text: 'The SAP table control and the m library.' },
      { id: 'camel', text: 'Call getEmbeddingsPath to locate the files.' },
      { id: 'cli', text: 'Run npm run build before you deploy.' },
    ])
    expect(docs.search({ query: 'sap.m.Table', limit: 5 }).map((hit) => hit.id)).toEqual(['exact', 'parts'])
    expect(
      docs
        .search({ query: 'table', limit: 5 })
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(['exact', 'parts'])
    expect(docs.search({ query: 'embeddings path', limit: 5 })[0]?.id).toBe('camel')
    expect(docs.search({ query: 'getEmbeddingsPath', limit: 5 })[0]?.id).toBe('camel')
    expect(docs.search({ query: 'npm run build', limit: 5 })[0]?.id).toBe('cli')
    // Stemming matches other forms; the hit says which terms matched, in which fields.
    const [hit] = docs.search({ query: 'deployment', limit: 5 })
    expect(hit).toMatchObject({ id: 'cli', terms: ['deploy'], match: { deploy: ['text'] } })
  })

  it('matches exactly the documents whose analyzed terms hold the query term (property, against a scan)', () => {
    const word = fc.constantFrom(
      'deploy',
      'deploying',
      'Deployment',
      'table',
      'sap.m.Table',
      'the',
      'run',
      'runs',
      'getPath',
      'path',
    )
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { maxLength: 6 }), { minLength: 1, maxLength: 12 }),
        word,
        (texts, query) => {
          const docs = index()
          docs.addAll(texts.map((words, i) => ({ id: `d${i}`, text: words.join(' ') })))
          const wanted = new Set(englishAnalyzer.analyze(query))
          const expected = texts
            .map((words, i) => ({ id: `d${i}`, terms: new Set(englishAnalyzer.analyze(words.join(' '))) }))
            .filter((doc) => [...wanted].some((term) => doc.terms.has(term)))
            .map((doc) => doc.id)
            .sort()
          const found = docs
            .search({ query, limit: 100 })
            .map((hit) => hit.id)
            .sort()
          expect(found).toEqual(expected)
        },
      ),
    )
  })

  it('puts the analyzer into the fingerprint, and leaves indexes without one as they were', () => {
    const english = index()
    english.addAll([{ id: 'a', text: 'deploying' }])
    const snapshot = english.snapshot()
    expect(() => index(standardAnalyzer).restore(snapshot)).toThrow(InvalidStateError)
    expect(() => new TextSearch<Doc>({ indexRevision: 'r1', fields: ['text'] }).restore(snapshot)).toThrow(
      InvalidStateError,
    )
    const other = defineTextAnalyzer({
      name: 'mine',
      version: 1,
      tokenize: (t) => t.split(' '),
      terms: (t) => [t],
    })
    const newer = defineTextAnalyzer({ ...other, version: 2 })
    const mine = index(other)
    expect(() => index(newer).restore(mine.snapshot())).toThrow(/analyzer/)
    index().restore(snapshot)
    // The fingerprint of a configuration without an analyzer is the one written before analyzers existed,
    // so existing snapshots still restore.
    expect(
      new TextSearch({ indexRevision: 'notes-v1', fields: ['title', 'body'], storedFields: ['title'] })
        .configurationFingerprint,
    ).toBe('text-search:f36887fb55aeeba4')
  })

  it('defineTextAnalyzer checks its definition, and the callbacks at every call', () => {
    const ok = { name: 'x', version: 1, tokenize: (t: string) => [t], terms: (t: string) => [t] }
    for (const bad of [
      null,
      { ...ok, name: '' },
      { ...ok, name: 'agent-core/english' },
      { ...ok, version: 0 },
      { ...ok, version: 1.5 },
      { ...ok, tokenize: 'split' },
      { ...ok, terms: undefined },
    ]) {
      expect(() => defineTextAnalyzer(bad as never)).toThrow(InvalidInputError)
    }
    const wrong = defineTextAnalyzer({ ...ok, terms: () => 'not an array' as never })
    expect(() => index(wrong).add({ id: 'a', text: 'x' })).toThrow(InvalidOutputError)
    const later = defineTextAnalyzer({ ...ok, tokenize: () => Promise.resolve(['x']) as never })
    expect(() => index(later).add({ id: 'a', text: 'x' })).toThrow(RejectedThenableError)
    expect(
      () =>
        new TextSearch<Doc>({
          indexRevision: 'r',
          fields: ['text'],
          analyzer: englishAnalyzer,
          tokenize: (t) => [t],
        }),
    ).toThrow(InvalidInputError)
    expect(
      () => new TextSearch<Doc>({ indexRevision: 'r', fields: ['text'], analyzer: {} as never }),
    ).toThrow(InvalidInputError)
  })
})
