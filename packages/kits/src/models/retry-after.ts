/**
 * Response headers as `fetch` gives them (anything with `get(name)`), or as a plain record with names in
 * any case, values as strings or lists (what Node's `IncomingHttpHeaders` and most SDK errors carry).
 * @example
 * ```ts
 * import { type HeaderSource, parseRetryAfterMs } from '@agent-core/kits/models'
 *
 * const fromFetch: HeaderSource = new Headers({ 'retry-after-ms': '250' })
 * const fromNode: HeaderSource = { 'Retry-After': ['2'] }
 * parseRetryAfterMs(fromFetch) // 250
 * parseRetryAfterMs(fromNode) // 2000
 * ```
 */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>

/** Reads one header from a `Headers` object or a plain record, case-insensitively. */
export function readHeader(headers: HeaderSource | undefined, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined
  try {
    if (typeof (headers as { get?: unknown }).get === 'function') {
      const value = (headers as { get(name: string): unknown }).get(name)
      return typeof value === 'string' ? value : undefined
    }
    const wanted = name.toLowerCase()
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== wanted) continue
      if (typeof value === 'string') return value
      if (Array.isArray(value) && typeof value[0] === 'string') return value[0]
    }
  } catch {
    // A hostile headers object: treat the header as absent.
  }
  return undefined
}

const SECONDS = /^\s*\d+(?:\.\d+)?\s*$/

/**
 * How long a provider asked to wait, in milliseconds, from `retry-after-ms` (OpenAI's precise header,
 * preferred) or `Retry-After` (delta seconds or an HTTP date, counted from `nowMs`). `undefined` when
 * neither header is present or readable; a date in the past means 0.
 *
 * @example
 * ```ts
 * import { parseRetryAfterMs } from '@agent-core/kits/models'
 * parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '1' })) // 250
 * parseRetryAfterMs({ 'Retry-After': '3' }) // 3000
 * ```
 */
export function parseRetryAfterMs(
  headers: HeaderSource | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const precise = readHeader(headers, 'retry-after-ms')
  if (precise !== undefined && /^\s*\d+(?:\.\d+)?\s*$/.test(precise)) {
    const ms = Number(precise)
    if (Number.isFinite(ms)) return Math.ceil(ms)
  }
  const header = readHeader(headers, 'retry-after')
  if (header === undefined) return undefined
  if (SECONDS.test(header)) {
    const ms = Number(header) * 1000
    return Number.isFinite(ms) ? Math.ceil(ms) : undefined
  }
  const at = Date.parse(header)
  if (Number.isNaN(at)) return undefined
  const now = typeof nowMs === 'number' && Number.isFinite(nowMs) ? nowMs : Date.now()
  return Math.max(0, Math.ceil(at - now))
}
