import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { TextBlocks } from './index.js'

describe('text blocks with garbage input', () => {
  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, fc.string(), (a, b, text) => {
        typed(() => TextBlocks.split(a as string, b as never))
        typed(() => TextBlocks.split(text, b as never))
        typed(() => TextBlocks.split(text, { targetChars: a } as never))
      }),
      { numRuns: 500 },
    )
  })
})
