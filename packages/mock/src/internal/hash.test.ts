import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deterministicId, hashString, NumberedIds } from './hash.js'
import { mulberry32 } from './prng.js'

/** The rule written as plainly as possible: one character per draw, concatenated. */
function referenceId(seed: number, salt: string, length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const random = mulberry32(hashString(salt, seed))
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)]
  return out
}

describe('deterministicId', () => {
  it('draws each character from the seeded sequence, as the plain loop does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.string(),
        fc.integer({ min: 0, max: 64 }),
        (seed, salt, length) => {
          expect(deterministicId(seed, salt, length)).toBe(referenceId(seed, salt, length))
        },
      ),
    )
    // A pinned value (the first chat completion id of seed 1): ids end up in recorded fixtures.
    expect(deterministicId(1, 'chat:0', 29)).toBe('O0my2siwZ5eHJoUd9cfUbttxMQFt0')
  })
})

describe('NumberedIds', () => {
  it('gives the id computed afresh for every number, in any order, remembered or not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.array(fc.oneof(fc.nat(8), fc.integer({ min: 2040, max: 2060 }), fc.nat()), { maxLength: 40 }),
        (seed, numbers) => {
          const ids = new NumberedIds(seed, 'chatcmpl-', 'chat', 29)
          for (const n of numbers) expect(ids.get(n)).toBe(`chatcmpl-${referenceId(seed, `chat:${n}`, 29)}`)
        },
      ),
    )
  })
})
