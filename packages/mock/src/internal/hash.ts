import { mulberry32 } from './prng.js'

/** Folds any safe integer into 32 bits without losing its high half. */
export function foldSeed(seed: number): number {
  return (seed ^ Math.floor(seed / 0x1_0000_0000)) >>> 0
}

/** FNV-1a over UTF-16 code units with a murmur3 finaliser: a stable 32-bit hash of `text` under `seed`. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ foldSeed(seed)) >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b) >>> 0
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35) >>> 0
  h ^= h >>> 16
  return h >>> 0
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A deterministic identifier body of `length` characters derived from `seed` and `salt`. */
export function deterministicId(seed: number, salt: string, length: number): string {
  const random = mulberry32(hashString(salt, seed))
  // Character codes joined once: every response makes ids, and one string beats `length` concatenations.
  const codes = new Array<number>(length)
  for (let i = 0; i < length; i++) codes[i] = ALPHABET.charCodeAt(Math.floor(random() * ALPHABET.length))
  return String.fromCharCode.apply(null, codes)
}

/**
 * The ids `${prefix}${deterministicId(seed, `${kind}:${n}`, length)}` of answer numbers `n`, remembered for
 * the first numbers: answer numbers restart at every reset, so a test suite asks for the same few again and
 * again. The same strings as computing them each time, since they depend on nothing else.
 */
export class NumberedIds {
  private readonly known: string[] = []

  constructor(
    private readonly seed: number,
    private readonly prefix: string,
    private readonly kind: string,
    private readonly length: number,
  ) {}

  /** Numbers below this are remembered (a few hundred KiB per engine at most). */
  static readonly REMEMBERED = 2048

  get(n: number): string {
    const known = n < NumberedIds.REMEMBERED ? this.known[n] : undefined
    if (known !== undefined) return known
    const id = `${this.prefix}${deterministicId(this.seed, `${this.kind}:${n}`, this.length)}`
    if (n < NumberedIds.REMEMBERED) this.known[n] = id
    return id
  }
}
