import { describeValue, InvalidInputError, refuseField } from '@agent-core/core'
import { readJson, readRecord } from './internal/field-reader.js'
import { canonicalJson, type JsonValue } from './internal/json.js'

/**
 * A secret for {@link signToolCall}: a string (its UTF-8 bytes), raw bytes (at least 16 of them; 32 random
 * bytes is the recommendation), or an HMAC `CryptoKey` made with `crypto.subtle.importKey`.
 * @example
 * ```ts
 * import type { DecisionKey } from '@agent-core/kits/tools'
 * const key: DecisionKey = process.env.DECISION_KEY ?? 'a-development-secret-of-32-chars!'
 * ```
 */
export type DecisionKey = string | Uint8Array | WebCryptoKey

/**
 * A Web Crypto `CryptoKey` (from `crypto.subtle.importKey` or `generateKey`), described by its shape so
 * that these declarations compile without the DOM lib (with `@types/node` alone); any real `CryptoKey`,
 * the DOM's or Node's `webcrypto.CryptoKey`, is one.
 * @example
 * ```ts
 * import type { WebCryptoKey } from '@agent-core/kits/tools'
 * const key: WebCryptoKey = await crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
 * ```
 */
export interface WebCryptoKey {
  readonly type: string
  readonly extractable: boolean
  readonly algorithm: { readonly name: string }
  readonly usages: readonly string[]
}

/**
 * The fields of a call a signature binds: which run, which call, which invocation, which tool, which input.
 * A {@link PendingToolCall} or any settled record has them all.
 * @example
 * ```ts
 * import type { SignableToolCall } from '@agent-core/kits/tools'
 * const call: SignableToolCall = { runId: 'run_1', toolCallId: 'call_1', invocationId: 'inv_1', toolId: 'refund', input: { amount: 250 } }
 * ```
 */
export interface SignableToolCall {
  readonly runId?: string | undefined
  readonly toolCallId: string
  readonly invocationId: string
  readonly toolId: string
  readonly input: JsonValue
}

const VERSION = 'v1'
const DOMAIN = 'agent-core/tool-call-signature/v1'
const MIN_KEY_BYTES = 16
const encoder = new TextEncoder()

function subtle(): SubtleCrypto {
  const value = (globalThis.crypto as Crypto | undefined)?.subtle
  if (!value) {
    throw new InvalidInputError(
      'Signing tool calls needs Web Crypto (globalThis.crypto.subtle), which this runtime does not provide. Use Node 20+, a browser or a runtime with Web Crypto.',
    )
  }
  return value
}

/** What a decision key may be, for refusals. */
const KEY_KINDS = 'a string, a Uint8Array or an HMAC CryptoKey'

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey === 'function' && value instanceof CryptoKey
}

async function importKey(key: unknown, field: string): Promise<CryptoKey> {
  if (isCryptoKey(key)) {
    if (key.algorithm.name !== 'HMAC') {
      refuseField('input', field, `must be an HMAC CryptoKey, but it is a ${key.algorithm.name} key`, key)
    }
    return key
  }
  let bytes: Uint8Array<ArrayBuffer>
  if (typeof key === 'string') bytes = encoder.encode(key)
  else if (key instanceof Uint8Array) bytes = new Uint8Array(key)
  else {
    refuseField('input', field, `must be ${KEY_KINDS}, but got ${describeValue(key)}`, key)
  }
  if (bytes.byteLength < MIN_KEY_BYTES) {
    throw new InvalidInputError(
      `${field} is ${bytes.byteLength} bytes long; a signing key needs at least ${MIN_KEY_BYTES}. Generate one with crypto.getRandomValues(new Uint8Array(32)) and keep it secret.`,
      { details: { field, received: `${bytes.byteLength} bytes` } },
    )
  }
  return subtle().importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
}

function readCall(call: unknown): SignableToolCall {
  const reader = readRecord(call, 'call', 'The call to sign')
  const runId = reader.string('runId')
  const toolCallId = reader.requiredString('toolCallId')
  const invocationId = reader.requiredString('invocationId')
  const toolId = reader.requiredString('toolId')
  const input = readJson(reader, 'input') as JsonValue
  return { runId, toolCallId, invocationId, toolId, input }
}

function message(call: SignableToolCall): Uint8Array<ArrayBuffer> {
  return encoder.encode(
    canonicalJson([DOMAIN, call.runId ?? null, call.toolCallId, call.invocationId, call.toolId, call.input]),
  )
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'))
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return undefined
  }
}

