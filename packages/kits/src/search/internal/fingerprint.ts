import { canonicalJson } from '@agent-core/core'

/**
 * A short, stable fingerprint of a configuration: two 32-bit FNV-1a hashes (different offset bases) of
 * the canonical JSON of `parts`, as 16 hex digits behind a `kind:` prefix. It detects a changed
 * configuration; it is not a security measure.
 */
export function configurationFingerprint(kind: string, parts: Readonly<Record<string, unknown>>): string {
  const text = canonicalJson(parts)
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    a = Math.imul(a ^ code, 0x01000193)
    b = Math.imul(b ^ code, 0x01000193)
    b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d)
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0')
  return `${kind}:${hex(a)}${hex(b)}`
}
