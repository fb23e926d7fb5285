import type { Rng } from './rng.js'

/** The string formats the generator produces, with the code-point lengths it can reach for each. */
export const FORMAT_LENGTHS: Readonly<Record<string, readonly [number, number]>> = {
  'date-time': [20, 200],
  date: [10, 10],
  time: [9, 200],
  email: [7, 254],
  uri: [12, 2000],
  uuid: [36, 36],
  ipv4: [7, 15],
  ipv6: [15, 39],
  hostname: [1, 253],
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const HEX = '0123456789abcdef'

function pad2(n: number): string {
  return String(n).padStart(2, '0')
}

function letters(rng: Rng, n: number, alphabet = LETTERS): string {
  let out = ''
  for (let i = 0; i < n; i++) out += alphabet[rng.int(0, alphabet.length - 1)]
  return out
}

function date(rng: Rng): string {
  return `${rng.int(1990, 2035)}-${pad2(rng.int(1, 12))}-${pad2(rng.int(1, 28))}`
}

/** `HH:MM:SS[.fraction]Z` with exactly `length` characters when `length` is 9 or at least 11. */
function time(rng: Rng, length: number): string {
  const base = `${pad2(rng.int(0, 23))}:${pad2(rng.int(0, 59))}:${pad2(rng.int(0, 59))}`
  if (length <= 9) return `${base}Z`
  const digits = Math.max(1, length - 10)
  return `${base}.${letters(rng, digits, '0123456789')}Z`
}

function target(rng: Rng, min: number, max: number, lo: number, hi: number, spread: number): number {
  const from = Math.max(min, lo)
  const to = Math.min(max, hi, from + spread)
  return rng.int(from, Math.max(from, to))
}

/** Labels of 1-63 letters joined by dots, exactly `length` (>= 1) characters long. */
function dottedLabels(rng: Rng, length: number): string {
  const labels: string[] = []
  let left = length
  while (left > 63) {
    const take = rng.int(3, Math.min(63, left - 2))
    labels.push(letters(rng, take))
    left -= take + 1
  }
  labels.push(letters(rng, left))
  return labels.join('.')
}

/**
 * Generates a value of `format` whose code-point length lies in `[minLength, maxLength]` when the format
 * can reach it (see {@link FORMAT_LENGTHS}); the caller checks the result.
 */
export function generateFormat(format: string, rng: Rng, minLength: number, maxLength: number): string {
  const [lo, hi] = FORMAT_LENGTHS[format] ?? [0, 0]
  switch (format) {
    case 'date':
      return date(rng)
    case 'time': {
      // Whole seconds unless minLength asks for a fraction.
      const len = target(rng, minLength, maxLength, lo, hi, 0)
      return time(rng, len === 10 ? 11 : len)
    }
    case 'date-time': {
      const len = target(rng, minLength, maxLength, lo, hi, 0)
      return `${date(rng)}T${time(rng, len - 11 === 10 ? 11 : len - 11)}`
    }
    case 'uuid': {
      const h = letters(rng, 32, HEX)
      const variant = '89ab'[rng.int(0, 3)]
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
    }
    case 'ipv4':
      return [rng.int(1, 223), rng.int(0, 255), rng.int(0, 255), rng.int(1, 254)].join('.')
    case 'ipv6': {
      const groups: string[] = []
      for (let i = 0; i < 8; i++) groups.push(letters(rng, rng.int(1, 4), HEX))
      return groups.join(':')
    }
    case 'hostname': {
      const len = target(rng, minLength, maxLength, lo, hi, 12)
      if (len < 5) return letters(rng, len)
      const tld = rng.pick(['com', 'org', 'net', 'io', 'dev'])
      return `${dottedLabels(rng, len - tld.length - 1)}.${tld}`
    }
    case 'email': {
      const len = target(rng, minLength, maxLength, lo, hi, 14)
      const domain = len >= 20 ? rng.pick(['example.com', 'mail.test', 'corp.example.org']) : 'ex.io'
      const localLength = Math.max(1, len - domain.length - 1)
      if (localLength <= 64) {
        const local = letters(rng, localLength)
        return `${local.length > 2 ? `${local.slice(0, 1)}.${local.slice(2)}` : local}@${domain}`
      }
      const local = letters(rng, 64)
      return `${local}@${dottedLabels(rng, Math.max(1, len - 69))}.com`
    }
    case 'uri': {
      const len = target(rng, minLength, maxLength, lo, hi, 24)
      const base = `https://${rng.pick(['example.com', 'api.test', 'docs.example.org'])}`
      if (len <= base.length) return 'https://x.io'.padEnd(Math.max(12, len), 'a')
      return `${base}/${letters(rng, len - base.length - 1)}`
    }
    default:
      return ''
  }
}
