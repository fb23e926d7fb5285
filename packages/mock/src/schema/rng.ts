import { describeValue, refuseField } from '@agent-core/core'

/**
 * A seeded pseudo-random stream (sfc32, keyed through a murmur3-style mixer). Every method is
 * deterministic for a given seed and call sequence.
 */
export interface Rng {
  /** A float in `[0, 1)` with 32 bits of randomness. */
  next(): number
  /** An integer in `[min, max]` (both inclusive). */
  int(min: number, max: number): number
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T
  /** `true` or `false` with equal probability. */
  bool(): boolean
  /**
   * An independent stream derived from this stream's key and `label` only: it does not depend on how many
   * values were drawn from this stream, so `fork('a')` always yields the same stream.
   */
  fork(label: string): Rng
}

type Key = readonly [number, number, number, number]

function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Absorbs 32-bit words into a 128-bit key (splitmix-style sponge over fmix32). */
function deriveKey(words: readonly number[]): Key {
  let s = 0x6a09e667
  for (const w of words) s = fmix32((s ^ (w >>> 0)) + 0x9e3779b9)
  const out: number[] = []
  for (let i = 0; i < 4; i++) {
    s = fmix32(s + 0x9e3779b9 + i)
    out.push(s)
  }
  return out as unknown as Key
}

function seedWords(seed: number): number[] {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, Object.is(seed, -0) ? 0 : seed)
  return [view.getUint32(0), view.getUint32(4)]
}

class Sfc32 implements Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(private readonly key: Key) {
    ;[this.a, this.b, this.c, this.d] = key
    this.d = (this.d | 1) >>> 0
    for (let i = 0; i < 12; i++) this.u32()
  }

  private u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  next(): number {
    return this.u32() / 4294967296
  }

  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      refuseField(
        'input',
        'min, max',
        `must be safe integers with min <= max, but got ${describeValue(min)} and ${describeValue(max)}; pass integer bounds in order`,
        min,
        { prefix: 'rng.int: ', received: `${describeValue(min)}, ${describeValue(max)}` },
      )
    }
    const span = max - min + 1
    // 53 bits of randomness for wide ranges, 32 bits otherwise.
    const u =
      span > 4294967296 ? (this.u32() * 2097152 + (this.u32() >>> 11)) / 9007199254740992 : this.next()
    return Math.min(max, min + Math.floor(u * span))
  }

  pick<T>(items: readonly T[]): T {
    if (!Array.isArray(items) || items.length === 0) {
      refuseField('input', 'items', `must be a non-empty array, but got ${describeValue(items)}`, items, {
        prefix: 'rng.pick: ',
      })
    }
    return items[this.int(0, items.length - 1)] as T
  }

  bool(): boolean {
    return (this.u32() & 1) === 1
  }

  fork(label: string): Rng {
    if (typeof label !== 'string') {
      refuseField('input', 'label', `must be a string, but got ${describeValue(label)}`, label, {
        prefix: 'rng.fork: ',
      })
    }
    const words = [...this.key, 0x666f726b, label.length]
    for (let i = 0; i < label.length; i++) words.push(label.charCodeAt(i))
    return new Sfc32(deriveKey(words))
  }
}

/**
 * Creates a fast seeded PRNG (sfc32 keyed from the seed through a 32-bit mixer). The same seed always
 * yields the same stream; any finite number is a valid seed (its float64 bits are mixed in).
 * @throws InvalidInputError when `seed` is not a finite number
 * @example
 * ```ts
 * const rng = createRng(42)
 * rng.int(1, 6) // same value every run
 * rng.fork('user').pick(['a', 'b']) // independent of how much `rng` has been used
 * ```
 */
export function createRng(seed: number): Rng {
  if (typeof seed !== 'number' || !Number.isFinite(seed)) {
    refuseField(
      'input',
      'seed',
      `must be a finite number, but got ${describeValue(seed)}; pass e.g. 42`,
      seed,
    )
  }
  return new Sfc32(deriveKey(seedWords(seed)))
}
