import { generateFormat } from './formats.js'
import type { Norm } from './normalized-schema.js'
import { generateFromRegex, parseRegex, type RegexNode, regexAnchored } from './regex-generator.js'
import type { Rng } from './rng.js'

/** Internal: this branch/type/attempt cannot produce a value; the caller tries another. */
export class Unsatisfiable {
  constructor(readonly reason: string) {}
}

const WORDS = [
  'alpha',
  'bravo',
  'cedar',
  'delta',
  'ember',
  'field',
  'grove',
  'harbor',
  'island',
  'jade',
  'kite',
  'lumen',
  'maple',
  'north',
  'orbit',
  'pixel',
  'quartz',
  'river',
  'stone',
  'tide',
  'umber',
  'vale',
  'willow',
  'zephyr',
]

const regexCache = new Map<string, { node: RegexNode; test: RegExp; start: boolean; end: boolean }>()

function compiledPattern(pattern: string): { node: RegexNode; test: RegExp; start: boolean; end: boolean } {
  let hit = regexCache.get(pattern)
  if (!hit) {
    const node = parseRegex(pattern)
    hit = {
      node,
      test: new RegExp(pattern, 'u'),
      start: regexAnchored(node, '^'),
      end: regexAnchored(node, '$'),
    }
    if (regexCache.size > 500) regexCache.clear()
    regexCache.set(pattern, hit)
  }
  return hit
}

/** Length in code points, as ajv counts it. */
export function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b]
  return a
}

/** A number (or integer) within the bounds and multiples of `norm`. */
export function generateNumber(norm: Norm, integer: boolean, rng: Rng): number {
  const { lower, upper, multipleOf } = norm
  const inBounds = (v: number): boolean =>
    (!lower || (lower.exclusive ? v > lower.value : v >= lower.value)) &&
    (!upper || (upper.exclusive ? v < upper.value : v <= upper.value))
  const ok = (v: number): boolean =>
    Number.isFinite(v) &&
    inBounds(v) &&
    (!integer || Number.isInteger(v)) &&
    multipleOf.every((m) => Number.isInteger(v / m))
  let lo = lower
    ? integer
      ? lower.exclusive
        ? Math.floor(lower.value) + 1
        : Math.ceil(lower.value)
      : lower.value
    : undefined
  let hi = upper
    ? integer
      ? upper.exclusive
        ? Math.ceil(upper.value) - 1
        : Math.floor(upper.value)
      : upper.value
    : undefined
  if (lo === undefined && hi === undefined) [lo, hi] = [-1000, 1000]
  else if (lo === undefined) lo = hi! >= 0 ? 0 : hi! - 1000
  else if (hi === undefined) hi = lo + 1000
  const L = lo!
  const H = hi!
  if (L > H) throw new Unsatisfiable(`no ${integer ? 'integer' : 'number'} lies between the bounds`)
  const zero = (v: number): number => (v === 0 ? 0 : v)
  if (multipleOf.length > 0) {
    const allIntegers = multipleOf.every(Number.isInteger)
    const step = allIntegers
      ? multipleOf.reduce((a, b) => {
          const l = (a / gcd(a, b)) * b
          return Number.isSafeInteger(l) ? l : Math.max(a, b)
        })
      : Math.max(...multipleOf)
    const kLo = Math.ceil(L / step)
    const kHi = Math.floor(H / step)
    if (kLo > kHi) throw new Unsatisfiable(`no multiple of ${step} lies between the bounds`)
    const tryK = (k: number): number | undefined => {
      for (const v of [k * step, Number((k * step).toPrecision(12)), Number((k * step).toPrecision(15))]) {
        if (ok(zero(v))) return zero(v)
      }
      return undefined
    }
    for (let t = 0; t < 32; t++) {
      const v = tryK(Math.min(kHi, kLo + Math.floor(rng.next() * (kHi - kLo + 1))))
      if (v !== undefined) return v
    }
    for (let k = kLo; k <= Math.min(kHi, kLo + 2000); k++) {
      const v = tryK(k)
      if (v !== undefined) return v
    }
    throw new Unsatisfiable(
      `no value found that is a multiple of ${multipleOf.join(' and ')} within the bounds`,
    )
  }
  if (integer) {
    const v =
      Number.isSafeInteger(L) && Number.isSafeInteger(H)
        ? rng.int(L, H)
        : Math.min(H, L + Math.floor(rng.next() * (H - L + 1)))
    if (ok(v)) return zero(v)
    throw new Unsatisfiable('no integer found within the bounds')
  }
  const raw = L + rng.next() * (H - L)
  // Round to a few significant digits of the range so values look like numbers people write.
  const digits = H > L ? Math.min(15, Math.max(2, Math.ceil(-Math.log10(H - L)) + 2)) : 2
  for (const v of [Number(raw.toFixed(digits)), raw, (L + H) / 2, L, H]) if (ok(v)) return zero(v)
  throw new Unsatisfiable('no number lies strictly between the exclusive bounds')
}