/**
 * Signs a call: an HMAC-SHA-256 (Web Crypto, so it runs in Node, browsers and workers alike) over the run
 * id, the tool-call id, the invocation id, the tool id and the canonical JSON of the input (key order does
 * not matter). The signature proves that a decision answers exactly this call: a client that changes the
 * input, or moves the signature onto another call or run, fails {@link verifyToolCallSignature}. It does
 * not say which answer was given: the person deciding chooses approve or reject.
 *
 * A {@link ToolLifecycleRegistry} with `decisionKeys` signs its pending calls and verifies decisions
 * itself; the loop, MCP and the sandbox use these two functions where they need the same check.
 * @param key - the secret (never sent to the client)
 * @returns `"v1.<base64url>"`
 * @throws `InvalidInputError` for a malformed call or key
 * @example
 * ```ts
 * import { signToolCall, verifyToolCallSignature } from '@agent-core/kits/tools'
 * const key = 'a-development-secret-of-32-chars!'
 * const call = { runId: 'run_1', toolCallId: 'call_1', invocationId: 'inv_1', toolId: 'refund', input: { amount: 250 } }
 * const signature = await signToolCall(call, key)
 * await verifyToolCallSignature(call, signature, [key]) // true
 * await verifyToolCallSignature({ ...call, input: { amount: 9000 } }, signature, [key]) // false
 * ```
 */
export async function signToolCall(call: SignableToolCall, key: DecisionKey): Promise<string> {
  const checked = readCall(call)
  const cryptoKey = await importKey(key, 'key')
  const mac = await subtle().sign('HMAC', cryptoKey, message(checked))
  return `${VERSION}.${toBase64Url(new Uint8Array(mac))}`
}

/**
 * True when `signature` was made by {@link signToolCall} for this very call with one of `keys` (list the
 * current key first and earlier ones after it while you rotate). Verification runs in constant time
 * (Web Crypto's `verify`). A missing or malformed signature is simply `false`.
 * @throws `InvalidInputError` for a malformed call or key list
 * @example
 * ```ts
 * import { verifyToolCallSignature } from '@agent-core/kits/tools'
 * import type { DecisionKey, PendingToolCall } from '@agent-core/kits/tools'
 * declare const currentKey: DecisionKey
 * declare const decision: { signature?: string }
 * declare const pending: PendingToolCall
 * declare const previousKey: DecisionKey
 * if (!(await verifyToolCallSignature(pending, decision.signature, [currentKey, previousKey]))) throw new Error('forged')
 * ```
 */
export async function verifyToolCallSignature(
  call: SignableToolCall,
  signature: unknown,
  keys: readonly DecisionKey[],
): Promise<boolean> {
  const checked = readCall(call)
  const cryptoKeys = await importKeys(keys, 'keys')
  if (typeof signature !== 'string' || !signature.startsWith(`${VERSION}.`)) return false
  const mac = fromBase64Url(signature.slice(VERSION.length + 1))
  if (mac === undefined || mac.byteLength !== 32) return false
  const data = message(checked)
  for (const key of cryptoKeys) {
    if (await subtle().verify('HMAC', key, mac, data)) return true
  }
  return false
}

/** Imports a non-empty list of keys, checking each. */
export async function importKeys(keys: unknown, field: string): Promise<CryptoKey[]> {
  if (!Array.isArray(keys) || keys.length === 0) {
    refuseField(
      'input',
      field,
      `must be a non-empty array of keys (current key first), but got ${describeValue(keys)}`,
      keys,
    )
  }
  const out: CryptoKey[] = []
  for (let i = 0; i < keys.length; i++) out.push(await importKey(keys[i], `${field}[${i}]`))
  return out
}

/** Checks a key list without importing it (for synchronous validation of a policy). */
export function assertDecisionKeys(keys: unknown, field: string): asserts keys is readonly DecisionKey[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    refuseField(
      'input',
      field,
      `must be a non-empty array of keys (current key first), but got ${describeValue(keys)}`,
      keys,
    )
  }
  keys.forEach((key, i) => {
    const where = `${field}[${i}]`
    if (isCryptoKey(key)) return
    const length =
      typeof key === 'string'
        ? encoder.encode(key).byteLength
        : key instanceof Uint8Array
          ? key.byteLength
          : -1
    if (length < 0) {
      refuseField('input', where, `must be ${KEY_KINDS}, but got ${describeValue(key)}`, key)
    }
    if (length < MIN_KEY_BYTES) {
      throw new InvalidInputError(
        `${where} is ${length} bytes long; a signing key needs at least ${MIN_KEY_BYTES}. Generate one with crypto.getRandomValues(new Uint8Array(32)) and keep it secret.`,
        { details: { field: where, received: `${length} bytes` } },
      )
    }
  })
}
