import { describe, expect, it } from 'vitest'
import { lazyRegExp, tokenPattern } from './analysis.js'

describe('lazyRegExp', () => {
  it('creates the pattern on the first call and returns that same object afterwards', () => {
    const pattern = lazyRegExp(String.raw`\p{Lu}+`, 'u')
    const first = pattern()
    expect(first).toEqual(/\p{Lu}+/u)
    expect(pattern()).toBe(first)
  })

  it('gives the token pattern the source and flags of the regex literal it replaced', () => {
    expect(tokenPattern()).toEqual(/[\p{L}\p{M}\p{N}]+(?:(?:[._\-/:#@]+|['\u2019])[\p{L}\p{M}\p{N}]+)*/gu)
    expect(tokenPattern().source).toBe(
      /[\p{L}\p{M}\p{N}]+(?:(?:[._\-/:#@]+|['\u2019])[\p{L}\p{M}\p{N}]+)*/gu.source,
    )
  })
})
