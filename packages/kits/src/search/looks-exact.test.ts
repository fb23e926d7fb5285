import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ENGLISH_STOP_WORDS } from './internal/analysis.js'
import { looksExact } from './looks-exact.js'

describe('looksExact on bare words', () => {
  it('is true exactly when no space-separated word is a stop word, however many words (property against a reference)', () => {
    // Plain lower-case words (no identifier, quote or flag): some stop words, some not.
    const part = fc.constantFrom(
      'filter',
      'bar',
      'retry',
      'after',
      'ms',
      'cloud',
      'the',
      'how',
      'of',
      'cards',
      'save',
      'true',
    )
    // A keyword is one part or a hyphenated compound of parts.
    const keyword = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('-'))
    fc.assert(
      fc.property(fc.array(keyword, { minLength: 1, maxLength: 12 }), (keywords) => {
        const query = keywords.join(' ')
        const reference = keywords.every((word) => !ENGLISH_STOP_WORDS.has(word))
        expect(looksExact(query), query).toBe(reference)
      }),
      { numRuns: 300 },
    )
  })

  it('counts a hyphenated compound as one keyword and sets no limit on how many', () => {
    expect(looksExact('chaos rate faults retry-after-ms')).toBe(true)
    expect(looksExact('deploy HTML5 Repository Cloud Foundry SAPUI5 Repository ABAP')).toBe(true)
    expect(looksExact('retry after the limit')).toBe(false)
  })
})
