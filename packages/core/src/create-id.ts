import { assertNonEmptyString } from './validate.js'

/**
 * A fresh random id behind a prefix: `<prefix>_` and 32 lowercase hex digits (128 bits from
 * `crypto.randomUUID`, or from `crypto.getRandomValues` where that is missing), unique across processes
 * for every practical purpose. For run, call, claim and session ids a kit allocates itself; an id the
 * caller gave always wins.
 * @throws `InvalidInputError` when `prefix` is not a non-empty string
 * @example
 * ```ts
 * import { createId } from '@agent-core/core'
 * const runId = createId('run') // 'run_3f2a…' (32 hex digits)
 * ```
 */
export function createId(prefix: string): string {
  assertNonEmptyString(prefix, 'prefix', { where: 'createId' })
  return `${prefix}_${randomHex()}`
}

function randomHex(): string {
  const crypto = globalThis.crypto as Crypto | undefined
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID().replaceAll('-', '')
  const bytes = new Uint8Array(16)
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes)
  else for (let index = 0; index < bytes.length; index++) bytes[index] = Math.floor(Math.random() * 256)
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}
