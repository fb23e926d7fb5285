import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { allocateVectors, hasKernel } from './vector-kernel.js'
import { WordHash, type WordHashPath, wordHashReference } from './word-hash.js'

/** Bytes placed at `offset` inside a kernel's WebAssembly memory (hashed there in place). */
function inKernelMemory(bytes: Uint8Array, offset: number): Uint8Array {
  const floats = allocateVectors(Math.max(16_384, Math.ceil((bytes.length + offset) / 4 / 8) * 8), 8)
  expect(hasKernel(floats)).toBe(true)
  const view = new Uint8Array(floats.buffer, offset, bytes.length)
  view.set(bytes)
  return view
}

/** The hash of `bytes` fed in pieces ending at `cuts` (sorted, within the length). */
function hashInPieces(bytes: Uint8Array, cuts: readonly number[], path: WordHashPath): number {
  const hash = new WordHash(path)
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    hash.update(bytes.subarray(at, cut))
    at = cut
  }
  return hash.digest()
}

const bytesAndCuts = fc.uint8Array({ maxLength: 3000 }).chain((bytes) =>
  fc.tuple(
    fc.constant(bytes),
    fc
      .array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 8 })
      .map((cuts) => cuts.sort((a, b) => a - b)),
  ),
)

describe('the word hash of the vector stream (format version 2)', () => {
  it('is the plain loop of its definition, on every path and in pieces of any size (property)', () => {
    fc.assert(
      fc.property(bytesAndCuts, fc.integer({ min: 0, max: 64 }), ([bytes, cuts], offset) => {
        const expected = wordHashReference(bytes)
        expect(hashInPieces(bytes, cuts, 'js')).toBe(expected)
        expect(hashInPieces(bytes, cuts, 'scratch')).toBe(expected)
        expect(hashInPieces(bytes, cuts, 'auto')).toBe(expected)
        // In place in a kernel's memory, at any alignment.
        expect(hashInPieces(inKernelMemory(bytes, offset), cuts, 'auto')).toBe(expected)
      }),
      { numRuns: 300 },
    )
  })

  it('agrees with the plain loop past the scratch size, where bytes are hashed 64 KiB at a time', () => {
    const bytes = new Uint8Array(300_001)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24
    const expected = wordHashReference(bytes)
    for (const path of ['js', 'scratch', 'auto'] as const)
      expect(hashInPieces(bytes, [1, 65_600, 200_003], path)).toBe(expected)
    expect(hashInPieces(inKernelMemory(bytes, 4), [131_072], 'auto')).toBe(expected)
  })

  it('keeps its values (the stream format depends on them)', () => {
    expect([
      wordHashReference(new Uint8Array(0)),
      wordHashReference(new Uint8Array([1])),
      wordHashReference(Uint8Array.from({ length: 256 }, (_, i) => i)),
    ]).toEqual([3711252480, 2589381787, 1527519712])
  })

  it('always changes when the bytes of one aligned 32-bit word change (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 2000 }),
        fc.nat(),
        fc.integer({ min: 1, max: 0xffffffff }),
        (bytes, at, mask) => {
          const word = Math.floor((at % bytes.length) / 4) * 4
          const damaged = bytes.slice()
          for (let k = 0; k < 4 && word + k < bytes.length; k++)
            damaged[word + k]! ^= (mask >>> (8 * k)) & 0xff
          fc.pre(damaged.some((byte, i) => byte !== bytes[i]))
          expect(hashInPieces(damaged, [], 'auto')).not.toBe(hashInPieces(bytes, [], 'auto'))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('tells apart inputs that differ only in their length (zero padding)', () => {
    const hashes = new Set([0, 1, 2, 3, 4, 64, 65].map((n) => wordHashReference(new Uint8Array(n))))
    expect(hashes.size).toBe(7)
  })
})