function words(rng: Rng, length: number): string {
  let out = ''
  while (out.length < length) out += (out ? ' ' : '') + rng.pick(WORDS)
  out = out.slice(0, length)
  return out.endsWith(' ') ? `${out.slice(0, -1)}s` : out
}

function filler(rng: Rng, length: number): string {
  return words(rng, length).replace(/ /g, '_')
}

/** The longest string a pattern may generate (minLength is capped at 10 000 elsewhere). */
const MAX_PATTERN_STRING = 20_000

/** A string meeting the length, pattern and format constraints of `norm`. */
export function generateString(norm: Norm, rng: Rng): string {
  const { minLength, maxLength, patterns, formats } = norm
  const fits = (s: string): boolean => {
    const n = codePoints(s)
    return n >= minLength && n <= maxLength && patterns.every((p) => compiledPattern(p).test.test(s))
  }
  if (formats.length > 1) throw new Unsatisfiable(`formats ${formats.join(' and ')} cannot hold at once`)
  const format = formats[0]
  if (format !== undefined) {
    for (let t = 0; t < 16; t++) {
      const s = generateFormat(format, rng.fork(`format:${t}`), minLength, maxLength)
      if (fits(s)) return s
    }
    throw new Unsatisfiable(`no "${format}" string fits the length/pattern constraints`)
  }
  const first = patterns[0]
  if (first !== undefined) {
    const { node, start, end } = compiledPattern(first)
    const extras = [3, 1, 6, 0, 12, 24, 48, 96]
    for (let t = 0; t < 24; t++) {
      const r = rng.fork(`pattern:${t}`)
      // Bounded: a pattern such as (a{1000}){1000} must fail fast, never build a gigabyte string.
      const limit = Math.min(maxLength, MAX_PATTERN_STRING)
      let s = generateFromRegex(
        node,
        r,
        extras[t % extras.length]! * (1 + Math.floor(t / extras.length)),
        limit,
      )
      if (s === undefined) break
      const missing = minLength - codePoints(s)
      if (missing > 0) {
        if (!end) s += filler(r, missing)
        else if (!start) s = filler(r, missing) + s
      }
      // An unanchored pattern matches inside longer strings: surround the match for variety when it fits.
      const padded = `${start ? '' : filler(r, r.int(0, 4))}${s}${end ? '' : filler(r, r.int(0, 4))}`
      if (fits(padded)) return padded
      if (fits(s)) return s
    }
    throw new Unsatisfiable(
      `no string found for pattern ${JSON.stringify(first)} within the length constraints`,
    )
  }
  const lo = Math.max(minLength, Math.min(3, maxLength))
  const hi = Math.min(maxLength, lo + 13)
  if (lo > hi) throw new Unsatisfiable('minLength exceeds maxLength')
  return words(rng, rng.int(lo, hi))
}
