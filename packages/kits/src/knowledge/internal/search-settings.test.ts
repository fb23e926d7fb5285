/**
 * checkSearchSettings against the constructor it stands in for: on generated search settings, it throws
 * exactly what `new HybridSearch(hybridOptions(...))` throws (class, code, message, details), or neither
 * throws. A change to HybridSearch's or TextSearch's checks of boost, fusion or the analyzer fails here.
 */
import { AgentCoreError } from '@agent-core/core'
import { defineTextAnalyzer, englishAnalyzer, HybridSearch, standardAnalyzer } from '@agent-core/kits/search'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { KnowledgeSearchOptions } from '../knowledge-definition.js'
import { StagedEmbedder } from './index-embedder.js'
import { checkSearchSettings, hybridOptions } from './search-settings.js'

const odd = fc.constantFrom<unknown>(
  null,
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0,
  0,
  0.5,
  1,
  2.5,
  60,
  2 ** 53,
  '1',
  '',
  true,
  [],
  {},
  () => 1,
  Symbol('s'),
  10n,
)
/** Mostly values on and around the bounds (so that later checks are reached), sometimes anything. */
const number = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(0, -0, 0.5, 1, 1.5, 60, 2 ** 53), weight: 8 },
  { arbitrary: odd, weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.integer({ min: -5, max: 100 }), weight: 1 },
)
const choiceOf = (...valid: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom<unknown>(...valid), weight: 8 },
    { arbitrary: fc.constantFrom<unknown>('TEXT-FIRST', 'other'), weight: 1 },
    { arbitrary: odd, weight: 1 },
  )

const boost = fc.oneof(
  { arbitrary: odd, weight: 1 },
  {
    arbitrary: fc.dictionary(
      fc.oneof(
        { arbitrary: fc.constantFrom('title', 'headingPath', 'text'), weight: 8 },
        { arbitrary: fc.constantFrom('body', 'id', '__proto__', 'constructor'), weight: 1 },
      ),
      number,
      { maxKeys: 3 },
    ),
    weight: 8,
  },
)
const fusion = fc.oneof(
  { arbitrary: odd, weight: 1 },
  {
    weight: 8,
    arbitrary: fc.record(
      {
        k: number,
        textWeight: number,
        vectorWeight: number,
        lookups: choiceOf('text-first', 'fuse'),
        lookupRanking: choiceOf('flat', 'boosted'),
        candidates: number,
        documentSupport: number,
        verbatim: number,
        unknown: number,
      },
      { requiredKeys: [] },
    ),
  },
)
/** The valid value mostly, else an odd one. */
const mostly = (valid: unknown) =>
  fc.oneof({ arbitrary: fc.constant(valid), weight: 4 }, { arbitrary: odd, weight: 1 })
const custom = defineTextAnalyzer({
  name: 'custom',
  version: 2,
  tokenize: (text) => text.split(' '),
  terms: (term) => [term],
})
const analyzer = fc.oneof(
  { arbitrary: odd, weight: 1 },
  { arbitrary: fc.constantFrom<unknown>(englishAnalyzer, standardAnalyzer, custom), weight: 4 },
  {
    arbitrary: fc.record({
      name: mostly('a'),
      version: mostly(1),
      tokenize: mostly((text: string) => [text]),
      terms: mostly((term: string) => [term]),
    }),
    weight: 2,
  },
)
const settings = fc.record({ boost, fusion, analyzer }, { requiredKeys: [] })

/** What `run` throws, as plain data; `undefined` when it returns. */
function outcome(run: () => unknown): unknown {
  try {
    run()
    return undefined
  } catch (error) {
    if (!AgentCoreError.isInstance(error)) return { notTyped: String(error) }
    return { class: error.constructor.name, code: error.code, message: error.message, details: error.details }
  }
}

const staged = new StagedEmbedder({ identity: 'e', dimensions: 3, embed: async () => [] })

describe('knowledge: the search settings checked at definition', () => {
  it('refuse what HybridSearch refuses, with the same error, and nothing else', () => {
    fc.assert(
      fc.property(settings, fc.boolean(), (search, withEmbedder) => {
        const options = search as KnowledgeSearchOptions
        const expected = outcome(
          () => new HybridSearch(hybridOptions('docs', options, withEmbedder ? staged : undefined)),
        )
        expect(outcome(() => checkSearchSettings(options))).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('accept the defaults and the built-in analyzers', () => {
    for (const analyzer of [undefined, englishAnalyzer, standardAnalyzer, custom])
      expect(() => checkSearchSettings({ analyzer })).not.toThrow()
    expect(() => checkSearchSettings({})).not.toThrow()
  })
})
