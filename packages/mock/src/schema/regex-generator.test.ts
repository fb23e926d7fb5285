import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  generateFromRegex,
  parseRegex,
  regexAnchored,
  regexMaxLength,
  regexMinLength,
  UnsupportedRegexError,
} from './regex-generator.js'
import { createRng } from './rng.js'

const PATTERNS = [
  '^[A-Z]{3}-\\d{4}$',
  '^[a-z]+$',
  '^(foo|bar|baz)+$',
  '^\\w{2,5}@\\w{2,5}\\.(com|org)$',
  '^#?[0-9a-fA-F]{6}$',
  '^[^aeiou\\s]{3}$',
  '^\\D\\W\\S$',
  '^.{4}$',
  '^(?:ab)*c?$',
  '^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$',
  '^\\p{Lu}\\p{Ll}+$',
  '^[\\u0041-\\u0043\\x61]\\u{1F600}$',
  '^a\\.b\\*c\\\\d$',
  '^[\\d.-]+$',
  '^[+-]?\\d+(\\.\\d{1,2})?$',
  'needle',
  '^x{2,}?y$',
  '^(a|)b$',
]

describe('regex generator', () => {
  it('generates strings each pattern matches (the engine decides)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), fc.integer(), fc.nat(20), (pattern, seed, extra) => {
        const s = generateFromRegex(parseRegex(pattern), createRng(seed), extra)
        expect(s).toBeDefined()
        expect(new RegExp(pattern, 'u').test(s!)).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('produces the classic product-code shape', () => {
    const s = generateFromRegex(parseRegex('^[A-Z]{3}-\\d{4}$'), createRng(42), 3)
    expect(s).toMatch(/^[A-Z]{3}-\d{4}$/)
  })

  it('computes minimum/maximum lengths and anchoring', () => {
    const tree = parseRegex('^[A-Z]{3}-\\d{2,4}$')
    expect(regexMinLength(tree)).toBe(6)
    expect(regexMaxLength(tree)).toBe(8)
    expect(regexAnchored(tree, '^')).toBe(true)
    expect(regexAnchored(tree, '$')).toBe(true)
    const open = parseRegex('a+|b')
    expect(regexMaxLength(open)).toBe(Number.POSITIVE_INFINITY)
    expect(regexAnchored(open, '^')).toBe(false)
    expect(regexAnchored(parseRegex('^a|^b'), '^')).toBe(true)
    expect(regexAnchored(parseRegex('^a|b'), '^')).toBe(false)
  })

  it('lets extra bound how far unbounded quantifiers go', () => {
    const tree = parseRegex('^a*$')
    for (let seed = 0; seed < 50; seed++) {
      expect(generateFromRegex(tree, createRng(seed), 0)).toBe('')
      expect(generateFromRegex(tree, createRng(seed), 5)!.length).toBeLessThanOrEqual(5)
    }
  })

  it.each([
    ['(?=a)a', /lookahead/],
    ['(?!a)b', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(a)\\1', /backreference/],
    ['(?<n>a)\\k<n>', /named backreference/],
    ['\\bword\\b', /word boundary/],
    ['a\\Bb', /non-word-boundary/],
    ['\\cJ', /control escape/],
  ])('rejects %s with a reason and a hint', (pattern, reason) => {
    let caught: unknown
    try {
      parseRegex(pattern)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(UnsupportedRegexError)
    expect((caught as UnsupportedRegexError).reason).toMatch(reason)
    expect((caught as UnsupportedRegexError).hint.length).toBeGreaterThan(5)
  })

  it('throws SyntaxError for patterns that are not valid with the u flag', () => {
    expect(() => parseRegex('(')).toThrow(SyntaxError)
    expect(() => parseRegex('\\-')).toThrow(SyntaxError)
  })
})
