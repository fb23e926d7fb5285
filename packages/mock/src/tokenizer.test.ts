import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countTokens, tokenize } from './tokenizer.js'

/** A reference model written as a plain character loop, independent of the regular expression. */
function referenceCount(text: string): number {
  const chars = [...text]
  const kind = (c: string) =>
    /\s/u.test(c) ? 's' : /[\p{L}\p{M}]/u.test(c) ? 'l' : /\p{N}/u.test(c) ? 'n' : 'o'
  let count = 0
  let i = 0
  while (i < chars.length) {
    const k = kind(chars[i] as string)
    if (k === 's') {
      let j = i
      while (j < chars.length && kind(chars[j] as string) === 's') j++
      if (j === chars.length) count++
      i = j
      continue
    }
    let j = i
    while (j < chars.length && kind(chars[j] as string) === k) j++
    const run = j - i
    count += k === 'l' ? Math.ceil(run / 4) : k === 'n' ? Math.ceil(run / 3) : run
    i = j
  }
  return count
}

describe('tokenize', () => {
  it('splits words into pieces of at most four letters with the leading space attached', () => {
    expect(tokenize('Hello, world')).toEqual(['Hell', 'o', ',', ' worl', 'd'])
    expect(tokenize('  12345 ')).toEqual(['  123', '45', ' '])
    expect(tokenize('')).toEqual([])
  })

  it('pieces always join back to the input and the count matches a reference loop', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '1', '2', ',', 'é', '\u0301', '😀', '\t') }),
    )
    fc.assert(
      fc.property(text, (value) => {
        const pieces = tokenize(value)
        expect(pieces.join('')).toBe(value)
        expect(countTokens(value)).toBe(pieces.length)
        expect(pieces.length).toBe(referenceCount(value))
      }),
      { numRuns: 500 },
    )
  })

  it('counts ASCII text (read without the expression) as the expression does, and falls back past ASCII', () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) })
    const mixed = fc.string({
      unit: fc.constantFrom(
        'a',
        'Z',
        ' ',
        '\t',
        '\v',
        '\u00a0',
        '7',
        '.',
        '\u0000',
        '\u007f',
        'é',
        '\u0301',
        '٣',
      ),
    })
    const runs = fc.string({ unit: fc.constantFrom('a', 'B', '1', '2', ' ', '\n', ',') })
    fc.assert(
      fc.property(fc.oneof(ascii, runs, mixed), (value) => {
        expect(countTokens(value)).toBe(tokenize(value).length)
        expect(countTokens(value)).toBe(referenceCount(value))
      }),
      { numRuns: 1000 },
    )
  })

  it('splits ASCII text (cut without the expression) into the pieces the expression matches', () => {
    // The rule as tokenize wrote it before its ASCII loop: the reference the loop must agree with.
    const reference = (text: string) =>
      text.match(/\s*(?:[\p{L}\p{M}]{1,4}|\p{N}{1,3}|[^\s\p{L}\p{M}\p{N}])|\s+/gu) ?? []
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) })
    const runs = fc.string({ unit: fc.constantFrom('a', 'B', '1', '2', ' ', '\n', ',', '\t') })
    const mixed = fc.string({ unit: fc.constantFrom('a', ' ', '7', '.', 'é', '\u0301', '\u00a0', '٣', '😀') })
    fc.assert(
      fc.property(fc.oneof(ascii, runs, mixed), (value) => {
        expect(tokenize(value)).toEqual(reference(value))
      }),
      { numRuns: 1000 },
    )
  })
})
